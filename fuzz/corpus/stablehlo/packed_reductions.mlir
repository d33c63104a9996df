// f16/bf16 kernels that read and write packed tensors themselves: reduce (register blocks and a
// compare-and-select reducer), reduce_window and a convolution. A seed for fuzz_stablehlo.
func.func public @main(%a: tensor<6x40xbf16>, %x: tensor<1x9x9x4xf16>, %k: tensor<3x3x4x8xf16>) -> (tensor<6xbf16>, tensor<40xbf16>, tensor<1x4x4x4xf16>, tensor<1x9x9x8xf16>) {
  %z = stablehlo.constant dense<-8.0> : tensor<bf16>
  %m = stablehlo.reduce(%a init: %z) applies stablehlo.maximum across dimensions = [1] : (tensor<6x40xbf16>, tensor<bf16>) -> tensor<6xbf16>
  %s = stablehlo.reduce(%a init: %z) across dimensions = [0] : (tensor<6x40xbf16>, tensor<bf16>) -> tensor<40xbf16>
   reducer(%p: tensor<bf16>, %q: tensor<bf16>)  {
    %gt = stablehlo.compare  GT, %p, %q,  FLOAT : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
    %v = stablehlo.select %gt, %p, %q : tensor<i1>, tensor<bf16>
    stablehlo.return %v : tensor<bf16>
  }
  %i = stablehlo.constant dense<0xFC00> : tensor<f16>
  %w = "stablehlo.reduce_window"(%x, %i) <{window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
  ^bb0(%e: tensor<f16>, %f: tensor<f16>):
    %n = stablehlo.maximum %e, %f : tensor<f16>
    stablehlo.return %n : tensor<f16>
  }) : (tensor<1x9x9x4xf16>, tensor<f16>) -> tensor<1x4x4x4xf16>
  %c = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x9x9x4xf16>, tensor<3x3x4x8xf16>) -> tensor<1x9x9x8xf16>
  return %m, %s, %w, %c : tensor<6xbf16>, tensor<40xbf16>, tensor<1x4x4x4xf16>, tensor<1x9x9x8xf16>
}
