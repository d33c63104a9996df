// Cancel reaches every analysis and the proposal rules: with the view's stop token requested, each entry
// point the explorer calls throws Cancelled instead of running to the end, a second analysis thread hands
// its Cancelled back to the caller (a throw on a bare std::thread would end the process), and a view whose
// token was never requested gives the same results as before. bench_cancel measures how soon (under 50 ms
// at 10 M bundles).
#include "sim/sim_support.h"

#include "analysis/analyze.h"
#include "analysis/dependencies.h"
#include "analysis/replay_profile.h"
#include "profile/profile_analysis.h"
#include "suggest/propose.h"
#include "util/cancel.h"
#include "workloads/workloads.h"

#include <QTest>

using namespace xps;

class TestAnalysisCancel : public QObject
{
    Q_OBJECT

    std::unique_ptr<test::Replayed> m_replayed;

    // A stop already requested: every loop's first poll (after a few thousand items) throws.
    analysis::ReplayView stopped(std::stop_source& source) const
    {
        source.request_stop();
        return {m_replayed->trace, m_replayed->store, m_replayed->result.totalCycles,
                m_replayed->result.chips, source.get_token()};
    }

private slots:
    void initTestCase()
    {
        // The benchmarks' stress workload at 200,000 bundles: tens of thousands of DMAs and waits, enough
        // for every pass to reach its polls.
        auto t = workloads::generate("stress", "", {{"chips", 4}, {"bundles", 200'000}});
        QVERIFY(t.ok());
        m_replayed = test::replayTrace(std::move(t).value());
        QCOMPARE(m_replayed->result.status, sim::ReplayResult::Status::Completed);
    }

    void everyAnalysisThrowsCancelledOnceStopIsRequested()
    {
        std::stop_source source;
        const analysis::ReplayView view = stopped(source);
        QVERIFY_THROWS_EXCEPTION(Cancelled, analysis::summarize(view));
        QVERIFY_THROWS_EXCEPTION(Cancelled, analysis::collectDmas(view));
        QVERIFY_THROWS_EXCEPTION(Cancelled, analysis::analyzeCollectives(view));
        // The later passes, given complete inputs from an uncancelled view.
        const analysis::ReplayView running{m_replayed->trace, m_replayed->store,
                                           m_replayed->result.totalCycles, m_replayed->result.chips};
        analysis::DmaAnalysis dmas = analysis::analyzeDmas(running);
        QVERIFY_THROWS_EXCEPTION(Cancelled, analysis::finishDmaAnalysis(view, dmas));
        QVERIFY_THROWS_EXCEPTION(Cancelled, analysis::analyzeVmem(view, dmas));
        QVERIFY_THROWS_EXCEPTION(Cancelled, analysis::DependencyGraph(view, dmas));
        const analysis::Analyses analyses = analysis::analyzeReplay(running);
        QVERIFY_THROWS_EXCEPTION(Cancelled, suggest::proposeSuggestions(view, analyses));
    }

    void theSecondAnalysisThreadHandsItsCancelBack()
    {
        for (const bool secondThread : {true, false}) {
            std::stop_source source;
            const analysis::ReplayView view = stopped(source);
            analysis::Analyses analyses;
            QVERIFY_THROWS_EXCEPTION(Cancelled, analysis::analyzeReplayInPlace(view, analyses, secondThread));
        }
    }

    void aTokenNeverRequestedChangesNothing()
    {
        std::stop_source source; // never requested
        const analysis::ReplayView plain{m_replayed->trace, m_replayed->store, m_replayed->result.totalCycles,
                                         m_replayed->result.chips};
        const analysis::ReplayView withToken{m_replayed->trace, m_replayed->store,
                                             m_replayed->result.totalCycles, m_replayed->result.chips,
                                             source.get_token()};
        const analysis::Analyses a = analysis::analyzeReplay(plain);
        const analysis::Analyses b = analysis::analyzeReplay(withToken);
        QCOMPARE(b.summary.totalCycles, a.summary.totalCycles);
        QCOMPARE(b.dma.exposedCycles, a.dma.exposedCycles);
        QCOMPARE(b.dma.dmas.size(), a.dma.dmas.size());
        QCOMPARE(b.criticalPath.segments.size(), a.criticalPath.segments.size());
        QCOMPARE(b.criticalPath.total(), a.criticalPath.total());
        QCOMPARE(b.vmem.peakLiveBytes, a.vmem.peakLiveBytes);
        QVERIFY(a.dma.dmas.size() > 10'000);
        const auto sa = suggest::proposeSuggestions(plain, a);
        const auto sb = suggest::proposeSuggestions(withToken, b);
        QCOMPARE(sb.size(), sa.size());
        QVERIFY(!sa.empty());
        for (std::size_t i = 0; i < sa.size(); ++i)
            QCOMPARE(sb[i].title, sa[i].title);
    }

    // The replay seen as a profile (the explorer's "Analyse as a profile", and every imported profile's
    // analyses): the conversion and each analysis pass throw Cancelled once stop is requested, and a token
    // never requested changes nothing. They polled nothing before: Cancel left a 10 M-bundle conversion and
    // its analyses running for seconds on a worker nobody waited for.
    void theProfileAnalysesThrowCancelledOnceStopIsRequested()
    {
        const analysis::ReplayView running{m_replayed->trace, m_replayed->store,
                                           m_replayed->result.totalCycles, m_replayed->result.chips};
        std::stop_source source;
        source.request_stop();
        const std::stop_token stop = source.get_token();
        QVERIFY_THROWS_EXCEPTION(Cancelled, analysis::replayAsProfileFindingItsPath(running, "stress", stop));
        const profile::Profile converted = analysis::replayAsProfileFindingItsPath(running, "stress");
        QVERIFY(converted.slices.size() > 100'000);
        QVERIFY_THROWS_EXCEPTION(Cancelled, profile::analyzeProfile(converted, stop));
        // The replay's own path is carried, not searched for; HTA's model, which searches, polls.
        QVERIFY_THROWS_EXCEPTION(Cancelled, profile::htaCriticalPath(converted, {}, stop));
        QVERIFY_THROWS_EXCEPTION(Cancelled, profile::findTransfers(converted, stop));
        QVERIFY_THROWS_EXCEPTION(Cancelled, profile::deviceUtilization(converted, stop));
        profile::Profile copy = converted;
        QVERIFY_THROWS_EXCEPTION(Cancelled, profile::addUtilizationCounters(copy, stop));

        std::stop_source never;
        const profile::Profile again =
            analysis::replayAsProfileFindingItsPath(running, "stress", never.get_token());
        QCOMPARE(again.slices.size(), converted.slices.size());
        QCOMPARE(again.flows.size(), converted.flows.size());
        const profile::ProfileAnalysis a = profile::analyzeProfile(converted);
        const profile::ProfileAnalysis b = profile::analyzeProfile(converted, never.get_token());
        QCOMPARE(b.criticalPath.length, a.criticalPath.length);
        QCOMPARE(b.criticalPath.segments.size(), a.criticalPath.segments.size());
        QVERIFY(a.criticalPath.length > 0);
        QCOMPARE(b.ops.size(), a.ops.size());
        QCOMPARE(b.devices.size(), a.devices.size());
        for (std::size_t d = 0; d < a.devices.size(); ++d)
            QCOMPARE(b.devices[d].busy, a.devices[d].busy);
        QCOMPARE(b.transfers.size(), a.transfers.size());
    }
};

QTEST_GUILESS_MAIN(TestAnalysisCancel)
#include "tst_analysis_cancel.moc"
