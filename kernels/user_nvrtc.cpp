// Student kernels on the GPU: NVRTC build (named dialect headers) and a driver-API launch
// in a context of the student's own (see user_nvrtc.h).
#include "kernels/user_nvrtc.h"

#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>

namespace ws::user {
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p, bool& ok) {
  std::ifstream f(p, std::ios::binary);
  ok = bool(f);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// libcu++ ships with the toolkit; NVRTC finds it through -I.
std::string cccl_include() {
  for (const char* d : {"/usr/local/cuda/include/cccl", "/usr/local/cuda/include"})
    if (fs::exists(fs::path(d) / "cuda" / "std" / "cstdint")) return d;
  return "";
}

// The driver API, loaded with dlopen: warpscope must start on machines without an NVIDIA
// driver, so libcuda is never a link-time dependency. Names go through cuda.h's macros
// (cuMemAlloc -> cuMemAlloc_v2), so each pointer is the version the header declares.
#define WS_STR2(x) #x
#define WS_STR(x) WS_STR2(x)
struct Driver {
  bool ok = false;
  std::string why;
#define WS_FN(f) decltype(&::f) f = nullptr;
  WS_FN(cuInit) WS_FN(cuDeviceGet) WS_FN(cuDeviceGetCount) WS_FN(cuDeviceGetAttribute)
  WS_FN(cuCtxCreate) WS_FN(cuCtxDestroy) WS_FN(cuCtxSetCurrent) WS_FN(cuCtxSynchronize)
  WS_FN(cuModuleLoadData) WS_FN(cuModuleUnload) WS_FN(cuModuleGetFunction)
  WS_FN(cuMemAlloc) WS_FN(cuMemFree) WS_FN(cuMemcpyHtoD) WS_FN(cuMemcpyDtoH)
  WS_FN(cuLaunchKernel) WS_FN(cuEventCreate) WS_FN(cuEventRecord) WS_FN(cuEventSynchronize)
  WS_FN(cuEventElapsedTime) WS_FN(cuEventDestroy) WS_FN(cuGetErrorName) WS_FN(cuGetErrorString)
#undef WS_FN
};

const Driver& drv() {
  static const Driver d = [] {
    Driver d;
    void* h = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      d.why = "no NVIDIA driver (libcuda.so.1 cannot be loaded)";
      return d;
    }
    bool all = true;
#define WS_LOAD(f)                                                        \
  d.f = reinterpret_cast<decltype(&::f)>(::dlsym(h, WS_STR(f)));           \
  if (!d.f) {                                                             \
    all = false;                                                          \
    d.why = std::string("the driver lacks ") + WS_STR(f);                 \
  }
    WS_LOAD(cuInit) WS_LOAD(cuDeviceGet) WS_LOAD(cuDeviceGetCount) WS_LOAD(cuDeviceGetAttribute)
    WS_LOAD(cuCtxCreate) WS_LOAD(cuCtxDestroy) WS_LOAD(cuCtxSetCurrent) WS_LOAD(cuCtxSynchronize)
    WS_LOAD(cuModuleLoadData) WS_LOAD(cuModuleUnload) WS_LOAD(cuModuleGetFunction)
    WS_LOAD(cuMemAlloc) WS_LOAD(cuMemFree) WS_LOAD(cuMemcpyHtoD) WS_LOAD(cuMemcpyDtoH)
    WS_LOAD(cuLaunchKernel) WS_LOAD(cuEventCreate) WS_LOAD(cuEventRecord) WS_LOAD(cuEventSynchronize)
    WS_LOAD(cuEventElapsedTime) WS_LOAD(cuEventDestroy) WS_LOAD(cuGetErrorName) WS_LOAD(cuGetErrorString)
#undef WS_LOAD
    d.ok = all;
    return d;
  }();
  return d;
}

std::string cu_error(CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (drv().ok) {
    drv().cuGetErrorName(r, &name);
    drv().cuGetErrorString(r, &text);
  }
  return std::string(name ? name : "CUDA_ERROR") + " (" + (text ? text : "unknown") + ")";
}

}  // namespace

