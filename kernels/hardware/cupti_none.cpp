// The CUDA backend built where the toolkit has no CUPTI (libcupti, libnvperf_host): the
// counters are unavailable, and say why.
#include "kernels/hardware/cupti_profiler.h"

namespace ws::cuda {

HardwareCounters profile_counters(const std::string& device_name, int, const std::function<void()>&,
                                  const std::function<void()>&) {
  HardwareCounters h;
  h.device = device_name;
  h.unavailable = HardwareUnavailable::NoCupti;
  h.detail = "this build found no CUPTI in the CUDA toolkit at configure time";
  return h;
}

void profile_sass_lines(HardwareCounters& h, const std::function<void()>&) {
  h.per_pc_error = "this build found no CUPTI in the CUDA toolkit at configure time";
}

}  // namespace ws::cuda
