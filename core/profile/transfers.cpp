#include "profile/transfers.h"
#include "util/cancel.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

namespace xps::profile {
namespace {

constexpr std::array<std::string_view, 4> kByteKeys = {"bytes", "bytes_accessed", "comm_size", "tensor_size"};

// A byte count read from a file: positive and at most 2^56 (64 PiB, far past any transfer), else unknown (0).
// 1e300 once reached an integer conversion (undefined behaviour).
std::uint64_t plausibleBytes(double value)
{
    constexpr double kMostBytes = 72057594037927936.0; // 2^56
    return value > 0 && value <= kMostBytes ? static_cast<std::uint64_t>(value) : 0;
}

std::uint64_t bytesInArgSet(const std::string& json)
{
    if (json.empty())
        return 0;
    const nlohmann::json args = nlohmann::json::parse(json, nullptr, false);
    if (!args.is_object())
        return 0;
    for (const std::string_view key : kByteKeys) {
        const auto it = args.find(std::string(key));
        if (it != args.end() && it->is_number())
            if (const std::uint64_t bytes = plausibleBytes(it->get<double>()); bytes > 0)
                return bytes;
    }
    return 0;
}

// Per-slice arguments named like a byte count, and argument sets read once each.
class ByteReader
{
public:
    explicit ByteReader(const Profile& p) : m_p(p)
    {
        for (const std::string_view key : kByteKeys)
            if (const std::uint32_t id = p.findString(key); id != kNone)
                m_keys.push_back(id);
    }
    std::uint64_t operator()(std::uint32_t slice)
    {
        const auto& args = m_p.sliceArgs; // sorted by slice
        for (auto it = std::lower_bound(args.begin(), args.end(), slice,
                                        [](const SliceArg&a, std::uint32_t s) { return a.slice.value < s; });
             it != args.end() && it->slice.value == slice; ++it)
            if (std::find(m_keys.begin(), m_keys.end(), it->key) != m_keys.end())
                if (const std::uint64_t bytes = plausibleBytes(it->value); bytes > 0)
                    return bytes;
        const std::uint32_t set = m_p.slices[slice].args;
        if (set == 0)
            return 0;
        auto [cached, added] = m_sets.try_emplace(set, 0);
        if (added)
            cached->second = bytesInArgSet(m_p.args(set));
        return cached->second;
    }

private:
    const Profile& m_p;
    std::vector<std::uint32_t> m_keys;
    std::unordered_map<std::uint32_t, std::uint64_t> m_sets;
};

} // namespace

std::uint64_t transferBytes(const Profile& profile, SliceRow slice)
{
    return ByteReader(profile)(slice.value);
}

std::vector<Transfer> findTransfers(const Profile& profile, std::stop_token stop)
{
    CancelPoint cancel(std::move(stop));
    // Async pairs: the done of each, and where each start's transfer ends.
    std::unordered_map<std::uint32_t, Ticks> pairedEnd;
    std::vector<bool> isDone;
    const std::uint32_t asyncName = profile.findString(kAsyncPairFlow);
    const std::uint32_t asyncCategory = profile.findString(kAsyncPairFlowCategory);
    if (asyncName != kNone && asyncCategory != kNone) {
        isDone.assign(profile.slices.size(), false);
        for (const Flow& f : profile.flows)
            if (cancel(); f.from.valid() && f.to.valid() && profile.types[f.type].name == asyncName &&
                          profile.types[f.type].category == asyncCategory) {
                isDone[f.to.value] = true;
                pairedEnd[f.from.value] = std::max(profile.slice(f.to).end(), profile.slice(f.from).end());
            }
    }
    std::vector<Transfer> out;
    ByteReader bytesOf(profile);
    for (std::uint32_t i = 0; i < profile.slices.size(); ++i) {
        cancel();
        const Slice& s = profile.slices[i];
        const SliceClass c = profile.classOf(s);
        if (c != SliceClass::Memcpy && c != SliceClass::Memset && c != SliceClass::Communication)
            continue;
        if (!isDone.empty() && isDone[i])
            continue;
        const std::uint64_t bytes = bytesOf(i);
        if (c == SliceClass::Communication && bytes == 0)
            continue; // a collective kernel that does not say what it moved: not a transfer to draw
        const auto paired = pairedEnd.find(i);
        out.push_back({SliceRow(i), bytes, s.start, paired != pairedEnd.end() ? paired->second : s.end()});
    }
    return out;
}

std::vector<BandwidthSeries> transferBandwidth(const Profile& profile, const std::vector<Transfer>& transfers,
                                               Ticks from, Ticks to, int bins)
{
    std::vector<BandwidthSeries> out;
    if (to <= from || bins <= 0)
        return out;
    const double width = static_cast<double>(to - from) / bins;
    std::unordered_map<std::uint32_t, std::size_t> seriesOf;
    for (const Transfer& t : transfers) {
        const Slice& s = profile.slice(t.slice);
        if (t.bytes == 0 || t.end <= t.start || t.end <= from || t.start >= to)
            continue;
        const std::uint32_t process = profile.processOf(s.track()).value;
        auto [it, added] = seriesOf.try_emplace(process, out.size());
        if (added)
            out.push_back({TrackId(process), std::vector<double>(static_cast<std::size_t>(bins), 0.0)});
        std::vector<double>& bw = out[it->second].gbPerSecond;
        const double perNano = static_cast<double>(t.bytes) / profile.timebase.toNanosExact(t.end - t.start);
        const double a = static_cast<double>(std::max(t.start, from) - from);
        const double b = static_cast<double>(std::min(t.end, to) - from);
        int bin = std::clamp(static_cast<int>(a / width), 0, bins - 1);
        for (double x = a; x < b && bin < bins; ++bin) {
            const double binEnd = std::min(b, width * (bin + 1));
            bw[static_cast<std::size_t>(bin)] +=
                std::max(0.0, binEnd - x) * perNano / width; // bytes/ns = GB/s
            x = binEnd;
        }
    }
    std::sort(out.begin(), out.end(), [&](const BandwidthSeries& x, const BandwidthSeries& y) {
        return profile.track(x.process).sortIndex != profile.track(y.process).sortIndex
                   ? profile.track(x.process).sortIndex < profile.track(y.process).sortIndex
                   : x.process < y.process;
    });
    return out;
}

} // namespace xps::profile
