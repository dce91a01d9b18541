// NVRTC on a student's unchanged CUDA file (cuda_nvrtc.h).
#include "kernels/user/cuda_nvrtc.h"
#include "io/read_file.h"

#include <nvrtc.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <sstream>

namespace ws::user {

namespace {
// CUDA headers NVRTC does not ship; a kernel file may include them (they declare nothing
// a kernel needs under NVRTC, which knows CUDA's built-ins).
const char* const kEmpty[] = {"cuda_runtime.h", "cuda.h", "device_launch_parameters.h",
                              "cuda_runtime_api.h", "device_functions.h", "vector_types.h"};

// "path(12): error: msg" -> line 12, msg; 0 when the line is not an error.
int error_line(const std::string& l, std::string& msg) {
  const std::size_t open = l.find('(');
  const std::size_t close = l.find("): ", open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return 0;
  const std::string rest = l.substr(close + 3);
  for (const char* kind : {"error: ", "catastrophic error: "})
    if (rest.rfind(kind, 0) == 0) {
      msg = rest.substr(std::strlen(kind));
      return std::atoi(l.c_str() + open + 1);
    }
  return 0;
}
}  // namespace

namespace {

// The last builds, newest last (a handful: a cubin of a puzzle's kernel is tens of KB).
constexpr std::size_t kKeptBuilds = 8;
struct Kept {
  std::string key;
  CudaGpuBuild build;
};
std::mutex g_kept_mu;
std::deque<Kept> g_kept;

CudaGpuBuild build_nvrtc(const std::string& path, const std::string& src, const std::string& arch);

}  // namespace

CudaGpuBuild compile_cuda_nvrtc(const std::string& path, const std::string& arch) {
  const io::ReadResult rf = io::read_file(path, io::kDefaultReadCap, "kernel file");
  if (!rf.ok) {
    CudaGpuBuild b;
    b.compiled.error = rf.error;
    return b;
  }
  std::string key = path;
  key += '\0';
  key += arch;
  key += '\0';
  key += rf.text;
  {
    std::lock_guard<std::mutex> lk(g_kept_mu);
    for (const Kept& k : g_kept)
      if (k.key == key) {
        CudaGpuBuild b = k.build;
        b.compiled.cached = true;
        b.compiled.seconds = 0;
        return b;
      }
  }
  CudaGpuBuild b = build_nvrtc(path, rf.text, arch);
  if (b.compiled.error.empty()) {  // a build NVRTC answered (ok or the student's errors)
    std::lock_guard<std::mutex> lk(g_kept_mu);
    g_kept.push_back({std::move(key), b});
    if (g_kept.size() > kKeptBuilds) g_kept.pop_front();
  }
  return b;
}

namespace {

CudaGpuBuild build_nvrtc(const std::string& path, const std::string& src, const std::string& arch) {
  CudaGpuBuild b;
  const auto t0 = std::chrono::steady_clock::now();
  // The front end names the kernel and its parameters (and gives CUDA mistakes the same
  // sentences as on the emulator).
  const cuda::Translation tr = cuda::translate(src, path);
  if (!tr.ok) {
    for (const auto& e : tr.errors) b.compiled.errors.push_back({path, e.line, e.message});
    return b;
  }
  b.kernel = tr.kernel;
  b.params = tr.params;
  std::vector<const char*> hs, hn;
  for (const char* h : kEmpty) {
    hs.push_back("");
    hn.push_back(h);
  }
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, src.c_str(), path.c_str(), int(hs.size()), hs.data(), hn.data()) !=
      NVRTC_SUCCESS) {
    b.compiled.error = "NVRTC could not create a program";
    return b;
  }
  const std::string expr = "&" + tr.kernel;
  nvrtcAddNameExpression(prog, expr.c_str());
  const std::string gpu = "--gpu-architecture=" + arch;
  const char* opts[] = {gpu.c_str(), "--std=c++17", "-lineinfo"};
  const nvrtcResult r = nvrtcCompileProgram(prog, 3, opts);
  std::size_t ln = 0;
  nvrtcGetProgramLogSize(prog, &ln);
  b.compiled.log.assign(ln, '\0');
  if (ln) nvrtcGetProgramLog(prog, b.compiled.log.data());
  while (!b.compiled.log.empty() && b.compiled.log.back() == '\0') b.compiled.log.pop_back();
  if (r == NVRTC_SUCCESS) {
    std::size_t cn = 0;
    nvrtcGetCUBINSize(prog, &cn);
    b.cubin.resize(cn);
    if (cn) nvrtcGetCUBIN(prog, b.cubin.data());
    const char* lowered = nullptr;
    if (nvrtcGetLoweredName(prog, expr.c_str(), &lowered) == NVRTC_SUCCESS && lowered) b.lowered = lowered;
    b.compiled.ok = !b.cubin.empty() && !b.lowered.empty();
    if (!b.compiled.ok) b.compiled.error = "NVRTC built no cubin for " + tr.kernel + " (arch " + arch + ")";
  } else {
    std::istringstream in(b.compiled.log);
    std::string l, msg;
    while (std::getline(in, l))
      if (const int at = error_line(l, msg)) b.compiled.errors.push_back({path, at, msg});
    if (b.compiled.errors.empty())
      b.compiled.errors.push_back({path, 1, std::string("NVRTC failed: ") + nvrtcGetErrorString(r)});
  }
  nvrtcDestroyProgram(&prog);
  b.compiled.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return b;
}

}  // namespace

}  // namespace ws::user
