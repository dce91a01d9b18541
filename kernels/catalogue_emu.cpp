// The emulator build of the catalogue: every family header compiled with the emulator's
// dialect (kernels/simt_emu.h), listed in teaching order.
#define WS_MODE_EMU
#include "kernels/access.cuh"
#include "kernels/divergence.cuh"
#include "kernels/matmul.cuh"
#include "kernels/reduce.cuh"
#include "kernels/transpose.cuh"

namespace ws::emu {

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

}  // namespace ws::emu
