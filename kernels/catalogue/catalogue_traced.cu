// The traced CUDA build of the catalogue: every access of the blocks in the traced range
// writes a WarpEvent (kernels/dialect/simt_cuda.h). Exports registry()/find() and launch_traced.
#define WS_MODE_TRACED 1
#include "kernels/dialect/simt.h"

#include "kernels/catalogue/catalogue_body.inc"

namespace ws {
namespace cuda {

std::string launch_traced(const std::string& family, const std::string& variant,
                          const Params& p, const Plan& plan, const DeviceArrays& a,
                          cudaStream_t stream, TraceHooks& hooks) {
  const traced::Variant* v = traced::find(family, variant);
  if (!v) return "unknown variant " + family + "/" + variant;
  traced::Launcher L(stream, hooks);
  v->launch(L, p, plan, traced::Args{a.ptr, a.count});
  return L.error();
}

}  // namespace cuda
}  // namespace ws
