// An empty operand broadcast along the trailing dimension: its period would be 0 (a division by zero in
// lower_fusion.cpp once; found reading the code, not by the fuzzer).
func.func public @main(%x: tensor<0xf32>, %y: tensor<4x0xf32>) -> tensor<4x0xf32> {
  %b = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<0xf32>) -> tensor<4x0xf32>
  %r = stablehlo.add %b, %y : tensor<4x0xf32>
  return %r : tensor<4x0xf32>
}
