// The traced CUDA build of the catalogue: every access of the blocks in the traced range
// writes a WarpEvent (kernels/simt_cuda.h). Exports registry()/find() and launch_traced.
#define WS_MODE_TRACED 1
#include "kernels/simt.h"

// The families, in teaching order (the same list as catalogue_emu.cpp).
#include "kernels/access.cuh"
#include "kernels/divergence.cuh"
#include "kernels/matmul.cuh"
#include "kernels/reduce.cuh"
#include "kernels/transpose.cuh"

namespace ws {
inline namespace traced {

const Registry& registry() {
  static const Registry r = [] {
    Registry out;
    add_access(out);
    add_transpose(out);
    add_reduce(out);
    add_matmul(out);
    add_divergence(out);
    return out;
  }();
  return r;
}

const Variant* find(const std::string& family, const std::string& variant) {
  for (const Variant& v : registry())
    if (v.info.family == family && v.info.name == variant) return &v;
  return nullptr;
}

}  // namespace traced

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
