// The fast CUDA build of the catalogue: handles are plain pointers, nothing is recorded.
// Besides registry()/find() it exports the mode-free entry points of kernels/dialect/simt_cuda.h
// that the backend calls (cuda_backend.cu cannot include a family header itself).
#define WS_MODE_FAST 1
#include "kernels/dialect/simt.h"

#include "kernels/catalogue/catalogue_body.inc"

namespace ws {
namespace cuda {

const VariantInfo* fast_info(const std::string& family, const std::string& variant) {
  const fast::Variant* v = fast::find(family, variant);
  return v ? &v->info : nullptr;
}

std::vector<const VariantInfo*> fast_catalogue() {
  std::vector<const VariantInfo*> out;
  for (const fast::Variant& v : fast::registry()) out.push_back(&v.info);
  return out;
}

std::string launch_fast(const std::string& family, const std::string& variant,
                        const Params& p, const Plan& plan, const DeviceArrays& a,
                        cudaStream_t stream, int* regs) {
  const fast::Variant* v = fast::find(family, variant);
  if (!v) return "unknown variant " + family + "/" + variant;
  fast::Launcher L(stream);
  v->launch(L, p, plan, fast::Args{a.ptr, a.count});
  if (regs) *regs = L.regs();
  return L.error();
}

}  // namespace cuda
}  // namespace ws
