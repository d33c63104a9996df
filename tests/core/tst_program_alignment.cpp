// Matching two versions of a program bundle by bundle (analysis/program_alignment.h, the per-bundle rows of
// `xpushark-cli diff`): the edits a suggestion makes come out as they were made, and on random programs
// with random edits the alignment is always a longest common subsequence (checked against the quadratic
// dynamic programme), in order, covering every bundle once.
#include "analysis/program_alignment.h"

#include <QtTest>
#include <random>

using namespace xps;
using analysis::AlignedPc;

namespace {

std::vector<std::string> program(std::initializer_list<const char*> bundles)
{
    return {bundles.begin(), bundles.end()};
}

// "b1 a2" etc.: each step as the baseline and other pcs (- for none).
std::string steps(const std::vector<AlignedPc>& alignment)
{
    std::string out;
    for (const AlignedPc& s : alignment)
        out += (out.empty() ? "" : " ") + (s.baseline ? std::to_string(*s.baseline) : std::string("-")) +
               ":" + (s.other ? std::to_string(*s.other) : std::string("-"));
    return out;
}

std::size_t lcsLength(const std::vector<std::string>& a, const std::vector<std::string>& b)
{
    std::vector<std::vector<std::size_t>> t(a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j)
            t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
    return t[a.size()][b.size()];
}

} // namespace

class TestProgramAlignment : public QObject
{
    Q_OBJECT

private slots:
    void aSuggestionsEditsComeOutAsMade()
    {
        const auto base = program({"smov s1, 0", "dma.start a", "sync.wait 0, 1", "vld v1, [s1]", "halt"});
        // Equal programs: every bundle matched to itself.
        QCOMPARE(steps(*analysis::alignPrograms(base, base)), std::string("0:0 1:1 2:2 3:3 4:4"));
        // A bundle inserted (a relaxed wait), one removed, one moved earlier (a hoisted DMA).
        QCOMPARE(steps(*analysis::alignPrograms(base, program({"smov s1, 0", "dma.start a", "sync.wait 0, 1",
                                                               "sync.wait 0, 2", "vld v1, [s1]", "halt"}))),
                 std::string("0:0 1:1 2:2 -:3 3:4 4:5"));
        QCOMPARE(steps(*analysis::alignPrograms(
                     base, program({"smov s1, 0", "dma.start a", "vld v1, [s1]", "halt"}))),
                 std::string("0:0 1:1 2:- 3:2 4:3"));
        QCOMPARE(steps(*analysis::alignPrograms(
                     base, program({"dma.start a", "smov s1, 0", "sync.wait 0, 1", "vld v1, [s1]", "halt"}))),
                 std::string("0:- 1:0 -:1 2:2 3:3 4:4"));
        // Empty programs, and one empty side.
        QCOMPARE(steps(*analysis::alignPrograms({}, {})), std::string());
        QCOMPARE(steps(*analysis::alignPrograms({}, program({"halt"}))), std::string("-:0"));
        QCOMPARE(steps(*analysis::alignPrograms(program({"halt"}), {})), std::string("0:-"));
    }

    void tooManyEditsIsNotAnAlignment()
    {
        std::vector<std::string> a, b;
        for (int i = 0; i < 100; ++i) {
            a.push_back("a" + std::to_string(i));
            b.push_back("b" + std::to_string(i));
        }
        QVERIFY(!analysis::alignPrograms(a, b, 199).has_value()); // 200 edits needed
        const auto all = analysis::alignPrograms(a, b, 200);
        QVERIFY(all.has_value());
        QCOMPARE(all->size(), std::size_t(200));
    }

    void randomEditsGiveALongestCommonSubsequence()
    {
        std::mt19937 random(20261127); // fixed: the same cases every run
        for (int round = 0; round < 300; ++round) {
            const int n = static_cast<int>(random() % 60);
            std::vector<std::string> a;
            for (int i = 0; i < n; ++i)
                a.push_back("op" + std::to_string(random() % 6)); // few distinct texts: many equal bundles
            std::vector<std::string> b = a;
            const int edits = static_cast<int>(random() % 12);
            for (int e = 0; e < edits; ++e) {
                const std::size_t at = b.empty() ? 0 : random() % (b.size() + 1);
                if (random() % 2 && at < b.size())
                    b.erase(b.begin() + static_cast<std::ptrdiff_t>(at));
                else
                    b.insert(b.begin() + static_cast<std::ptrdiff_t>(at),
                             "op" + std::to_string(random() % 8));
            }
            const auto alignment = analysis::alignPrograms(a, b);
            QVERIFY(alignment.has_value());
            std::size_t nextA = 0, nextB = 0, matched = 0;
            for (const AlignedPc& s : *alignment) {
                QVERIFY(s.baseline || s.other);
                if (s.baseline)
                    QCOMPARE(*s.baseline, nextA++);
                if (s.other)
                    QCOMPARE(*s.other, nextB++);
                if (s.baseline && s.other) {
                    QCOMPARE(a[*s.baseline], b[*s.other]);
                    ++matched;
                }
            }
            QCOMPARE(nextA, a.size());
            QCOMPARE(nextB, b.size());
            QCOMPARE(matched, lcsLength(a, b));
        }
    }
};

QTEST_GUILESS_MAIN(TestProgramAlignment)
#include "tst_program_alignment.moc"
