// Kernel launchers and TraceLens's op categories (profile/kernel_launchers.h) on a Kineto step written for
// the rules TraceLens's perf report follows: the innermost operator around a launch, walking up past Python
// functions, user annotations and an `execute` pass-through; the runtime call itself when no operator
// encloses it; a launcher's time the union of its work, collectives left out; the category from the op
// registry, then the first kernel's name, then "other".
#include "core/import_test_support.h"
#include "test_support.h"

#include "profile/kernel_launchers.h"
#include "profile/launches.h"

#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace xps;
using test::imported::complete;
using test::imported::importText;

namespace {

std::string step()
{
    std::string e;
    const auto add = [&](const std::string& event) { e += (e.empty() ? "" : ",") + event; };
    // aten::addmm > python_function > cudaLaunchKernel: the addmm launched two overlapping kernels (union:
    // 10..40, 30 us) and a copy.
    add(complete("cpu_op", "aten::addmm", 100, 1, 0, 20));
    add(complete("python_function", "torch/nn/functional.py(2): linear", 100, 1, 1, 18));
    add(complete("cuda_runtime", "cudaLaunchKernel", 100, 1, 2, 2, 1));
    add(complete("cuda_runtime", "cudaLaunchKernel", 100, 1, 5, 2, 2));
    add(complete("cuda_runtime", "cudaMemcpyAsync", 100, 1, 8, 2, 3));
    add(complete("kernel", "sm90_gemm", 0, 7, 10, 20, 1));
    add(complete("kernel", "sm90_gemm_splitk", 0, 8, 25, 15, 2));
    add(complete("gpu_memcpy", "Memcpy DtoD", 0, 7, 60, 5, 3));
    // conv_bn_fused > execute > launch: charged to conv_bn_fused, not to the pass-through.
    add(complete("cpu_op", "conv_bn_fused", 100, 1, 30, 20));
    add(complete("cpu_op", "execute", 100, 1, 31, 18));
    add(complete("cuda_runtime", "cudaLaunchKernel", 100, 1, 32, 2, 4));
    add(complete("kernel", "implicit_convolve_sgemm", 0, 7, 70, 10, 4));
    // aten::gelu under a user annotation: the category from its kernel's name.
    add(complete("user_annotation", "block0", 100, 1, 55, 30));
    add(complete("cpu_op", "aten::gelu", 100, 1, 56, 20));
    add(complete("user_annotation", "gelu", 100, 1, 57, 10));
    add(complete("cuda_runtime", "cudaLaunchKernel", 100, 1, 58, 2, 5));
    add(complete("kernel", "void at::native::vectorized_elementwise_kernel<4, GeluCUDAKernelImpl>", 0, 7, 90,
                 4, 5));
    // A launch no operator encloses is its own launcher; a collective is nobody's.
    add(complete("cuda_runtime", "cudaLaunchKernel", 100, 1, 100, 2, 6));
    add(complete("kernel", "my_custom_kernel", 0, 7, 110, 6, 6));
    add(complete("cpu_op", "c10d::allreduce_", 100, 1, 120, 10));
    add(complete("cuda_runtime", "cudaLaunchKernel", 100, 1, 121, 2, 7));
    add(complete("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0, 9, 125, 50, 7));
    return R"({"schemaVersion":1,"traceEvents":[)" + e + "]}";
}

} // namespace

class TestKernelLaunchers : public QObject
{
    Q_OBJECT
private slots:
    void launchersTheirTimeAndCategoriesAreTraceLenss()
    {
        QTemporaryDir dir;
        const profile::Profile p = importText(dir, "step.json", step());
        CancelPoint never{std::stop_token{}};
        const auto launchers = profile::kernelLaunchers(p, profile::launchers(p, never), never);
        std::map<std::string, std::pair<profile::Ticks, std::string>> byName; // time (ns), category
        for (const profile::KernelLauncher& l : launchers)
            byName[p.nameOf(p.slices[l.slice])] = {
                l.directKernelTime, std::string(profile::traceLensOpCategory(
                                        p.nameOf(p.slices[l.slice]), p.nameOf(p.slices[l.firstKernel])))};
        const std::map<std::string, std::pair<profile::Ticks, std::string>> expected = {
            {"aten::addmm", {35'000, "GEMM"}},      // 10..40 and 60..65
            {"conv_bn_fused", {10'000, "other"}},   // not `execute`
            {"aten::gelu", {4'000, "elementwise"}}, // by its at::native kernel
            {"cudaLaunchKernel", {6'000, "other"}}, // no operator around it
        };
        QCOMPARE(byName, expected); // the all-reduce launched only a collective: no launcher
        QCOMPARE(p.nameOf(p.slices[launchers.front().slice]),
                 std::string("aten::addmm")); // in order of start

        const auto categories = profile::deviceTimeByCategory(p, launchers);
        QCOMPARE(categories.size(), std::size_t{3});
        QCOMPARE(categories[0].key, std::string("GEMM"));
        QCOMPARE(categories[0].time, profile::Ticks{35'000});
        QCOMPARE(categories[1].key, std::string("other")); // two launchers, 16 us
        QCOMPARE(categories[1].count, std::uint64_t{2});
        QCOMPARE(categories[1].time, profile::Ticks{16'000});
        QCOMPARE(categories[2].key, std::string("elementwise"));
        QVERIFY(std::abs(categories[0].percent - 100.0 * 35 / 55) < 1e-9);
        QVERIFY(std::abs(categories[2].cumulativePercent - 100.0) < 1e-9);
    }

    void theRegistryPatternsAndKernelFallback()
    {
        QCOMPARE(profile::traceLensOpCategory("aten::mm", ""), std::string_view("GEMM"));
        QCOMPARE(profile::traceLensOpCategory("aten::native_layer_norm", ""), std::string_view("NORM_fwd"));
        QCOMPARE(profile::traceLensOpCategory("aten::convolution_backward", ""),
                 std::string_view("CONV_bwd"));
        QCOMPARE(profile::traceLensOpCategory("triton_poi_fused_add_0", ""), std::string_view("triton"));
        QCOMPARE(profile::traceLensOpCategory("record_param_comms", ""),
                 std::string_view("record_param_comms"));
        QCOMPARE(profile::traceLensOpCategory("aten::sum", "void at::native::elementwise_kernel"),
                 std::string_view("reduce")); // the registry before the kernel
        QCOMPARE(profile::traceLensOpCategory("aten::foo", "void at::native::reduce_kernel<512>"),
                 std::string_view("reduce"));
        QCOMPARE(profile::traceLensOpCategory("aten::foo", "void at::native::multi_tensor_apply_kernel"),
                 std::string_view("multi_tensor_apply"));
        QCOMPARE(profile::traceLensOpCategory("aten::foo", "reduce_kernel"), std::string_view("other"));
    }
};

QTEST_GUILESS_MAIN(TestKernelLaunchers)
#include "tst_kernel_launchers.moc"
