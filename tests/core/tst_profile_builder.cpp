// The one writer of a Profile: tracks by key, slices under the event limit, flows bound to
// wherever finish() moved their slices, and repairs counted by kind with their first location.
#include "profile/profile_builder.h"

#include <QTest>

#include <stdexcept>

using namespace xps;
using profile::FlowPhase;
using profile::ProfileBuilder;
using profile::RepairKind;
using profile::SliceId;
using profile::TrackId;
using profile::TrackKind;

namespace {

struct LimitReached
{
    ProfileBuilder::Limit limit;
};

ProfileBuilder builderOf(profile::Profile& p, std::uint64_t maxEvents = 0)
{
    return ProfileBuilder(p, maxEvents, [](ProfileBuilder::Limit limit) { throw LimitReached{limit}; });
}

profile::Track threadTrack(TrackId process, const char* name)
{
    profile::Track t;
    t.kind = TrackKind::Thread;
    t.parent = process;
    t.name = name;
    return t;
}

// The flows of `p` as (name of from, name of to), in order.
std::vector<std::pair<std::string, std::string>> flowNames(const profile::Profile& p)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const profile::Flow& f : p.flows)
        out.emplace_back(p.nameOf(p.slice(f.from)), p.nameOf(p.slice(f.to)));
    return out;
}

using Names = std::vector<std::pair<std::string, std::string>>;

} // namespace

class TestProfileBuilder : public QObject
{
    Q_OBJECT
private slots:
    void aKeyNamesOneTrackMadeOnceAfterItsProcess()
    {
        profile::Profile p;
        auto b = builderOf(p);
        int made = 0;
        const auto process = [&] {
            return b.trackFor(TrackKind::Process, "7", [&] {
                profile::Track t;
                t.kind = TrackKind::Process;
                t.name = "Process 7";
                return t;
            });
        };
        const auto worker = [&] {
            return b.trackFor(TrackKind::Thread, "7/1", [&] {
                ++made;
                return threadTrack(process(), "worker");
            });
        };
        const TrackId first = worker();
        QCOMPARE(worker(), first);
        QCOMPARE(made, 1);
        // The process was made inside the thread's make, so it came first.
        QCOMPARE(process(), TrackId(0));
        QCOMPARE(first, TrackId(1));
        QCOMPARE(b.track(first).parent, TrackId(0));
        // The same key of another kind is another track.
        const TrackId counter = b.trackFor(TrackKind::Counter, "7/1", [&] {
            profile::Track t = threadTrack(process(), "bytes");
            t.kind = TrackKind::Counter;
            return t;
        });
        QVERIFY(counter != first);
        QCOMPARE(b.keyedTracks(TrackKind::Thread), std::size_t(1));
        QCOMPARE(b.keyedTracks(TrackKind::Counter), std::size_t(1));
    }

    void theEventLimitStopsTheImportThroughItsHandler()
    {
        profile::Profile p;
        auto b = builderOf(p, 3);
        const TrackId t = b.addTrack(threadTrack(TrackId(), "t"));
        b.addSlice(t, 0, 10, 0, 0, 0);
        b.addCounter(t, 5, 1.0);
        b.addSlice(t, 20, 10, 0, 0, 0);
        try {
            b.addCounter(t, 40, 2.0);
            QFAIL("the fourth event passed a limit of 3");
        } catch (const LimitReached& e) {
            QCOMPARE(e.limit, ProfileBuilder::Limit::Events);
        }
        QCOMPARE(b.sliceCount() + p.counters.size(), std::size_t(3));
    }

    void aDurationPastTheEndOfTimeIsHeldThere()
    {
        profile::Profile p;
        auto b = builderOf(p);
        const TrackId t = b.addTrack(threadTrack(TrackId(), "t"));
        const SliceId s = b.addSlice(t, INT64_MAX - 10, 1000, 0, 0, 0);
        QCOMPARE(b.slice(s).end(), INT64_MAX);
        QCOMPARE(b.slice(b.addSlice(t, 0, -5, 0, 0, 0)).duration, profile::Nanos(0));
    }

