#pragma once
// An XProf profile of single jitted ops on a TPU, laid out as XProf writes one (xspace_fixture.h): the
// "XLA Ops" line of /device:TPU:0 with each op's HLO text, hlo_category and device timespan, beside a host
// plane. The ops are what calibration measures (calibrate/profile_measurements.h): a dot_general fusion run
// four times (2.0, 2.2, 1.8, 2.0 us), a dot with a transposed lhs once (1.5 us), an add of 1024x1024 twice
// (19.3, 19.5 us), and two ops it must leave out: a copy, and a fusion printed without operand shapes.

#include "xspace_fixture.h"

namespace xps::test {

inline std::int64_t psOfNs(std::int64_t v)
{
    return v * 1000;
}

inline tp::XSpace singleOpsOnTpu()
{
    tp::XSpace space;
    addHostPlane(space, 1, "PjitFunction(matmul)", 500);

    auto* tpu = space.add_planes();
    tpu->set_id(2);
    tpu->set_name("/device:TPU:0");
    PlaneBuilder b(tpu);
    const auto matmul =
        b.op("%fusion.7 = f16[128,256]{1,0:T(8,128)(2,1)} fusion(f16[128,64]{1,0:T(8,128)(2,1)} %Arg_0.1, "
             "f16[64,256]{1,0:T(8,128)(2,1)} %Arg_1.2), kind=kOutput, calls=%fused_computation, "
             "metadata={op_name=\"jit(matmul)/jit(main)/dot_general[dimension_numbers=(([1], [0]), ([], [])) "
             "precision=None preferred_element_type=float16]\" source_file=\"bench.py\" source_line=12}",
             "fusion.7", "convolution fusion");
    const auto transposed = b.op(
        "%dot.3 = f32[32,48]{1,0} dot(f32[16,32]{1,0} %a, f32[16,48]{1,0} %b), lhs_contracting_dims={0}, "
        "rhs_contracting_dims={0}",
        "dot.3", "convolution");
    const auto add = b.op("%add.2 = f16[1024,1024]{1,0} add(f16[1024,1024]{1,0} %x, f16[1024,1024]{1,0} %y), "
                          "metadata={op_name=\"jit(add)/jit(main)/add\"}",
                          "add.2", "non-fusion elementwise");
    const auto copy = b.op("%copy.1 = f32[8,128]{0,1} copy(f32[8,128]{1,0} %p)", "copy.1", "data formatting");
    const auto bare =
        b.op("%fusion.9 = f16[64,64]{1,0} fusion(%p0, %p1), kind=kOutput", "fusion.9", "convolution fusion");
    auto* ops = b.line(2, "XLA Ops", 1'000'000);
    std::int64_t at = 0;
    const auto run = [&](std::int64_t meta, std::int64_t ns) {
        auto* e = b.event(ops, meta, psOfNs(at), psOfNs(ns));
        b.intStat(e, "device_offset_ps", psOfUs(5'000'000) + psOfNs(at));
        b.intStat(e, "device_duration_ps", psOfNs(ns));
        at += ns + 3'000; // 3 us apart, as separate jitted calls are
    };
    for (const std::int64_t ns : {2'000, 2'200, 1'800, 2'000})
        run(matmul, ns);
    run(transposed, 1'500);
    run(add, 19'300);
    run(add, 19'500);
    run(copy, 700);
    run(bare, 900);
    return space;
}

} // namespace xps::test
