// Golden outputs of `xpushark-cli analyze --json`, Perfetto's diff tests in our form: an input from the
// samples or tests/data, a command, the expected output (tests/data/golden/analyze). Every number the
// analyses and the measured suggestions produce on every bundled sample is pinned, so a change that moves
// one shows which and by how much, and the change's commit says why.
//
// Rebase after an intended change: XPS_REBASE_GOLDENS=1 ctest --preset dev -R tst_golden_analysis, then
// read `git diff tests/data/golden` before committing it.
#include "cli_test_support.h"

#include <nlohmann/json.hpp>

#include <QFileInfo>

#include <cmath>
#include <string>
#include <vector>

using namespace xps;
using nlohmann::json;

namespace {

// An argument naming a file of the shared real traces, by its path under real-traces/.
const std::string kShared = "@real-traces/";

// Differences between `expected` and `actual` as "JSON path: expected X, got Y", at most `limit` of them.
// Numbers agree within a relative 1e-9 (the last digits of a printed double may differ between
// compilers; a real change moves far more).
void collectDifferences(const json& expected, const json& actual, const std::string& path,
                        std::vector<std::string>& out, std::size_t limit)
{
    if (out.size() >= limit)
        return;
    const auto shown = [](const json& j) {
        std::string s = j.dump();
        return s.size() > 120 ? s.substr(0, 117) + "..." : s;
    };
    if (expected.is_number() && actual.is_number()) {
        const double e = expected.get<double>(), a = actual.get<double>();
        if (std::abs(e - a) > 1e-9 * std::max({1.0, std::abs(e), std::abs(a)}))
            out.push_back(path + ": expected " + shown(expected) + ", got " + shown(actual));
        return;
    }
    if (expected.type() != actual.type()) {
        out.push_back(path + ": expected " + shown(expected) + ", got " + shown(actual));
        return;
    }
    if (expected.is_object()) {
        for (const auto& [key, value] : expected.items())
            if (!actual.contains(key))
                out.push_back(path + "." + key + ": missing (expected " + shown(value) + ")");
            else
                collectDifferences(value, actual[key], path + "." + key, out, limit);
        for (const auto& [key, value] : actual.items())
            if (!expected.contains(key) && out.size() < limit)
                out.push_back(path + "." + key + ": new (" + shown(value) + ")");
        return;
    }
    if (expected.is_array()) {
        if (expected.size() != actual.size())
            out.push_back(path + ": expected " + std::to_string(expected.size()) + " entries, got " +
                          std::to_string(actual.size()));
        for (std::size_t i = 0; i < std::min(expected.size(), actual.size()); ++i)
            collectDifferences(expected[i], actual[i], path + "[" + std::to_string(i) + "]", out, limit);
        return;
    }
    if (expected != actual)
        out.push_back(path + ": expected " + shown(expected) + ", got " + shown(actual));
}

} // namespace