    void flowsFollowTheirSlicesWhereverFinishMovesThem()
    {
        profile::Profile p;
        auto b = builderOf(p);
        const TrackId a = b.addTrack(threadTrack(TrackId(), "a")),
                      c = b.addTrack(threadTrack(TrackId(), "c"));
        const auto type = [&](const char* name) { return p.typeOf(name, "", profile::SliceClass::Other); };
        // Arrival order: late slices first, two tracks interleaved.
        const SliceId late = b.addSlice(a, 300, 10, type("late"), 0, 0);
        const SliceId other = b.addSlice(c, 100, 10, type("other"), 0, 0);
        const SliceId early = b.addSlice(a, 100, 10, type("early"), 0, 0);
        b.addSliceArg(late, p.intern("step"), 42);
        b.addFlow(late, other, type("dep"));
        b.addFlow(early, late, type("dep"));
        b.finish();
        // Sorted by track, then time; the flows and the argument follow their slices there.
        QCOMPARE(p.slices.size(), std::size_t(3));
        QCOMPARE(p.nameOf(p.slices[0]), std::string("early"));
        QCOMPARE(p.nameOf(p.slices[1]), std::string("late"));
        QCOMPARE(p.nameOf(p.slices[2]), std::string("other"));
        QCOMPARE(flowNames(p), (Names{{"late", "other"}, {"early", "late"}}));
        QCOMPARE(p.argsOf(profile::SliceRow(1)), std::string("{\"step\":42}"));
    }

    void flowStepsBindToTheEnclosingOrTheNextSlice()
    {
        profile::Profile p;
        auto b = builderOf(p);
        const TrackId host = b.addTrack(threadTrack(TrackId(), "host")),
                      gpu = b.addTrack(threadTrack(TrackId(), "gpu"));
        const auto type = [&](const char* name) { return p.typeOf(name, "", profile::SliceClass::Other); };
        b.addSlice(host, 0, 100, type("launch"), 0, 0);
        b.addSlice(gpu, 150, 50, type("kernel"), 0, 0);
        b.addSlice(gpu, 300, 50, type("copy"), 0, 0);
        const std::uint32_t flow = type("ac2g");
        // s inside "launch"; f at 120 binds to the next slice to start on gpu ("kernel"); a t of an id that
        // never started is dropped and counted.
        b.addFlowStep(flow, 9, FlowPhase::Start, true, host, 50);
        b.addFlowStep(flow, 9, FlowPhase::Finish, false, gpu, 120);
        b.addFlowStep(flow, 10, FlowPhase::Step, true, gpu, 310);
        // Steps at one time keep the file's order: t (in "kernel") before f (the next slice: "copy").
        const std::uint32_t chained = type("chained");
        b.addFlowStep(chained, 11, FlowPhase::Start, true, host, 60);
        b.addFlowStep(chained, 11, FlowPhase::Step, true, gpu, 160);
        b.addFlowStep(chained, 11, FlowPhase::Finish, false, gpu, 160);
        b.finish();
        QCOMPARE(flowNames(p), (Names{{"launch", "kernel"}, {"launch", "kernel"}, {"kernel", "copy"}}));
        QCOMPARE(p.repairs.size(), std::size_t(1));
        QCOMPARE(p.repairs[0].kind, RepairKind::Unbound);
        QCOMPARE(p.repairs[0].count, std::uint64_t(1));
    }

