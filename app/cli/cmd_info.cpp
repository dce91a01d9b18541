// `warpscope info`: the backend, the device, and why CUDA is unavailable if it is.
#include "app/cli/command.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

#include "sim/model.h"

namespace ws::cli {

namespace {

struct InfoArgs {
  std::string backend = "auto";
  bool json = false;
};

int cmd_info(const InfoArgs& a, std::ostream& out, std::ostream& err) {
  std::string why_no_cuda;
  std::unique_ptr<Backend> b;
  if (a.backend == "auto" || a.backend == "cuda") {
    b = make_cuda_backend(why_no_cuda);
    if (!b && a.backend == "cuda")
      usage("the cuda backend is not available: " + why_no_cuda +
            " (use --backend emu for the emulator)");
  }
  if (!b) b = backend_or_usage(a.backend == "auto" ? "emu" : a.backend, err);
  const DeviceInfo d = b->device();
  if (a.json) {
    Json j;
    j["backend"] = std::string(to_string(b->kind()));
    j["measured"] = b->kind() == BackendKind::Cuda;
    j["device"] = device_json(d);
    j["cuda_unavailable"] = why_no_cuda.empty() ? Json(nullptr) : Json(why_no_cuda);
    out << pretty(j);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"backend", std::string(to_string(b->kind())) +
                                 (b->kind() == BackendKind::Cuda
                                      ? " (times measured on the GPU)"
                                      : " (SIMT emulator: counts from the model, times modelled)")});
  rows.push_back({"device", d.name});
  if (!d.driver.empty()) rows.push_back({"driver", d.driver});
  if (!d.runtime.empty()) rows.push_back({"runtime", d.runtime});
  if (d.cc_major)
    rows.push_back(
        {"compute capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)});
  if (d.sm_count) rows.push_back({"SMs", std::to_string(d.sm_count)});
  if (d.l2_bytes) rows.push_back({"L2", fmt(double(d.l2_bytes) / (1024.0 * 1024.0)) + " MiB"});
  if (d.mem_clock_mhz > 0) rows.push_back({"memory clock", fmt(d.mem_clock_mhz) + " MHz"});
  if (d.bus_width_bits > 0) rows.push_back({"bus width", fmt(d.bus_width_bits) + " bit"});
  if (d.peak_gbps > 0)
    rows.push_back({"peak bandwidth",
                    fmt(d.peak_gbps) + (b->kind() == BackendKind::Cuda
                                            ? " GB/s (theoretical: 2 x memory clock x bus width / 8)"
                                            : " GB/s (" + sim::long_label(peak_source(d, b->kind())) +
                                                  ": the device the model describes)")});
  if (d.peak_gflops > 0)
    rows.push_back({"FP32 peak", fmt(d.peak_gflops) +
                                     " GFLOP/s (2 x FP32 lanes per SM x SMs x SM clock)"});
  rows.push_back({"block limits", std::to_string(d.limits.max_threads_per_block) +
                                      " threads, " +
                                      std::to_string(d.limits.max_shared_per_block / 1024) +
                                      " KiB shared (" +
                                      std::to_string(d.limits.max_shared_per_block_optin / 1024) +
                                      " KiB with opt-in)"});
  if (!why_no_cuda.empty()) rows.push_back({"CUDA", "unavailable: " + why_no_cuda});
  for (const auto& r : rows) {
    std::string k = r[0] + ":";
    k.resize(std::max<std::size_t>(k.size(), 20), ' ');
    out << k << r[1] << "\n";
  }
  return kExitOk;
}

}  // namespace

Action declare_info(CLI::App& sub) {
  auto a = std::make_shared<InfoArgs>();
  CLI::App* s = &sub;
  add_backend(s, a->backend);
  s->add_flag("--json", a->json, "JSON output");
  return [a](std::ostream& out, std::ostream& err, const Hooks&) { return cmd_info(*a, out, err); };
}

}  // namespace ws::cli
