// Batched dot_generals in the shapes attention has (scores against transposed keys, then values), as
// loops over batches with two buffer sets when compiled with loops; and a dot whose batch dimensions do
// not nest (unrolled).
module @batched {
  func.func public @main(%q: tensor<6x16x8xf32>, %k: tensor<6x24x8xf32>, %v: tensor<6x24x8xf32>, %w: tensor<2x16x3x8xf32>, %u: tensor<2x3x8x4xf32>) -> (tensor<6x16x8xf32>, tensor<2x3x16x4xf32>) {
    %s = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<6x16x8xf32>, tensor<6x24x8xf32>) -> tensor<6x16x24xf32>
    %o = stablehlo.dot_general %s, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<6x16x24xf32>, tensor<6x24x8xf32>) -> tensor<6x16x8xf32>
    %r = stablehlo.dot_general %w, %u, batching_dims = [0, 2] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x16x3x8xf32>, tensor<2x3x8x4xf32>) -> tensor<2x3x16x4xf32>
    return %o, %r : tensor<6x16x8xf32>, tensor<2x3x16x4xf32>
  }
}
