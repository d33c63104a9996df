func.func public @main() -> tensor<4x3xf32> {
  %input = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>
  %indices = stablehlo.constant dense<[[2], [0], [2], [9]]> : tensor<4x1xi64>
  %updates = stablehlo.constant dense<[[2.0, 0.5, -1.0], [3.0, 3.0, 3.0], [0.25, 4.0, 2.0], [1.0, 1.0, 1.0]]> : tensor<4x3xf32>
  %r = "stablehlo.scatter"(%input, %indices, %updates) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %z = stablehlo.multiply %x, %y : tensor<f32>
      stablehlo.return %z : tensor<f32>
  }) : (tensor<4x3xf32>, tensor<4x1xi64>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

func.func public @main() -> tensor<6xf16> {
  %input = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf16>
  %indices = stablehlo.constant dense<[[4], [1], [5]]> : tensor<3x1xui32>
  %updates = stablehlo.constant dense<[[0.5, 0.25], [-1.0, -2.0], [7.0, 8.0]]> : tensor<3x2xf16>
  %r = "stablehlo.scatter"(%input, %indices, %updates) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%x: tensor<f16>, %y: tensor<f16>):
      stablehlo.return %y : tensor<f16>
  }) : (tensor<6xf16>, tensor<3x1xui32>, tensor<3x2xf16>) -> tensor<6xf16>
  return %r : tensor<6xf16>
}

// -----

func.func public @main() -> tensor<2x3x4x2xi32> {
  %input = stablehlo.iota dim = 2 : tensor<2x3x4x2xi32>
  %indices = stablehlo.constant dense<[[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]], [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]]> : tensor<2x2x3x2xi32>
  %updates = stablehlo.constant dense<1> : tensor<2x2x3x2x2xi32>
  %r = "stablehlo.scatter"(%input, %indices, %updates) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>, unique_indices = false}> ({
    ^bb0(%x: tensor<i32>, %y: tensor<i32>):
      %z = stablehlo.add %x, %y : tensor<i32>
      stablehlo.return %z : tensor<i32>
  }) : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi32>, tensor<2x2x3x2x2xi32>) -> tensor<2x3x4x2xi32>
  return %r : tensor<2x3x4x2xi32>
}
