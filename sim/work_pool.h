#pragma once
// Independent replays side by side: the calibration's predictions and the what-ifs of measured
// suggestions. Each item is one replay of its own trace and store, so the items share nothing the
// workers write; a replay itself stays on one thread (the GRM's state is not shared between threads).

#include <cstddef>
#include <functional>
#include <stop_token>

namespace xps::sim {

// Calls work(i) once for every i in [0, n), on `workers` threads at most (the caller's thread is one of
// them), each worker taking the next index as it finishes one: replays of very different lengths still
// keep every worker busy. Items not started once `stop` is requested are skipped (work is not called for
// them). If work throws, no further item starts and the first exception is rethrown here once every
// worker has returned.
void forEachOnWorkers(std::size_t n, unsigned workers, std::stop_token stop,
                      const std::function<void(std::size_t)>& work);

// The hardware threads this process may use (on Linux its CPU affinity: `taskset` limits it), at least 1.
unsigned hardwareThreads();

} // namespace xps::sim
