func.func @main(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %ninf) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %m = stablehlo.multiply %a, %b : tensor<f32>
    stablehlo.return
  }
  func.return %0 : tensor<2xf32>
}