std::string nvrtc_source(const KernelSpec& spec, bool traced) {
  std::string s = traced ? "#define WS_MODE_TRACED\n" : "#define WS_MODE_FAST\n";
  s += "#include \"kernels/simt.h\"\nWS_BEGIN_MODE\n#include \"ws_student.cuh\"\nWS_END_MODE\n";
  s += "extern \"C\" __global__ void ws_user_entry(";
  std::string body;
  for (std::size_t k = 0; k < spec.fields.size(); ++k) {
    const Field& f = spec.fields[k];
    const std::string K = std::to_string(k);
    s += k ? ", " : "";
    if (f.array) {
      s += "void* ws_p" + K + ", unsigned long long ws_b" + K + ", unsigned ws_i" + K;
      const std::string T = (f.is_const ? "const " : "") + f.type;
      body += "  Global<" + T + "> " + f.name + "{static_cast<" + T + "*>(ws_p" + K + "), ws_b" + K +
              " / sizeof(" + f.type + "), static_cast<std::uint8_t>(ws_i" + K + ")};\n";
    } else {
      s += "long long ws_s" + K;
      body += "  " + f.type + " " + f.name + " = static_cast<" + f.type + ">(ws_s" + K + ");\n";
    }
  }
  s += ") {\n  using namespace ws;\n" + body + "  Thread t;\n  " + spec.struct_name + "{";
  for (std::size_t k = 0; k < spec.fields.size(); ++k) s += (k ? ", " : "") + spec.fields[k].name;
  s += "}(t);\n";
  if (traced) s += "  ws_finish();\n";
  return s + "}\n";
}

std::vector<std::pair<std::string, std::string>> nvrtc_headers(std::string& why) {
  std::vector<std::pair<std::string, std::string>> h;
  const fs::path inc = dialect_include_dir();
  for (const char* rel : {"kernels/simt.h", "kernels/simt_cuda.h", "sim/trace.h", "sim/access.h", "sim/hd.h"}) {
    bool ok = false;
    std::string text = slurp(inc / rel, ok);
    if (!ok) {
      why = "cannot read the dialect header " + (inc / rel).string();
      return {};
    }
    h.emplace_back(rel, std::move(text));
  }
  const char* std_map = "namespace std { using namespace cuda::std; }\n";
  h.emplace_back("cstdint", std::string("#pragma once\n#include <cuda/std/cstdint>\n") + std_map);
  h.emplace_back("cstddef", std::string("#pragma once\n#include <cuda/std/cstddef>\n") + std_map);
  h.emplace_back("type_traits", std::string("#pragma once\n#include <cuda/std/type_traits>\n") + std_map);
  return h;
}

NvrtcBuild compile_nvrtc(const KernelSpec& spec, bool traced, const std::string& arch) {
  NvrtcBuild b;
  b.arch = arch;
  Compiled& c = b.compiled;
  bool ok = false;
  const std::string src = slurp(spec.source_path, ok);
  if (!ok || fs::is_directory(spec.source_path)) {
    c.error = spec.source_path + ": cannot read the kernel file";
    return b;
  }
  std::string why;
  auto headers = nvrtc_headers(why);
  if (headers.empty()) {
    c.error = why;
    return b;
  }
  headers.emplace_back("ws_student.cuh", src);
  const std::string cccl = cccl_include();
  if (cccl.empty()) {
    c.error = "libcu++ (cuda/std/cstdint) was not found under /usr/local/cuda/include";
    return b;
  }
  std::vector<const char*> hs, hn;
  for (const auto& [n, t] : headers) {
    hn.push_back(n.c_str());
    hs.push_back(t.c_str());
  }
  const std::string main_src = nvrtc_source(spec, traced);
  const auto t0 = std::chrono::steady_clock::now();
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, main_src.c_str(), "ws_user.cu", int(hs.size()), hs.data(), hn.data()) !=
      NVRTC_SUCCESS) {
    c.error = "NVRTC could not create the program";
    return b;
  }
  const std::string arch_opt = "--gpu-architecture=" + arch, inc_opt = "-I" + cccl;
  std::vector<const char*> opts = {arch_opt.c_str(), "-std=c++20", "--device-as-default-execution-space",
                                   "-lineinfo", inc_opt.c_str(), "-I/usr/local/cuda/include"};
  const nvrtcResult r = nvrtcCompileProgram(prog, int(opts.size()), opts.data());
  std::size_t n = 0;
  nvrtcGetProgramLogSize(prog, &n);
  c.log.assign(n, '\0');
  nvrtcGetProgramLog(prog, c.log.data());
  while (!c.log.empty() && c.log.back() == '\0') c.log.pop_back();
  if (r == NVRTC_SUCCESS) {
    std::size_t cn = 0;
    nvrtcGetCUBINSize(prog, &cn);
    b.cubin.resize(cn);
    if (cn) nvrtcGetCUBIN(prog, b.cubin.data());
    c.ok = cn > 0;
    if (!c.ok) c.error = "NVRTC produced no cubin";
  } else {
    // "ws_student.cuh(12): error: ..." -> the student's file and line; anything else
    // (the dialect, the generated entry) at the struct's line with the message.
    const std::regex loc("^(.*?)\\(([0-9]+)\\): (catastrophic )?error: (.*)$");
    std::istringstream in(c.log);
    std::string line;
    while (std::getline(in, line)) {
      std::smatch m;
      if (!std::regex_match(line, m, loc)) continue;
      CompileError e;
      e.file = spec.source_path;
      if (m[1] == "ws_student.cuh") {
        e.line = std::atoi(std::string(m[2]).c_str());
        e.message = m[4];
      } else {
        e.line = 1;
        e.message = std::string(m[4]) + " (in " + std::string(m[1]) + ")";
      }
      bool dup = false;
      for (const auto& o : c.errors) dup = dup || (o.line == e.line && o.message == e.message);
      if (!dup) c.errors.push_back(e);
    }
    if (c.errors.empty()) c.errors.push_back({spec.source_path, 1, "NVRTC failed: " + c.log.substr(0, 300)});
  }
  nvrtcDestroyProgram(&prog);
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return b;
}

