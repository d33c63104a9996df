// The StableHLO project's own test modules (../shared/stablehlo: testdata, JAX's modules with XLA's
// expected values, and tests/interpret, the spec's examples) for the ops the lowering has, each compiled,
// replayed on the GRM and held to the checks it carries, and on the reference interpreter too where the
// interpreter's exact definition is expected to agree with XLA's values. scripts/check-stablehlo.py runs
// all of them; this suite holds the ones each change must keep.
#include "stablehlo_lowering_support.h"

#include <algorithm>
#include <filesystem>

using namespace xps;
using namespace xps::test;

namespace {

// testdata's modules whose names start with `prefix` and whose element types the GRM holds (and that do not
// name `except`), every `stride`-th in name order.
std::vector<std::string> testdata(const std::string& prefix, std::size_t stride = 1,
                                  const std::string& except = "")
{
    const std::string root = sharedDir() + "/stablehlo/testdata";
    std::vector<std::string> files;
    if (std::filesystem::is_directory(root))
        for (const auto& entry : std::filesystem::directory_iterator(root)) {
            const auto name = entry.path().filename().string();
            if (name.starts_with(prefix) && name.find("float64") == std::string::npos &&
                name.find("complex") == std::string::npos &&
                (except.empty() || name.find(except) == std::string::npos))
                files.push_back(entry.path().string());
        }
    std::sort(files.begin(), files.end());
    std::vector<std::string> every;
    for (std::size_t i = 0; i < files.size(); i += stride)
        every.push_back(files[i]);
    return every;
}

void addRows(const std::vector<std::string>& files, bool reference)
{
    for (const auto& f : files)
        QTest::newRow(std::filesystem::path(f).filename().string().c_str())
            << QString::fromStdString(f) << reference;
}

} // namespace

class TestStablehloProject : public QObject
{
    Q_OBJECT

private slots:
    void modulesHoldTheirChecks_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("reference");
        const std::string root = sharedDir() + "/stablehlo";
        addRows({root + "/tests/interpret/gather.mlir", root + "/tests/interpret/scatter.mlir"}, true);
        for (const char* precision : {"float32", "float16", "bfloat16"})
            addRows({root + "/testdata/erf_" + precision + "_20_20_chlo.mlir"}, true);
        addRows(testdata("gather_"), true);
        addRows(testdata("scatter_", 16), true);
        addRows(testdata("dynamic_"), true);
        addRows(testdata("shift_", 1, "int64"), true); // a 64-bit value's high half is not held
        addRows(testdata("reduce_precision_"), true);
        // chlo: XLA's formulas round where the interpreter's exact functions do not (docs/stablehlo.md), so
        // XLA's f32 cosh and sinh are held on the replay only.
        for (const char* f : {"atan", "asin", "atanh", "asinh", "acosh", "sinh", "cosh", "tan"})
            for (const char* t : {"float32", "float16", "bfloat16"})
                addRows({root + "/testdata/" + f + "_" + t + "_20_20_chlo.mlir"}, false);
    }
    void modulesHoldTheirChecks()
    {
        QFETCH(QString, file);
        QFETCH(bool, reference);
        const std::string path = file.toStdString();
        if (!std::filesystem::exists(path))
            QSKIP(qPrintable(QString::fromStdString("the shared folder has no " + path)));
        const std::string failure = projectModuleFailure(path, reference);
        QVERIFY2(failure.empty(), failure.c_str());
    }
};

QTEST_GUILESS_MAIN(TestStablehloProject)
#include "tst_stablehlo_project.moc"
