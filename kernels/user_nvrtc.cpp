// Student kernels on the GPU: NVRTC build (named dialect headers) and a driver-API launch
// in a process of its own, the GPU runner (see user_nvrtc.h, user_gpu_runner.h).
#include "kernels/user_nvrtc.h"

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

// The device, asked once of a runner process (the app itself never loads the driver).
struct Probe {
  std::mutex mu;
  bool done = false;
  GpuReply reply;
};
Probe& probe() {
  static Probe p;
  return p;
}

}  // namespace

bool gpu_available(std::string& why, std::string* arch, std::string* device) {
  Probe& p = probe();
  std::lock_guard<std::mutex> lock(p.mu);
  if (!p.done) {
    GpuRequest q;
    q.probe = true;
    p.reply = run_in_runner(q, RunnerLimits{});
    p.done = true;
  }
  if (!p.reply.error.empty()) {
    why = p.reply.error;
    return false;
  }
  if (arch) *arch = p.reply.arch;
  if (device) *device = p.reply.device;
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
  std::string why, arch;
  if (!gpu_available(why, &arch)) {
    compiled = emu;
    res.error = "the GPU is not usable for student kernels: " + why;
    return res;
  }
  NvrtcBuild fast = compile_nvrtc(spec, false, arch);
  compiled = fast.compiled;
  if (!fast.compiled.ok) return res;
  // The traced build compiles from the same source (the counts above are the emulator's,
  // equal by construction; its launch on the device is not wired yet).
  NvrtcBuild traced = compile_nvrtc(spec, true, arch);
  if (!traced.compiled.ok) {
    compiled = traced.compiled;
    return res;
  }

  GpuRequest q;
  q.cubin = std::move(fast.cubin);
  for (const LaunchCfg& c : res.plan.launches) {
    GpuLaunch l;
    l.grid[0] = c.grid.x, l.grid[1] = c.grid.y, l.grid[2] = c.grid.z;
    l.block[0] = c.block.x, l.block[1] = c.block.y, l.block[2] = c.block.z;
    l.shared_bytes = c.shared_bytes;
    q.launches.push_back(l);
  }
  HostArrays h = HostArrays::allocate(res.plan);
  fill_inputs(h, res.plan, opt.seed);
  for (std::size_t i = 0; i < h.data.size(); ++i) {
    auto& a = q.arrays.emplace_back(reinterpret_cast<const char*>(h.data[i].data()),
                                    reinterpret_cast<const char*>(h.data[i].data()) + h.data[i].size());
    if (res.plan.arrays[i].output) std::fill(a.begin(), a.end(), char(0xFF));
  }
  for (const Field& f : spec.fields) {
    GpuArg a;
    a.array = f.array;
    if (f.array) {
      while (a.index < res.plan.arrays.size() && res.plan.arrays[a.index].name != f.from()) ++a.index;
    } else {
      a.value = res.params.at(f.from());
    }
    q.args.push_back(a);
  }
  q.timing = opt.timing;
  q.warmup = opt.warmup;
  q.repeats = std::max(opt.repeats, 10);

  RunnerLimits rl;
  rl.time_s = limits.time_s;
  const GpuReply rep = run_in_runner(q, rl);
  res.verified = false;
  if (!rep.error.empty()) {
    // The runner's context died with its process: the next run starts a fresh one.
    res.error = "your kernel failed on the GPU: " + rep.error +
                " (it ran in a process of its own; the next run gets a fresh context)";
    res.verify_message.clear();
    return res;
  }
  if (rep.arrays.size() != h.data.size()) {
    res.error = "the GPU runner returned " + std::to_string(rep.arrays.size()) + " arrays, not " +
                std::to_string(h.data.size());
    return res;
  }
  for (std::size_t i = 0; i < h.data.size(); ++i) {
    if (rep.arrays[i].size() != h.data[i].size()) {
      res.error = "the GPU runner returned array " + res.plan.arrays[i].name + " at the wrong size";
      return res;
    }
    std::memcpy(h.data[i].data(), rep.arrays[i].data(), h.data[i].size());
  }
  res.verify_message = job.verify(h, res.params);
  res.verified = res.verify_message.empty();

  // Timing: CUDA events around each repeat of the plan's launches, the median.
  if (opt.timing && !rep.samples_ms.empty()) {
    std::vector<double> ms = rep.samples_ms;
    std::sort(ms.begin(), ms.end());
    Timing& t = res.timing;
    t = Timing{};
    t.measured = true;
    t.samples_ms = ms;
    t.median_ms = ms[ms.size() / 2];
    t.min_ms = ms.front();
    t.max_ms = ms.back();
    const double s = t.median_ms * 1e-3;
    t.unit = res.plan.gflops() ? "GFLOP/s" : "GB/s";
    t.throughput = s > 0 ? (res.plan.gflops() ? res.plan.flops : res.plan.logical_bytes) / s / 1e9 : 0;
  }
  return res;
}

}  // namespace ws::user
