// libclang loaded at run time (see libclang_api.h).
#include "kernels/user/libclang_api.h"

#include <dlfcn.h>

#include <mutex>

namespace ws::user::libclang {

const Api* g_api = nullptr;

namespace {

// Debian's names for the C API's library, newest first after the one the build saw.
constexpr const char* kNames[] = {"libclang-14.so.1", "libclang.so.1", "libclang-16.so.1", "libclang-15.so.1",
                                  "/usr/lib/llvm-14/lib/libclang.so.1", "libclang.so"};

}  // namespace

const Api* load(std::string* why) {
  static std::once_flag once;
  static Api api;
  static const Api* ok = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    void* h = nullptr;
    std::string tried;
    for (const char* n : kNames) {
      if ((h = ::dlopen(n, RTLD_NOW | RTLD_LOCAL))) break;
      tried += std::string(tried.empty() ? "" : ", ") + n;
    }
    if (!h) {
      failure = "libclang is not installed (tried " + tried +
                "): plain CUDA kernels need it on the emulator (Debian: apt install libclang1-14)";
      return;
    }
    std::string missing;
#define WS_LIBCLANG_BIND(f)                                            \
    api.f = reinterpret_cast<decltype(api.f)>(::dlsym(h, #f));        \
    if (!api.f) missing += std::string(missing.empty() ? "" : ", ") + #f;
    WS_LIBCLANG_FUNCTIONS(WS_LIBCLANG_BIND)
#undef WS_LIBCLANG_BIND
    if (!missing.empty()) {
      failure = "the libclang found lacks " + missing;
      return;
    }
    ok = &api;
    g_api = ok;
  });
  if (!ok && why) *why = failure;
  return ok;
}

}  // namespace ws::user::libclang
