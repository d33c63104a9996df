// Every collective of the subset on bf16 tensors, which travel packed (2 bytes an element), over 4 chips in
// two replica groups ({0, 2} and {1, 3}, listed out of order in one of them) and one group of all four
// (three additions, each rounded to bf16 as the interpreter's reducer rounds), on arguments that differ per
// chip. Written for xpushark: the compiled program's results on every chip are compared with the reference
// interpreter's (tst_stablehlo_lowering).
module @jit_collectives_bf16 attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8x16xbf16>) -> (tensor<8x16xbf16>, tensor<8x32xbf16>, tensor<4x16xbf16>, tensor<8x16xbf16>, tensor<8x16xbf16>) {
    %0 = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2], [3, 1]]> : tensor<2x2xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
      %s = stablehlo.add %a, %b : tensor<bf16>
      stablehlo.return %s : tensor<bf16>
    }) : (tensor<8x16xbf16>) -> tensor<8x16xbf16>
    %1 = "stablehlo.all_gather"(%0) <{all_gather_dim = 1 : i64, replica_groups = dense<[[0, 2], [3, 1]]> : tensor<2x2xi64>}> : (tensor<8x16xbf16>) -> tensor<8x32xbf16>
    %2 = "stablehlo.reduce_scatter"(%x) <{scatter_dimension = 0 : i64, replica_groups = dense<[[0, 2], [3, 1]]> : tensor<2x2xi64>}> ({
    ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
      %s = stablehlo.maximum %a, %b : tensor<bf16>
      stablehlo.return %s : tensor<bf16>
    }) : (tensor<8x16xbf16>) -> tensor<4x16xbf16>
    %4 = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
      %s = stablehlo.add %a, %b : tensor<bf16>
      stablehlo.return %s : tensor<bf16>
    }) : (tensor<8x16xbf16>) -> tensor<8x16xbf16>
    %3 = "stablehlo.collective_permute"(%x) <{source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<8x16xbf16>) -> tensor<8x16xbf16>
    return %0, %1, %2, %3, %4 : tensor<8x16xbf16>, tensor<8x32xbf16>, tensor<4x16xbf16>, tensor<8x16xbf16>, tensor<8x16xbf16>
  }
}