// ------------------------------------------------------------------------- launch

namespace {

// The students' context: created on first use, destroyed after a fault (a fault leaves a
// context unusable) and created again by the next run.
struct StudentContext {
  std::mutex mu;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  std::string init_error;
  bool inited = false;
};
StudentContext& sctx() {
  static StudentContext c;
  return c;
}

bool ensure_context(std::string& why) {
  StudentContext& s = sctx();
  if (!s.inited) {
    s.inited = true;
    if (!drv().ok) s.init_error = drv().why;
    else if (CUresult r = drv().cuInit(0); r != CUDA_SUCCESS) s.init_error = "cuInit: " + cu_error(r);
    else if (CUresult r2 = drv().cuDeviceGet(&s.dev, 0); r2 != CUDA_SUCCESS)
      s.init_error = "cuDeviceGet: " + cu_error(r2);
  }
  if (!s.init_error.empty()) {
    why = s.init_error;
    return false;
  }
  if (!s.ctx) {
    if (CUresult r = drv().cuCtxCreate(&s.ctx, nullptr, 0, s.dev); r != CUDA_SUCCESS) {
      why = "cuCtxCreate: " + cu_error(r);
      s.ctx = nullptr;
      return false;
    }
  }
  drv().cuCtxSetCurrent(s.ctx);
  return true;
}

void drop_context() {
  StudentContext& s = sctx();
  if (s.ctx) drv().cuCtxDestroy(s.ctx);
  s.ctx = nullptr;
}

}  // namespace

bool gpu_available(std::string& why) {
  std::lock_guard<std::mutex> lock(sctx().mu);
  if (!ensure_context(why)) return false;
  int n = 0;
  if (drv().cuDeviceGetCount(&n) != CUDA_SUCCESS || n == 0) {
    why = "no CUDA device";
    return false;
  }
  return true;
}

