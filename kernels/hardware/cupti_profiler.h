#pragma once
// Hardware counters of the fast build through CUPTI's range profiler (CUDA 13,
// cupti_range_profiler.h). Declared without any CUDA header: cuda_backend.cu calls it with
// its own prepare/launch steps. Defined in cupti_profiler.cpp when the toolkit has CUPTI,
// else in cupti_none.cpp (which says so).
#include <functional>
#include <string>

#include "kernels/hardware/hardware.h"

namespace ws::cuda {

// Profiles `runs` runs of `launch` on the current device: each run is one user range
// around everything `launch` queues, replayed as many passes as the metrics need;
// `prepare` runs before every pass (re-uploads the inputs, since a pass may read what the
// previous one wrote). Both callbacks may throw; the exception passes through after the
// profiler is shut down. Setting WS_CUPTI_FORCE_ERROR=insufficient_privileges (or
// not_supported) makes the first CUPTI call fail that way, to test the refusal path.
// @post result.ok() with runs maps of hardware_metrics() (less those the GPU lacks, named
//       in detail), or !ok() with unavailable and detail naming the failing CUPTI call.
HardwareCounters profile_counters(const std::string& device_name, int runs,
                                  const std::function<void()>& prepare,
                                  const std::function<void()>& launch);

// Per-instruction counters of one run of `launch` through CUPTI's SASS metrics
// (shared wavefronts, global sectors, instructions executed), written into h.per_pc, or
// h.per_pc_error saying why not. The chip's SASS metric names go to h.sass_metric_names.
void profile_sass_lines(HardwareCounters& h, const std::function<void()>& launch);

}  // namespace ws::cuda
