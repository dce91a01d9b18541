// Backend-independent pieces: names, the catalogue listing, and the choice of backend.
#define WS_MODE_EMU
#include "kernels/backend.h"

#include "kernels/registry.h"
#if defined(WS_HAVE_CUDA)
#include "kernels/cuda_backend.h"
#endif

namespace ws {

std::string_view to_string(BackendKind k) {
  switch (k) {
    case BackendKind::Emu: return "emu";
    case BackendKind::Cuda: return "cuda";
  }
  return "unknown";
}

std::string_view to_string(Peer p) {
  switch (p) {
    case Peer::MemcpyD2D: return "cudaMemcpy device-to-device";
    case Peer::CubReduceSum: return "CUB DeviceReduce::Sum";
    case Peer::CublasSgemm: return "cuBLAS Sgemm";
  }
  return "unknown";
}

Params peer_params(Peer p, const Plan& plan, const Params& params) {
  if (p == Peer::MemcpyD2D) return {{"bytes", static_cast<long long>(plan.logical_bytes / 2)}};
  return params;
}

std::unique_ptr<Backend> make_cuda_backend(std::string& why) {
#if defined(WS_HAVE_CUDA)
  return cuda::make_backend(why);
#else
  why = "this build has no CUDA backend (nvcc was not found at configure time)";
  return nullptr;
#endif
}

std::unique_ptr<Backend> make_best_backend(std::string& notice) {
  std::string why;
  if (auto b = make_cuda_backend(why)) {
    notice.clear();
    return b;
  }
  notice = "running on the emulator (times are modelled, not measured): " + why;
  return make_emu_backend();
}

const std::vector<VariantInfo>& catalogue() {
  static const std::vector<VariantInfo> list = [] {
    std::vector<VariantInfo> out;
    for (const auto& v : emu::registry()) out.push_back(v.info);
    return out;
  }();
  return list;
}

const VariantInfo* find_variant(const std::string& family, const std::string& variant) {
  for (const auto& v : catalogue())
    if (v.family == family && v.name == variant) return &v;
  return nullptr;
}

}  // namespace ws
