func.func @main(%x: tensor<8x768x1536xf16>, %scale: tensor<1536xf16>, %bias: tensor<1536xf16>) -> tensor<8x768x1536xf16> {
  %xf = stablehlo.convert %x : (tensor<8x768x1536xf16>) -> tensor<8x768x1536xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%xf init: %z) applies stablehlo.add across dimensions = [2] : (tensor<8x768x1536xf32>, tensor<f32>) -> tensor<8x768xf32>
  %sq = stablehlo.multiply %xf, %xf : tensor<8x768x1536xf32>
  %s2 = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [2] : (tensor<8x768x1536xf32>, tensor<f32>) -> tensor<8x768xf32>
  %n = stablehlo.constant dense<1536.0> : tensor<8x768xf32>
  %m = stablehlo.divide %s, %n : tensor<8x768xf32>
  %m2 = stablehlo.divide %s2, %n : tensor<8x768xf32>
  %mm = stablehlo.multiply %m, %m : tensor<8x768xf32>
  %v = stablehlo.subtract %m2, %mm : tensor<8x768xf32>
  %e = stablehlo.constant dense<1.0e-5> : tensor<8x768xf32>
  %ve = stablehlo.add %v, %e : tensor<8x768xf32>
  %rs = stablehlo.rsqrt %ve : tensor<8x768xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0, 1] : (tensor<8x768xf32>) -> tensor<8x768x1536xf32>
  %d = stablehlo.subtract %xf, %mb : tensor<8x768x1536xf32>
  %rb = stablehlo.broadcast_in_dim %rs, dims = [0, 1] : (tensor<8x768xf32>) -> tensor<8x768x1536xf32>
  %y = stablehlo.multiply %d, %rb : tensor<8x768x1536xf32>
  %sf = stablehlo.convert %scale : (tensor<1536xf16>) -> tensor<1536xf32>
  %bf = stablehlo.convert %bias : (tensor<1536xf16>) -> tensor<1536xf32>
  %sb = stablehlo.broadcast_in_dim %sf, dims = [2] : (tensor<1536xf32>) -> tensor<8x768x1536xf32>
  %bb = stablehlo.broadcast_in_dim %bf, dims = [2] : (tensor<1536xf32>) -> tensor<8x768x1536xf32>
  %ys = stablehlo.multiply %y, %sb : tensor<8x768x1536xf32>
  %r = stablehlo.add %ys, %bb : tensor<8x768x1536xf32>
  %rh = stablehlo.convert %r : (tensor<8x768x1536xf32>) -> tensor<8x768x1536xf16>
  return %rh : tensor<8x768x1536xf16>
}
