#pragma once
// SCALE-Sim TPU validation's per-kernel tables (internal to core/calibrate): SCALE-Sim-validation's
// data/*/kernel_statistics_filtered*.csv, one row per jitted JAX function and shape, named like
// "sigmoid_(1024,1024)" with its average, minimum, maximum and standard deviation in microseconds.

#include "calibrate/csv_fields.h"

namespace xps::calibrate {

// Whether a header is such a table's: kernel_name and avg_duration_us.
bool isKernelStatistics(const csv::Columns& columns);

Result<std::vector<Measurement>> parseKernelStatistics(const std::vector<std::string_view>& lines,
                                                       std::size_t headerLine, const csv::Columns& columns,
                                                       const std::string& fileName);

} // namespace xps::calibrate
