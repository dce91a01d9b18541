#pragma once
// The metadata every chart export carries (SVG/PNG footer, CSV header), built in one place
// so the command line's exports and the window's say the same thing in the same words.
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "kernels/backends/backend.h"

namespace ws {

// "2026-11-23T01:00:00Z"
inline std::string utc_now_iso8601() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// `params`: the parameters as run, with swept ones as "key=v1,v2,..."; `repeats`: the
// timed runs per measured point; `sources`: the sources of the values exported. The
// sources themselves are named by the chart (viz::chart_sources: its footer, the CSV's
// `source` column); this says only where it ran and how a timed value was taken.
// @post keys are exactly kernel, ran on, backend, date, params, plus "timing" iff a source
//       is Measured or Recorded, plus driver, runtime, memory clock MHz and bus width bits
//       when the device reports them; "ran on" is d.name on CUDA, "emulator (no GPU)" on Emu.
inline std::map<std::string, std::string> export_meta(const DeviceInfo& d, BackendKind kind,
                                                      const std::vector<sim::Provenance>& sources,
                                                      int repeats, const std::string& kernel,
                                                      const std::string& params,
                                                      const std::string& date) {
  auto num = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.4g", v);
    return std::string(b);
  };
  bool measured = false, recorded = false;
  for (const sim::Provenance& p : sources) {
    measured = measured || p.is(sim::Source::Measured);
    recorded = recorded || p.is(sim::Source::Recorded);
  }
  std::map<std::string, std::string> m;
  m["kernel"] = kernel;
  m["ran on"] = kind == BackendKind::Emu ? std::string("emulator (no GPU)") : d.name;
  if (!d.driver.empty()) m["driver"] = d.driver;
  if (!d.runtime.empty()) m["runtime"] = d.runtime;
  if (d.mem_clock_mhz > 0) m["memory clock MHz"] = num(d.mem_clock_mhz);
  if (d.bus_width_bits > 0) m["bus width bits"] = num(d.bus_width_bits);
  m["backend"] = std::string(to_string(kind));
  if (measured || recorded) {
    std::string t;
    if (measured) t = "measured: median of " + std::to_string(repeats) + " runs";
    if (recorded) t += std::string(t.empty() ? "" : "; ") + "recorded: the recording's median";
    m["timing"] = t;
  }
  m["date"] = date;
  m["params"] = params.empty() ? "defaults" : params;
  return m;
}

}  // namespace ws