RunResult run_cuda(const KernelSpec& spec, const VariantInfo& job, const Params& params,
                   const RunOptions& opt, Compiled& compiled, const Limits& limits) {
  // Counts, traces, problems: the emulator's run of the same source (sandboxed).
  Compiled emu = compile_emu(spec);
  if (!emu.ok) {
    compiled = emu;
    return {};
  }
  RunResult res = run_emu(emu, spec, job, params, opt, limits);
  if (!res.error.empty() || !res.problems.empty()) {
    compiled = emu;
    return res;
  }
  std::lock_guard<std::mutex> lock(sctx().mu);
  std::string why;
  if (!ensure_context(why)) {
    compiled = emu;
    res.error = "the GPU is not usable for student kernels: " + why;
    return res;
  }
  int major = 9, minor = 0;
  drv().cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, sctx().dev);
  drv().cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, sctx().dev);
  const std::string arch = "sm_" + std::to_string(major * 10 + minor);
  NvrtcBuild fast = compile_nvrtc(spec, false, arch);
  compiled = fast.compiled;
  if (!fast.compiled.ok) return res;
  // The traced build compiles from the same source (its launch is the CUDA backend's
  // staged trace capture; the counts above are the emulator's, equal by construction).
  NvrtcBuild traced = compile_nvrtc(spec, true, arch);
  if (!traced.compiled.ok) {
    compiled = traced.compiled;
    return res;
  }

  auto fail = [&](const char* call, CUresult r) {
    res.error = std::string("your kernel failed on the GPU: ") + call + ": " + cu_error(r) +
                " (the context was reset)";
    res.verified = false;
    drop_context();
    return res;
  };
  CUmodule mod = nullptr;
  if (CUresult r = drv().cuModuleLoadData(&mod, fast.cubin.data()); r != CUDA_SUCCESS) return fail("cuModuleLoadData", r);
  CUfunction fn = nullptr;
  if (CUresult r = drv().cuModuleGetFunction(&fn, mod, "ws_user_entry"); r != CUDA_SUCCESS) return fail("cuModuleGetFunction", r);

  HostArrays h = HostArrays::allocate(res.plan);
  fill_inputs(h, res.plan, opt.seed);
  std::vector<CUdeviceptr> dptr(h.data.size(), 0);
  auto free_all = [&] {
    for (auto p : dptr)
      if (p) drv().cuMemFree(p);
    if (mod) drv().cuModuleUnload(mod);
  };
  for (std::size_t i = 0; i < h.data.size(); ++i) {
    if (res.plan.arrays[i].output) std::memset(h.data[i].data(), 0xFF, h.data[i].size());
    if (CUresult r = drv().cuMemAlloc(&dptr[i], std::max<std::size_t>(h.data[i].size(), 4)); r != CUDA_SUCCESS) {
      free_all();
      return fail("cuMemAlloc", r);
    }
    drv().cuMemcpyHtoD(dptr[i], h.data[i].data(), h.data[i].size());
  }
  // One argument slot per value, in the entry's order.
  std::vector<unsigned long long> vals;
  std::vector<void*> args;
  vals.reserve(spec.fields.size() * 3);
  for (const Field& f : spec.fields) {
    if (f.array) {
      std::size_t i = 0;
      while (i < res.plan.arrays.size() && res.plan.arrays[i].name != f.from()) ++i;
      vals.push_back(dptr.at(i));
      args.push_back(&vals.back());
      vals.push_back(h.data[i].size());
      args.push_back(&vals.back());
      vals.push_back(i);
      args.push_back(&vals.back());
    } else {
      vals.push_back((unsigned long long)res.params.at(f.from()));
      args.push_back(&vals.back());
    }
  }
  // 32-bit id arguments: the slot's low bytes are the value on a little-endian GPU.
  auto launch_all = [&]() -> CUresult {
    for (const LaunchCfg& c : res.plan.launches) {
      if (CUresult r = drv().cuLaunchKernel(fn, c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y,
                                      c.block.z, c.shared_bytes, nullptr, args.data(), nullptr);
          r != CUDA_SUCCESS)
        return r;
    }
    return CUDA_SUCCESS;
  };
  if (CUresult r = launch_all(); r != CUDA_SUCCESS) {
    free_all();
    return fail("cuLaunchKernel", r);
  }
  if (CUresult r = drv().cuCtxSynchronize(); r != CUDA_SUCCESS) return fail("cuCtxSynchronize", r);
  for (std::size_t i = 0; i < h.data.size(); ++i) drv().cuMemcpyDtoH(h.data[i].data(), dptr[i], h.data[i].size());
  res.verify_message = job.verify(h, res.params);
  res.verified = res.verify_message.empty();

  // Timing: CUDA events around each launch of the plan, median of the repeats.
  if (opt.timing) {
    CUevent a = nullptr, z = nullptr;
    drv().cuEventCreate(&a, CU_EVENT_DEFAULT);
    drv().cuEventCreate(&z, CU_EVENT_DEFAULT);
    for (int w = 0; w < opt.warmup; ++w) launch_all();
    std::vector<double> ms;
    for (int k = 0; k < std::max(opt.repeats, 10); ++k) {
      drv().cuEventRecord(a, nullptr);
      launch_all();
      drv().cuEventRecord(z, nullptr);
      drv().cuEventSynchronize(z);
      float t = 0;
      drv().cuEventElapsedTime(&t, a, z);
      ms.push_back(t);
    }
    drv().cuEventDestroy(a);
    drv().cuEventDestroy(z);
    std::sort(ms.begin(), ms.end());
    Timing& t = res.timing;
    t.measured = true;
    t.samples_ms = ms;
    t.median_ms = ms[ms.size() / 2];
    t.min_ms = ms.front();
    t.max_ms = ms.back();
    const double s = t.median_ms * 1e-3;
    t.unit = res.plan.gflops() ? "GFLOP/s" : "GB/s";
    t.throughput = s > 0 ? (res.plan.gflops() ? res.plan.flops : res.plan.logical_bytes) / s / 1e9 : 0;
    if (CUresult r = drv().cuCtxSynchronize(); r != CUDA_SUCCESS) return fail("timing", r);
  }
  free_all();
  return res;
}

}  // namespace ws::user
