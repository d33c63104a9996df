// An empty result with every kernel a loop (odd length): nothing in flight, and the loop's iterations
// were divided by it (CI's fuzz stage found it).
func.func public @main(%x: tensor<0xf32>, %y: tensor<4x0xf32>) -> tensor<4x0xf32> {
  %b = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<0xf32>) -> tensor<4x0xf32>
  %r = stablehlo.add %b, %y : tensor<4x0xf32>
  return %r : tensor<4x0xf32>
}