    void flowEndsJoinEachInToTheLatestOutBeforeIt()
    {
        profile::Profile p;
        auto b = builderOf(p);
        const TrackId t = b.addTrack(threadTrack(TrackId(), "t"));
        const auto type = [&](const char* name) { return p.typeOf(name, "", profile::SliceClass::Other); };
        const SliceId in2 = b.addSlice(t, 400, 10, type("in2"), 0, 0);
        const SliceId out1 = b.addSlice(t, 100, 10, type("out1"), 0, 0);
        const SliceId in1 = b.addSlice(t, 200, 10, type("in1"), 0, 0);
        const SliceId out2 = b.addSlice(t, 300, 10, type("out2"), 0, 0);
        b.addFlowEnd(5, in2, false);
        b.addFlowEnd(5, out1, true);
        b.addFlowEnd(5, in1, false);
        b.addFlowEnd(5, out2, true);
        b.finish();
        QCOMPARE(flowNames(p), (Names{{"out1", "in1"}, {"out2", "in2"}}));
    }

    void fallbackFlowsOnlyWhenNoFlowOfTheirCategoryBound()
    {
        for (const bool fileHasAc2g : {false, true}) {
            profile::Profile p;
            auto b = builderOf(p);
            const TrackId host = b.addTrack(threadTrack(TrackId(), "host")),
                          gpu = b.addTrack(threadTrack(TrackId(), "gpu"));
            const SliceId kernel =
                b.addSlice(gpu, 20, 10, p.typeOf("kernel", "", profile::SliceClass::Kernel), 0, 1);
            const SliceId launch =
                b.addSlice(host, 0, 10, p.typeOf("launch", "", profile::SliceClass::Runtime), 0, 1);
            if (fileHasAc2g)
                b.addFlow(launch, kernel, p.typeOf("from file", "ac2g", profile::SliceClass::Other));
            int asked = 0;
            const std::uint32_t byCorrelation =
                p.typeOf("by correlation", "ac2g", profile::SliceClass::Other);
            b.setFallbackLinker(p.intern("ac2g"),
                                [&](const profile::Profile& finished, std::vector<profile::Flow>& out) {
                                    ++asked;
                                    // Called on the finished profile: host's slice sorts first now.
                                    QCOMPARE(finished.nameOf(finished.slices[0]), std::string("launch"));
                                    out.push_back(
                                        {profile::SliceRow(0), profile::SliceRow(1), byCorrelation});
                                });
            b.finish();
            QCOMPARE(asked, fileHasAc2g ? 0 : 1);
            QCOMPARE(flowNames(p), (Names{{"launch", "kernel"}}));
            QCOMPARE(p.string(p.types[p.flows[0].type].name),
                     std::string(fileHasAc2g ? "from file" : "by correlation"));
        }
    }

    void repairsAreCountedByKindWithTheFirstLocation()
    {
        profile::Profile p;
        auto b = builderOf(p);
        b.repair(RepairKind::Skipped, "events without \"ts\" were skipped", "$[3]");
        b.repair(RepairKind::Assumed, "complete events without \"dur\" were read as instants", "$[4].dur");
        b.repair(RepairKind::Skipped, "events without \"ts\" were skipped", "$[9]");
        b.addRepair(RepairKind::Truncated, 0, "the file ends early");
        QCOMPARE(p.repairs.size(), std::size_t(3));
        QCOMPARE(p.repairs[0].count, std::uint64_t(2));
        QCOMPARE(p.repairs[0].firstAt, std::string("$[3]"));
        QCOMPARE(
            p.warningLines(),
            (std::vector<std::string>{"2 events without \"ts\" were skipped; the first at $[3]",
                                      "1 complete events without \"dur\" were read as instants; the first at "
                                      "$[4].dur",
                                      "the file ends early"}));
        QCOMPARE(profile::repairKindName(p.repairs[1].kind), std::string_view("assumed"));
        b.addRepair(RepairKind::Skipped, 1234567, "nodes were not placed");
        QCOMPARE(p.repairs.back().text(), std::string("1,234,567 nodes were not placed"));
    }
};

QTEST_APPLESS_MAIN(TestProfileBuilder)
#include "tst_profile_builder.moc"
