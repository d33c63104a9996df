// A profile's timebase (profile/timebase.h): what a tick is, and that every number leaving
// the analyses goes through it. The check on real files: a profile imported again, its times counted in
// thirds of a nanosecond (each time x 3, one tick = 1/3 ns), must say what the profile says, in the text
// report, the analysis JSON and its Chrome export. A time that skipped the timebase on its way out shows
// three times too large.
#include "test_support.h"

#include "core/round_trip.h"
#include "import/import.h"
#include "profile/profile_analysis.h"
#include "profile/profile_report.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <algorithm>
#include <cmath>
#include <string>

using namespace xps;
using profile::Timebase;

namespace {

// The same events in ticks of 1/k ns.
void countInFractions(profile::Profile& p, std::int64_t k)
{
    for (profile::Slice& s : p.slices) {
        s.start *= k;
        s.duration *= k;
    }
    for (profile::CounterSample& c : p.counters)
        c.time *= k;
    p.timebase = {1, k};
    const std::vector<profile::ImportRepair> repairs = p.repairs; // the import's: finish() says them again
    p.finish(); // the profile's start and end, again: in order already, nothing moves
    p.repairs = repairs;
}

// Where two analysis JSONs differ, as a JSON path; integers may differ by one (a mean or a share of a
// duration in thirds of a nanosecond rounds once more than the same in nanoseconds), ratios in their last
// bits (the same sums, in another order of magnitude).
std::string jsonDifference(const nlohmann::json& a, const nlohmann::json& b, const std::string& at)
{
    if (a.is_number_integer() && b.is_number_integer()) {
        const auto x = a.get<std::int64_t>(), y = b.get<std::int64_t>();
        return x - y <= 1 && y - x <= 1 ? "" : at + ": " + a.dump() + " vs " + b.dump();
    }
    if (a.is_number_float() && b.is_number_float()) {
        const double x = a.get<double>(), y = b.get<double>();
        return std::fabs(x - y) <= 1e-12 * std::max(std::fabs(x), std::fabs(y))
                   ? ""
                   : at + ": " + a.dump() + " vs " + b.dump();
    }
    if (a.type() != b.type() || a.size() != b.size())
        return at + ": " + a.dump().substr(0, 200) + " vs " + b.dump().substr(0, 200);
    if (a.is_object()) {
        for (auto it = a.begin(); it != a.end(); ++it) {
            if (!b.contains(it.key()))
                return at + "/" + it.key() + ": missing";
            if (std::string d = jsonDifference(it.value(), b.at(it.key()), at + "/" + it.key()); !d.empty())
                return d;
        }
        return "";
    }
    if (a.is_array()) {
        for (std::size_t i = 0; i < a.size(); ++i)
            if (std::string d = jsonDifference(a[i], b[i], at + "/" + std::to_string(i)); !d.empty())
                return d;
        return "";
    }
    return a == b ? "" : at + ": " + a.dump() + " vs " + b.dump();
}

} // namespace

