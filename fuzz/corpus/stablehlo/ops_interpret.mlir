// Ops of the subset in the style of StableHLO's interpreter tests (stablehlo/tests/interpret): one function
// a part, parts split by `// -----`, results checked with the check dialect. Written for xpushark; every
// expected value is worked out by hand in the comment beside it.

func.func @transpose_slice_pad() {
  %0 = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %1, dense<[[0, 0], [1, 1], [2, 2]]> : tensor<3x2xi32>
  %2 = stablehlo.slice %1 [1:3, 0:2:1] : (tensor<3x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %2, dense<[[1, 1], [2, 2]]> : tensor<2x2xi32>
  %c = stablehlo.constant dense<-1> : tensor<i32>
  // low 1 / interior 1 on columns: [-1, x0, -1, x1]; one row of padding below.
  %3 = stablehlo.pad %2, %c, low = [0, 1], high = [1, 0], interior = [0, 1] : (tensor<2x2xi32>, tensor<i32>) -> tensor<3x4xi32>
  check.expect_eq_const %3, dense<[[-1, 1, -1, 1], [-1, 2, -1, 2], [-1, -1, -1, -1]]> : tensor<3x4xi32>
  func.return
}

// -----

func.func @concatenate_reverse_convert() {
  %a = stablehlo.constant dense<[1.5, -2.5]> : tensor<2xf32>
  %b = stablehlo.constant dense<[3.75]> : tensor<1xf32>
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2xf32>, tensor<1xf32>) -> tensor<3xf32>
  %1 = stablehlo.reverse %0, dims = [0] : tensor<3xf32>
  check.expect_eq_const %1, dense<[3.75, -2.5, 1.5]> : tensor<3xf32>
  // f32 -> i32 truncates toward zero.
  %2 = stablehlo.convert %1 : (tensor<3xf32>) -> tensor<3xi32>
  check.expect_eq_const %2, dense<[3, -2, 1]> : tensor<3xi32>
  // 3.75, -2.5 and 1.5 are exact in bf16 and f16.
  %3 = stablehlo.convert %1 : (tensor<3xf32>) -> tensor<3xbf16>
  %4 = stablehlo.convert %3 : (tensor<3xbf16>) -> tensor<3xf16>
  check.expect_eq_const %4, dense<[3.75, -2.5, 1.5]> : tensor<3xf16>
  func.return
}

// -----

func.func @compare_select_clamp() {
  %x = stablehlo.constant dense<[-3.0, 0.5, 7.0, 0x7FC00000]> : tensor<4xf32>
  %lo = stablehlo.constant dense<-1.0> : tensor<f32>
  %hi = stablehlo.constant dense<2.0> : tensor<f32>
  // Scalar bounds; NaN stays NaN.
  %0 = stablehlo.clamp %lo, %x, %hi : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  check.expect_almost_eq_const %0, dense<[-1.0, 0.5, 2.0, 0x7FC00000]> : tensor<4xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<4xf32>
  // NaN > 0 is false.
  %1 = stablehlo.compare  GT, %x, %zero,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  check.expect_eq_const %1, dense<[false, true, true, false]> : tensor<4xi1>
  %2 = stablehlo.select %1, %x, %zero : tensor<4xi1>, tensor<4xf32>
  check.expect_eq_const %2, dense<[0.0, 0.5, 7.0, 0.0]> : tensor<4xf32>
  func.return
}

// -----

func.func @convolution_nhwc() {
  // A 3x3 image of 1..9 (NHWC) and a 2x2 kernel of ones (HWIO).
  %img = stablehlo.constant dense<[[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]]]> : tensor<1x3x3x1xf32>
  %k = stablehlo.constant dense<1.0> : tensor<2x2x1x1xf32>
  // Stride 1, no padding: the sums of the four 2x2 windows, 1+2+4+5 = 12, 16, 24, 28.
  %0 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32>
  check.expect_eq_const %0, dense<[[[[12.0], [16.0]], [[24.0], [28.0]]]]> : tensor<1x2x2x1xf32>
  // Stride 2, one row and column of zeros above and left: 1, 2+3 = 5, 4+7 = 11, 5+6+8+9 = 28.
  %1 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 0], [1, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32>
  check.expect_eq_const %1, dense<[[[[1.0], [5.0]], [[11.0], [28.0]]]]> : tensor<1x2x2x1xf32>
  func.return
}

// -----

func.func @reduce_window_max_pool() {
  %x = stablehlo.constant dense<[[1.0, 5.0, 2.0, 0.0], [3.0, 4.0, 8.0, 6.0]]> : tensor<2x4xf32>
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  // 2x2 windows, stride 2 along columns: max(1, 5, 3, 4) = 5, max(2, 0, 8, 6) = 8.
  %0 = "stablehlo.reduce_window"(%x, %init) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<2x4xf32>, tensor<f32>) -> tensor<1x2xf32>
  check.expect_eq_const %0, dense<[[5.0, 8.0]]> : tensor<1x2xf32>
  func.return
}

// -----

func.func @argmax_two_results() {
  %x = stablehlo.constant dense<[[1.0, 9.0, 3.0], [7.0, 2.0, 7.0]]> : tensor<2x3xf32>
  %i = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  // The reducer keeps the accumulator only when it is greater, so a tie takes the later index (row 1: 2).
  %0:2 = stablehlo.reduce(%x init: %ninf), (%i init: %zero) across dimensions = [1] : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>)  {
    %gt = stablehlo.compare  GT, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v = stablehlo.select %gt, %a, %b : tensor<i1>, tensor<f32>
    %idx = stablehlo.select %gt, %ai, %bi : tensor<i1>, tensor<i32>
    stablehlo.return %v, %idx : tensor<f32>, tensor<i32>
  }
  check.expect_eq_const %0#0, dense<[9.0, 7.0]> : tensor<2xf32>
  check.expect_eq_const %0#1, dense<[1, 2]> : tensor<2xi32>
  func.return
}

// -----

func.func @dot_general_batched_bf16() {
  // Two 2x2 batches of bf16 operands, accumulated in f32: [[1, 2], [3, 4]] @ I = itself; [[1, 1], [1, 1]] @ [[2, 0], [0, 3]].
  %lhs = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[1.0, 1.0], [1.0, 1.0]]]> : tensor<2x2x2xbf16>
  %rhs = stablehlo.constant dense<[[[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 3.0]]]> : tensor<2x2x2xbf16>
  %0 = stablehlo.dot_general %lhs, %rhs, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x2x2xbf16>, tensor<2x2x2xbf16>) -> tensor<2x2x2xf32>
  check.expect_eq_const %0, dense<[[[1.0, 2.0], [3.0, 4.0]], [[2.0, 3.0], [2.0, 3.0]]]> : tensor<2x2x2xf32>
  func.return
}
