// A two-layer perceptron step as jax.jit(f).lower(x, w, b).as_text() prints it, with its inputs and the
// expected output (integers in f32, so every step is exact and the values can be checked by hand:
// x @ w = [[4, -1, 7], [-2, 4, 0]], + b = [[4.5, -2, 9], [-1.5, 3, 2]], relu, then the row sums 13.5 and 5).
module @jit_mlp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<2xf32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0:3 = call @inputs() : () -> (tensor<2x2xf32>, tensor<2x3xf32>, tensor<3xf32>)
    %1 = call @expected() : () -> tensor<2xf32>
    %2 = call @mlp(%0#0, %0#1, %0#2) : (tensor<2x2xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
    stablehlo.custom_call @check.expect_close(%2, %1) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    return %2 : tensor<2xf32>
  }
  func.func private @inputs() -> (tensor<2x2xf32> {mhlo.layout_mode = "default"}, tensor<2x3xf32> {mhlo.layout_mode = "default"}, tensor<3xf32> {mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense<[[1.000000e+00, 2.000000e+00], [3.000000e+00, -1.000000e+00]]> : tensor<2x2xf32>
    %cst_0 = stablehlo.constant dense<[[0.000000e+00, 1.000000e+00, 1.000000e+00], [2.000000e+00, -1.000000e+00, 3.000000e+00]]> : tensor<2x3xf32>
    %cst_1 = stablehlo.constant dense<[5.000000e-01, -1.000000e+00, 2.000000e+00]> : tensor<3xf32>
    return %cst, %cst_0, %cst_1 : tensor<2x2xf32>, tensor<2x3xf32>, tensor<3xf32>
  }
  func.func private @expected() -> (tensor<2xf32> {mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense<[1.350000e+01, 5.000000e+00]> : tensor<2xf32>
    return %cst : tensor<2xf32>
  }
  func.func private @mlp(%arg0: tensor<2x2xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<3xf32>) -> tensor<2xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc(#loc3)
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32> loc(#loc4)
    %2 = stablehlo.add %0, %1 : tensor<2x3xf32> loc(#loc4)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %4 = stablehlo.maximum %2, %3 : tensor<2x3xf32> loc(#loc5)
    %5 = stablehlo.reduce(%4 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32> loc(#loc6)
    return %5 : tensor<2xf32>
  }
}
#loc1 = loc("mlp.py":7:0)
#loc2 = loc("mlp.py":8:0)
#loc3 = loc("jit(mlp)/jit(main)/dot_general"(#loc1))
#loc4 = loc("jit(mlp)/jit(main)/add"(#loc1))
#loc5 = loc("jit(mlp)/jit(main)/max"(#loc2))
#loc6 = loc("jit(mlp)/jit(main)/reduce_sum"(#loc2))