class TestProfileTimebase : public QObject
{
    Q_OBJECT

private slots:
    void ticksBecomeNanoseconds()
    {
        QCOMPARE(Timebase::nanoseconds(), Timebase{});
        QVERIFY(Timebase::nanoseconds().isNanoseconds());
        // A cycle at 1.05 GHz is 20/21 ns, in lowest terms; at 1 GHz it is a nanosecond.
        QCOMPARE(Timebase::cyclesAt(1050.0), (Timebase{20, 21}));
        QVERIFY(Timebase::cyclesAt(1000.0).isNanoseconds());
        QCOMPARE(Timebase::cyclesAt(940.0), (Timebase{50, 47}));
        QCOMPARE(Timebase::cyclesAt(0.0), Timebase{}); // no clock: the machine check reports it
        const Timebase grm = Timebase::cyclesAt(1050.0);
        QCOMPARE(grm.toNanos(21), 20);
        QCOMPARE(grm.toNanos(1), 1);   // 0.952 ns
        QCOMPARE(grm.toNanos(10), 10); // 9.52 ns
        QCOMPARE(grm.toNanos(-10), -10);
        QCOMPARE(grm.toNanos(0), 0);
        QCOMPARE(grm.fromNanos(20), 21);
        QCOMPARE(grm.fromNanos(1'500'000), 1'575'000); // HTA's 1.5 ms kernel-to-kernel limit in cycles
        // Past 2^63 / 20 cycles the product needs more than 64 bits; the result still fits.
        const std::int64_t big = (std::int64_t{1} << 62) - 1;
        QCOMPARE(grm.toNanos(big),
                 static_cast<std::int64_t>((static_cast<long double>(big) * 20) / 21 + 0.5L));
        QCOMPARE((Timebase{1'000'000, 1}).toNanos(big), INT64_MAX); // saturates
        QCOMPARE(grm.toNanosExact(21), 20.0);
        QCOMPARE(grm.ms(1'050'000), std::string("1.000 ms"));
        QCOMPARE(grm.us(1'050), std::string("1.0 us"));
        QCOMPARE(Timebase{}.ms(1'250'000), std::string("1.250 ms"));
        QCOMPARE(grm.describe(), std::string("1 tick = 20/21 ns"));
        QCOMPARE((Timebase{2, 1}).describe(), std::string("1 tick = 2 ns"));
        QCOMPARE(Timebase{}.describe(), std::string());
    }

    // A time beyond the limit is held there, and the repair says it in the profile's own ticks.
    void theTimeLimitIsSaidInTicks()
    {
        for (const Timebase tb : {Timebase{}, Timebase::cyclesAt(1050.0)}) {
            profile::Profile p;
            p.timebase = tb;
            p.tracks.push_back({});
            profile::Slice far;
            far.start = profile::kTimeLimit + 5;
            far.duration = 10;
            p.slices.push_back(far);
            p.finish();
            QCOMPARE(p.slices.front().start, profile::kTimeLimit);
            QCOMPARE(p.repairs.size(), std::size_t{1});
            QCOMPARE(
                p.repairs.front().what,
                tb.isNanoseconds()
                    ? std::string("events lay beyond 2^62 ns (146 years) from the clock's zero; held at "
                                  "that limit")
                    : std::string("events lay beyond 2^62 ticks (1 tick = 20/21 ns) from the clock's zero; "
                                  "held at that limit"));
        }
    }

    void sameProfileInOtherTicks_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("Kineto, CUDA + NCCL (HTA)") << "hta/nccl/nccl_data.json.gz";
        QTest::newRow("Kineto, memsets on H100 (TraceLens)")
            << "tracelens/h100/Falconsai_nsfw_image_detection__1016002.json.gz";
        QTest::newRow("XSpace, JAX on MI300X (TraceLens)")
            << "tracelens/jax_conv_minimal_legacy/conv.xplane.pb";
        QTest::newRow("Chakra execution trace") << "chakra/chakra.0.et";
    }

    void sameProfileInOtherTicks()
    {
        QFETCH(QString, file);
        const std::string path = test::sourceDir() + "/tests/data/" + file.toStdString();
        auto nanos = importing::importProfile(path);
        auto thirds = importing::importProfile(path);
        QVERIFY2(nanos.ok(), nanos.ok() ? "" : nanos.error().toString().c_str());
        QVERIFY2(thirds.ok(), thirds.ok() ? "" : thirds.error().toString().c_str());
        countInFractions(*thirds, 3);
        QCOMPARE(thirds->span(), 3 * nanos->span());

        const profile::ProfileAnalysis a = profile::analyzeProfile(*nanos);
        const profile::ProfileAnalysis b = profile::analyzeProfile(*thirds);
        QCOMPARE(b.timebase, (Timebase{1, 3}));
        QVERIFY(b.criticalPath.length > 0);
        QCOMPARE(b.criticalPath.length, 3 * a.criticalPath.length); // the same path, in other ticks

        nlohmann::json ja = profile::profileAnalysisJson(*nanos, a);
        nlohmann::json jb = profile::profileAnalysisJson(*thirds, b);
        QCOMPARE(jb.value("ns_per_tick", nlohmann::json()), nlohmann::json({1, 3}));
        jb.erase("ns_per_tick");
        const std::string jsonDiff = jsonDifference(ja, jb, "");
        QVERIFY2(jsonDiff.empty(), jsonDiff.c_str());

        QCOMPARE(QString::fromStdString(profile::formatProfileAnalysis(*thirds, b)),
                 QString::fromStdString(profile::formatProfileAnalysis(*nanos, a)));
        const std::string described = profile::describeProfile(*thirds);
        QVERIFY2(described.find("ticks; 1 tick = 1/3 ns") != std::string::npos, described.c_str());

        // Exported, the ticks are written as the picoseconds they are and the timebase with them: imported
        // again, the profile in its thirds of a nanosecond, event for event.
        profile::Profile again;
        const std::string failed = test::exportAndImport(*thirds, again);
        QVERIFY2(failed.empty(), failed.c_str());
        QCOMPARE(again.timebase, (Timebase{1, 3}));
        const std::string difference = test::profileDifference(again, *thirds);
        QVERIFY2(difference.empty(), difference.c_str());
    }
};

QTEST_GUILESS_MAIN(TestProfileTimebase)
#include "tst_profile_timebase.moc"
