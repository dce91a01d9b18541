#pragma once
// The emulator under a CUDA backend's name, for window tests without a GPU: the window
// believes it runs on a GPU, so the worker stages its runs as on one (the measured time,
// then the selected block's events, then the counters) and the editor checks on it.
#include <memory>
#include <string>

#include "kernels/backends/backend.h"

namespace ws::gui::fakes {

class GpuNamed : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::Cuda; }
  DeviceInfo device() const override {
    DeviceInfo d = emu_->device();
    d.name = "a GPU in name only";
    return d;
  }
  RunResult run(const std::string& f, const std::string& v, const Params& p, const RunOptions& o) override {
    return emu_->run(f, v, p, o);
  }
  PeerResult run_peer(Peer p, const Params& pp, const RunOptions& o) override { return emu_->run_peer(p, pp, o); }

 private:
  std::unique_ptr<Backend> emu_ = make_emu_backend();
};

}  // namespace ws::gui::fakes