class TestGoldenAnalysis : public QObject
{
    Q_OBJECT

private slots:
    void analyzeJsonMatchesItsGolden_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("golden");
        const auto row = [](const std::string& name, std::initializer_list<std::string> arguments) {
            QStringList list;
            for (const std::string& a : arguments)
                list << QString::fromStdString(a);
            QTest::newRow(name.c_str())
                << list << QString::fromStdString("tests/data/golden/analyze/" + name + ".json");
        };
        // Every bundled replay sample, measured: the analyses and each suggestion's measured gain.
        for (const std::string sample :
             {"allgather_naive", "allgather_tuned", "decode_naive", "decode_tuned", "matmul_naive",
              "matmul_tuned", "smalltile_naive", "smalltile_tuned"})
            row(sample, {"analyze", "resources/samples/" + sample + ".xtrace.json", "--json"});
        row("vector_add", {"analyze", "resources/samples/vector_add.xasm", "--json"});
        // StableHLO models compiled and replayed: an MLP over two chips, and a transformer block (0.45 MB of
        // output, most of it per-pc DMA rows and its nine measured suggestions).
        row("tp_mlp", {"analyze", "resources/samples/tp_mlp.mlir", "--json"});
        row("transformer_block", {"analyze", "resources/samples/transformer_block.mlir", "--json"});
        // A replay analysed as an imported profile is.
        row("decode_naive.as_profile",
            {"analyze", "resources/samples/decode_naive.xtrace.json", "--as-profile", "--json"});
        // Imported profiles: Kineto (PyTorch profiler), a Chakra execution trace (JSON), Chakra .et ranks.
        row("kineto_step", {"analyze", "tests/data/kineto_step.json", "--json"});
        row("kineto_step.window",
            {"analyze", "tests/data/kineto_step.json", "--window", "ProfilerStep#1", "--json"});
        row("node_trace", {"analyze", "tests/data/node_trace.json", "--json"});
        row("ddp_step", {"analyze", "resources/samples/ddp_step", "--json"});
        // Real files other tools wrote (../shared/real-traces, README there: their sources and licences),
        // named here by their path under real-traces/: Kineto from NVIDIA and AMD GPUs (NCCL and RCCL
        // streams, CUPTI counters, a 2021 schema), XSpace from JAX and TensorFlow, HTA's own output.
        for (const std::string trace :
             {"AMD-AGI__TraceLens/tests/test_data_jax_te_fused_attn_categorization/934987a2fc2f.xplane.pb",
              "AMD-AGI__TraceLens/tests/traces/h100/Falconsai_nsfw_image_detection__1016002.json.gz",
              "AMD-AGI__TraceLens/tests/traces/mi300/Falconsai_nsfw_image_detection__1016002.json.gz",
              "AMD-AGI__TraceLens/tests/traces/mi300/jax_conv_minimal_08/tw003.xplane.pb",
              "AMD-AGI__TraceLens/tests/traces/mi300/jax_conv_minimal_legacy/"
              "chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb",
              "AMD-AGI__TraceLens/tests/traces/mi300/resnet_act_checkpoint.json.gz",
              "facebookresearch__HolisticTraceAnalysis/tests/data/amd_trace/"
              "mi250_minitoy_train_ROCm6_2_kineto.json.gz",
              "facebookresearch__HolisticTraceAnalysis/tests/data/critical_path/cuda_event_sync_multi_stream/"
              "event_sync_trace.json.gz",
              "facebookresearch__HolisticTraceAnalysis/tests/data/critical_path/end_to_end/simple_add/output/"
              "overlaid_critical_path_trace.json.gz",
              "facebookresearch__HolisticTraceAnalysis/tests/data/cupti_profiler/"
              "benchmark_result_924719_1679055439_trace.json.gz",
              "facebookresearch__HolisticTraceAnalysis/tests/data/df_index_resolver/"
              "df_index_resolver.json.gz",
              "facebookresearch__HolisticTraceAnalysis/tests/data/execution_trace/"
              "benchmark_simple_add_trace.json.gz",
              "facebookresearch__HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/"
              "rank0.json.gz",
              "facebookresearch__HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz",
              "facebookresearch__HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-1.json.gz",
              "facebookresearch__param/et_replay/tests/inputs/linear_kineto.json.gz",
              "openxla__xprof/demo/plugins/profile/GPU-multi-worker/34.83.195.179_6003.xplane.pb",
              "pytorch__kineto/tb_plugin/samples/resnet50_num_workers_0/"
              "worker0.1623143089861.pt.trace.json.gz"}) {
            // "<repository>.<folder>.<file without its extensions>": unique, and says where it is from.
            const std::size_t slash = trace.rfind('/'), folder = trace.rfind('/', slash - 1) + 1;
            std::string file = trace.substr(slash + 1);
            for (const std::string ext : {".pt.trace.json.gz", ".json.gz", ".xplane.pb"})
                if (file.ends_with(ext))
                    file.resize(file.size() - ext.size());
            const std::size_t repo = trace.find("__") + 2;
            row("real-traces/" + trace.substr(repo, trace.find('/') - repo) + "." +
                    trace.substr(folder, slash - folder) + "." + file,
                {"analyze", kShared + trace, "--json"});
        }
    }

    void analyzeJsonMatchesItsGolden()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, golden);
        // A file of ../shared/real-traces: read where the shared folder is, named in the output by its path
        // under real-traces/ (the folder's place differs between machines).
        const QString shared = QString::fromStdString(test::sharedDir() + "/real-traces/");
        bool fromShared = false;
        for (QString& a : arguments)
            if (a.startsWith(QString::fromStdString(kShared))) {
                a = shared + a.mid(static_cast<int>(kShared.size()));
                fromShared = true;
                if (!QFileInfo::exists(a)) {
                    const QString why =
                        a +
                        QStringLiteral(" is not here: the shared real traces are absent (XPS_SHARED_DIR)");
                    QSKIP(qPrintable(why));
                }
            }
        // Paths relative to the source tree, as a user types them: the output names its input so.
        const QString root = QString::fromStdString(test::sourceDir());
        const test::Run run = test::runProgram(QString::fromLocal8Bit(qgetenv("XPS_CLI")), arguments, root);
        QVERIFY2(run.exitCode == 0, run.err.c_str());
        json actual = json::parse(run.out, nullptr, false);
        QVERIFY2(!actual.is_discarded(), "analyze --json printed something that is not JSON");
        if (fromShared && actual.contains("source"))
            actual["source"] = actual["source"].get<std::string>().substr(shared.toStdString().size());
        const std::string name = golden.toStdString();
        const std::string goldenPath = test::sourceDir() + "/" + name;
        const std::string text = test::readFile(goldenPath);
        if (qEnvironmentVariableIntValue("XPS_REBASE_GOLDENS") == 1) {
            // Only a golden that differs is rewritten: one written by hand or by an older dump (numbers
            // as printed then, long strings wrapped) stays byte for byte as it is, so a rebase's diff shows
            // only what changed.
            const json old = json::parse(text, nullptr, false);
            std::vector<std::string> changed;
            if (!old.is_discarded())
                collectDifferences(old, actual, "$", changed, 1);
            if (old.is_discarded() || !changed.empty()) {
                // As the goldens are kept: keys sorted, 4 spaces.
                test::writeFile(goldenPath, actual.dump(4) + "\n");
                qInfo("rebased %s", name.c_str());
            }
            return;
        }
        QVERIFY2(!text.empty(), (name + " is missing (XPS_REBASE_GOLDENS=1 writes it)").c_str());
        const json expected = json::parse(text, nullptr, false);
        QVERIFY2(!expected.is_discarded(), (name + " is not JSON").c_str());
        std::vector<std::string> differences;
        collectDifferences(expected, actual, "$", differences, 12);
        std::string message = name + " differs (XPS_REBASE_GOLDENS=1 rewrites it; say why in the commit):";
        for (const std::string& d : differences)
            message += "\n  " + d;
        QVERIFY2(differences.empty(), message.c_str());
    }

    // The comparison itself: a golden that differs must fail, naming the place.
    void aChangedNumberIsReportedWithItsPath()
    {
        const json expected = json::parse(R"({"a": {"b": [1, 2.5, "x"]}, "c": true})");
        json actual = expected;
        actual["a"]["b"][1] = 2.75;
        actual["d"] = 1;
        std::vector<std::string> differences;
        collectDifferences(expected, actual, "$", differences, 12);
        QCOMPARE(differences.size(), std::size_t{2});
        QCOMPARE(differences[0], std::string("$.a.b[1]: expected 2.5, got 2.75"));
        QCOMPARE(differences[1], std::string("$.d: new (1)"));
        differences.clear();
        actual = expected;
        actual["a"]["b"][1] = 2.5 * (1 + 1e-12); // printing noise, not a change
        collectDifferences(expected, actual, "$", differences, 12);
        QVERIFY(differences.empty());
    }
};

QTEST_GUILESS_MAIN(TestGoldenAnalysis)
#include "tst_golden_analysis.moc"
