// A 2-way tensor-parallel MLP block (Megatron-style): each chip holds half of the hidden units, the column
// half of w1 and the row half of w2, computes its partial output, and an all_reduce sums the partials. This
// is the per-chip program that jax.jit(shard_map(mlp, mesh, in_specs=(P(), P(None, 'x'), P('x', None)),
// out_specs=P())) runs on each of 2 devices: seq 128, d_model 256, hidden 1024 (512 per chip), f32. x is
// replicated; the weight shards differ per chip. Written for xpushark in JAX's output style.
#loc1 = loc("tp_mlp.py":1:0)
module @jit_tp_mlp attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<128x256xf32> {mhlo.sharding = "{replicated}"} loc("x"), %arg1: tensor<256x512xf32> {mhlo.sharding = "{devices=[1,2]<=[2]}"} loc("w1"), %arg2: tensor<512x256xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"} loc("w2")) -> (tensor<128x256xf32> {jax.result_info = "", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x256xf32>, tensor<256x512xf32>) -> tensor<128x512xf32> loc(#loc2)
    %1 = stablehlo.multiply %0, %0 : tensor<128x512xf32> loc(#loc3)
    %2 = stablehlo.multiply %1, %0 : tensor<128x512xf32> loc(#loc3)
    %cst = stablehlo.constant dense<4.471500e-02> : tensor<128x512xf32> loc(#loc4)
    %3 = stablehlo.multiply %cst, %2 : tensor<128x512xf32> loc(#loc4)
    %4 = stablehlo.add %0, %3 : tensor<128x512xf32> loc(#loc5)
    %cst_0 = stablehlo.constant dense<0.797884583> : tensor<128x512xf32> loc(#loc4)
    %5 = stablehlo.multiply %cst_0, %4 : tensor<128x512xf32> loc(#loc4)
    %6 = stablehlo.tanh %5 : tensor<128x512xf32> loc(#loc6)
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<128x512xf32> loc(#loc5)
    %7 = stablehlo.add %cst_1, %6 : tensor<128x512xf32> loc(#loc5)
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<128x512xf32> loc(#loc4)
    %8 = stablehlo.multiply %cst_2, %0 : tensor<128x512xf32> loc(#loc4)
    %9 = stablehlo.multiply %8, %7 : tensor<128x512xf32> loc(#loc4)
    %10 = stablehlo.dot_general %9, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x512xf32>, tensor<512x256xf32>) -> tensor<128x256xf32> loc(#loc7)
    %11 = "stablehlo.all_reduce"(%10) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%arg3: tensor<f32> loc("tp_mlp.py":14:0), %arg4: tensor<f32> loc("tp_mlp.py":14:0)):
      %12 = stablehlo.add %arg3, %arg4 : tensor<f32> loc(#loc8)
      stablehlo.return %12 : tensor<f32> loc(#loc8)
    }) : (tensor<128x256xf32>) -> tensor<128x256xf32> loc(#loc8)
    return %11 : tensor<128x256xf32> loc(#loc1)
  } loc(#loc1)
} loc(#loc1)
#loc2 = loc("jit(tp_mlp)/jit(main)/shard_map/up/dot_general"("tp_mlp.py":10:0))
#loc3 = loc("jit(tp_mlp)/jit(main)/shard_map/gelu/integer_pow"("tp_mlp.py":11:0))
#loc4 = loc("jit(tp_mlp)/jit(main)/shard_map/gelu/mul"("tp_mlp.py":11:0))
#loc5 = loc("jit(tp_mlp)/jit(main)/shard_map/gelu/add"("tp_mlp.py":11:0))
#loc6 = loc("jit(tp_mlp)/jit(main)/shard_map/gelu/tanh"("tp_mlp.py":11:0))
#loc7 = loc("jit(tp_mlp)/jit(main)/shard_map/down/dot_general"("tp_mlp.py":13:0))
#loc8 = loc("jit(tp_mlp)/jit(main)/shard_map/psum"("tp_mlp.py":14:0))
