// A batched dot_general of no batches: no tiles to emit (the lowering once read past its jobs).
func.func public @main(%x: tensor<0x4x8xf32>, %y: tensor<0x8x4xf32>) -> tensor<0x4x4xf32> {
  %r = stablehlo.dot_general %x, %y, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<0x4x8xf32>, tensor<0x8x4xf32>) -> tensor<0x4x4xf32>
  return %r : tensor<0x4x4xf32>
}
