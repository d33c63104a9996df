// Softmax over the last axis in the generic op form (what mlir-opt -mlir-print-op-generic prints), with a
// reducer region written out. Expected values: each step rounded to f32 as written, computed independently
// (Python: struct-rounded exp and sums), e.g. row 0 = exp([1, 2, 3] - 3) / sum.
module @jit_softmax {
  func.func public @main() -> tensor<2x3xf32> {
    %0 = "stablehlo.constant"() <{value = dense<[[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
    %1 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %2 = "stablehlo.reduce"(%0, %1) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
      %10 = "stablehlo.maximum"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%10) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %3 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xf32>) -> tensor<2x3xf32>
    %4 = "stablehlo.subtract"(%0, %3) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %5 = "stablehlo.exponential"(%4) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %6 = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %7 = "stablehlo.reduce"(%5, %6) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
      %10 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%10) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %8 = "stablehlo.broadcast_in_dim"(%7) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xf32>) -> tensor<2x3xf32>
    %9 = "stablehlo.divide"(%5, %8) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    "check.expect_almost_eq_const"(%9) <{value = dense<[[0.09003057330846786, 0.2447284758090973, 0.6652409434318542], [0.02912176214158535, 0.0064979433082044125, 0.9643803238868713]]> : tensor<2x3xf32>}> {tolerance = 1.0e-07 : f64} : (tensor<2x3xf32>) -> ()
    "func.return"(%9) : (tensor<2x3xf32>) -> ()
  }
}
