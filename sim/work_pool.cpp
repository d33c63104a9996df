#include "work_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

namespace xps::sim {

unsigned hardwareThreads()
{
#if defined(__linux__)
    // The CPUs this process may run on (taskset, a container's cpuset), not every CPU online.
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return static_cast<unsigned>(CPU_COUNT(&set));
#endif
    return std::max(1u, std::thread::hardware_concurrency());
}

void forEachOnWorkers(std::size_t n, unsigned workers, std::stop_token stop,
                      const std::function<void(std::size_t)>& work)
{
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr firstError;
    std::mutex errorMutex;
    const auto run = [&] {
        for (std::size_t i; !failed.load(std::memory_order_relaxed) && !stop.stop_requested() &&
                            (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
            try {
                work(i);
            } catch (...) {
                std::lock_guard lock(errorMutex);
                if (!firstError)
                    firstError = std::current_exception();
                failed = true;
            }
        }
    };
    const std::size_t threads = std::min<std::size_t>(std::max(1u, workers), n);
    {
        std::vector<std::jthread> pool;
        for (std::size_t k = 1; k < threads; ++k)
            pool.emplace_back(run);
        run();
    } // joined here
    if (firstError)
        std::rethrow_exception(firstError);
}

} // namespace xps::sim
