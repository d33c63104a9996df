// Hostile input: thousands of deterministic mutations of real trace files (bit flips, truncations,
// duplicated and deleted spans, spliced structure characters). Every one must load or fail with a
// located message; none may crash, hang or allocate without bound. Runs under ASan/UBSan in CI.
#include "test_support.h"

#include "asm/assembler.h"
#include "trace/trace_io.h"
#include "trace/trace_json.h"

#include <QTemporaryDir>

#include <random>

using namespace xps;

namespace {

std::string mutate(const std::string& original, std::mt19937_64& rng)
{
    std::string s = original;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !s.empty(); ++e) {
        const std::size_t at = rng() % s.size();
        switch (rng() % 6) {
        case 0: s[at] = static_cast<char>(s[at] ^ (1 << (rng() % 8))); break;          // flip a bit
        case 1: s.resize(at); break;                                                   // truncate
        case 2: s.erase(at, std::min<std::size_t>(s.size() - at, rng() % 64)); break;  // delete a span
        case 3: s.insert(at, s.substr(rng() % s.size(), rng() % 64)); break;           // duplicate a span
        case 4: s[at] = "{}[],:\"0123456789-eE.\\"[rng() % 22]; break;                 // structure characters
        case 5: s.insert(at, std::to_string(static_cast<std::int64_t>(rng()))); break; // huge numbers
        }
    }
    return s;
}

} // namespace

class TestHostileInput : public QObject
{
    Q_OBJECT
private slots:
    void mutatedJsonTracesNeverCrash()
    {
        const std::string original =
            test::readFile(test::sourceDir() + "/resources/samples/allgather_tuned.xtrace.json");
        QVERIFY(trace::readTraceJson(original, "t.json").ok());
        std::mt19937_64 rng(20261122);
        int rejected = 0;
        for (int i = 0; i < 3000; ++i) {
            const auto r = trace::readTraceJson(mutate(original, rng), "t.json");
            if (!r.ok()) {
                ++rejected;
                QVERIFY2(r.error().location().starts_with("t.json"), r.error().toString().c_str());
                QVERIFY(!r.error().message().empty());
            }
        }
        QVERIFY2(rejected > 2000, qPrintable(QString::number(rejected))); // most mutations must be caught
    }

    void corruptedContainersNeverCrash()
    {
        QTemporaryDir dir;
        const std::string clean = dir.filePath(QStringLiteral("clean.xps")).toStdString();
        const std::string path = dir.filePath(QStringLiteral("mutated.xps")).toStdString();
        auto t = trace::loadTrace(test::sourceDir() + "/resources/samples/allgather_tuned.xtrace.json");
        QVERIFY(t.ok());
        // Literal bytes too, so blobs are part of what gets corrupted.
        trace::MemoryInit literal{isa::Space::Vmem, 0, 3000, {}};
        literal.payload.bytes.assign(3000, 0x5a);
        t->chips[0].initial.memory.push_back(literal);
        QVERIFY(trace::saveTrace(*t, clean).ok());
        const std::string original = test::readFile(clean);
        // Corrupt only the bytes SQLite actually uses (the pages are mostly zero padding).
        std::vector<std::size_t> used;
        for (std::size_t i = 0; i < original.size(); ++i)
            if (original[i] != 0)
                used.push_back(i);
        std::mt19937_64 rng(99);
        int rejected = 0;
        for (int i = 0; i < 400; ++i) {
            std::string s = original;
            for (int e = 0; e < 1 + static_cast<int>(rng() % 3); ++e)
                s[used[rng() % used.size()]] ^= static_cast<char>(1 << (rng() % 8));
            test::writeFile(path, s);
            const auto r = trace::loadTrace(path);
            if (!r.ok()) {
                ++rejected;
                QVERIFY2(r.error().location().starts_with(path), r.error().toString().c_str());
            }
        }
        QVERIFY2(rejected > 100, qPrintable(QString::number(rejected)));
    }

    void mutatedAssemblyNeverCrashes()
    {
        const std::string original = test::readFile(test::sourceDir() + "/resources/samples/vector_add.xasm");
        std::mt19937_64 rng(7);
        int rejected = 0;
        for (int i = 0; i < 3000; ++i) {
            const auto r = assembly::assemble(mutate(original, rng), "k.xasm");
            if (!r.ok()) {
                ++rejected;
                QVERIFY2(r.error().location().starts_with("k.xasm"), r.error().toString().c_str());
                QVERIFY(r.error().diagnostics().size() <= assembly::kMaxDiagnostics);
            }
        }
        QVERIFY2(rejected > 1000, qPrintable(QString::number(rejected)));
    }
};

QTEST_GUILESS_MAIN(TestHostileInput)
#include "tst_hostile_input.moc"
