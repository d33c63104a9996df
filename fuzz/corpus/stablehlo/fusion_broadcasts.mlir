// Fusion seeds: a GELU-like chain with splat constants, a bias row and a scalar broadcast kept in
// registers, a column broadcast on the vector unit, a value read twice (not fused) and a bf16 intermediate.
func.func public @main(%x: tensor<8x128xf32>, %b: tensor<128xf32>, %m: tensor<8xf32>) -> tensor<8x128xf32> {
  %c = stablehlo.constant dense<0.5> : tensor<8x128xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<8x128xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<128xf32>) -> tensor<8x128xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<8xf32>) -> tensor<8x128xf32>
  %0 = stablehlo.add %x, %bb : tensor<8x128xf32>
  %1 = stablehlo.multiply %0, %c : tensor<8x128xf32>
  %2 = stablehlo.tanh %1 : tensor<8x128xf32>
  %3 = stablehlo.subtract %2, %mb : tensor<8x128xf32>
  %4 = stablehlo.maximum %3, %zb : tensor<8x128xf32>
  %5 = stablehlo.multiply %4, %4 : tensor<8x128xf32>
  %6 = stablehlo.convert %5 : (tensor<8x128xf32>) -> tensor<8x128xbf16>
  %7 = stablehlo.convert %6 : (tensor<8x128xbf16>) -> tensor<8x128xf32>
  %8 = stablehlo.add %7, %4 : tensor<8x128xf32>
  return %8 : tensor<8x128xf32>
}
