// warpscope-gpu-run: runs one student kernel on the GPU in a process of its own (see
// user_gpu_runner.h). Request on stdin, reply on stdout, one byte on fd 3 before the first
// launch. A fault ends this process's context for good, and the process with it; the app
// that started it never touched the device.
#include <cuda.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "kernels/dialect/simt_cuda.h"  // the traced build's control block and records (host view)
#include "kernels/user/sandbox.h"
#include "kernels/user/user_gpu_device.h"
#include "kernels/user/user_gpu_runner.h"

namespace ws::user {
namespace {

// The driver API, loaded with dlopen: the runner must start, and say why it cannot run,
// on machines without an NVIDIA driver. Names go through cuda.h's macros (cuMemAlloc ->
// cuMemAlloc_v2), so each pointer is the version the header declares.
#define WS_STR2(x) #x
#define WS_STR(x) WS_STR2(x)
#define WS_DRIVER_FNS(X)                                                                              \
  X(cuInit) X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetAttribute) X(cuDeviceGetName)             \
  X(cuCtxCreate) X(cuCtxSynchronize) X(cuModuleLoadData) X(cuModuleGetFunction) X(cuMemAlloc)         \
  X(cuFuncGetAttribute)                                                                                \
  X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuLaunchKernel) X(cuEventCreate) X(cuEventRecord)                 \
  X(cuEventSynchronize) X(cuEventElapsedTime) X(cuGetErrorName) X(cuGetErrorString)                 \
  X(cuModuleGetGlobal) X(cuMemsetD8) X(cuFuncSetAttribute)

struct Driver {
  std::string why;
#define WS_FN(f) decltype(&::f) f = nullptr;
  WS_DRIVER_FNS(WS_FN)
#undef WS_FN
  bool load() {
    void* h = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      why = "no NVIDIA driver (libcuda.so.1 cannot be loaded)";
      return false;
    }
#define WS_LOAD(f)                                                   \
  f = reinterpret_cast<decltype(&::f)>(::dlsym(h, WS_STR(f)));       \
  if (!f) {                                                          \
    why = std::string("the driver lacks ") + WS_STR(f);              \
    return false;                                                    \
  }
    WS_DRIVER_FNS(WS_LOAD)
#undef WS_LOAD
    return true;
  }
  std::string error(const char* call, CUresult r) const {
    const char* name = nullptr;
    const char* text = nullptr;
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    return std::string(call) + ": " + (name ? name : "CUDA_ERROR") + " (" + (text ? text : "unknown") + ")";
  }
};

void launching() {
  static bool said = false;
  if (said) return;
  said = true;
  const char c = 'L';
  while (::write(3, &c, 1) < 0 && errno == EINTR) {
  }
}

// A simulated run's reply: the arrays as the request makes them (made on the host), when
// it asks for them back.
void echo(const GpuRequest& q, GpuReply& rep) {
  if (q.outputs != GpuOutputs::Arrays) return;
  for (std::size_t i = 0; i < q.arrays.size(); ++i) rep.arrays.push_back(request_array(q, i));
}

// Everything but the reply's framing: fills rep, or its error.
void run(GpuRequest& q, GpuReply& rep) {  // q.launches: a plain kernel's shared bytes are cut
  if (q.simulate == "fault") {
    launching();
    rep.error = "cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was "
                "encountered; simulated)";
    return;
  }
  if (q.simulate == "hang") {
    launching();
    for (;;) ::pause();
  }
  if (q.simulate == "close-and-hang") {  // ends the pipe the parent watches, lives on
    launching();
    ::close(3);
    for (;;) ::pause();
  }
  if (q.simulate == "sandbox") {  // what the sandbox forbids, tried: each must fail
    launching();
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    if (child > 0) ::waitpid(child, nullptr, 0);
    rep.device = std::string("kill:") + (::kill(::getppid(), 0) == 0 ? "allowed" : "denied") +
                 " fork:" + (child >= 0 ? "allowed" : "denied") +
                 " socket:" + (::socket(AF_INET, SOCK_STREAM, 0) >= 0 ? "allowed" : "denied");
    echo(q, rep);
    return;
  }
  if (q.simulate == "abort") {
    launching();
    std::fputs("simulated abort\n", stderr);
    std::abort();
  }
  if (q.simulate == "echo") {
    launching();
    rep.device = "simulated";
    echo(q, rep);
    return;
  }
  if (!q.simulate.empty()) {
    rep.error = "unknown test mode '" + q.simulate + "'";
    return;
  }

  Driver d;
  if (!d.load()) {
    rep.error = d.why;
    return;
  }
#define WS_CHECK(call, ...)                                       \
  if (CUresult r_ = d.call(__VA_ARGS__); r_ != CUDA_SUCCESS) {    \
    rep.error = d.error(#call, r_);                               \
    rep.arrays.clear();                                           \
    return;                                                       \
  }
  WS_CHECK(cuInit, 0)
  int n = 0;
  WS_CHECK(cuDeviceGetCount, &n)
  if (n == 0) {
    rep.error = "no CUDA device";
    return;
  }
  CUdevice dev = 0;
  WS_CHECK(cuDeviceGet, &dev, 0)
  char name[256] = {};
  WS_CHECK(cuDeviceGetName, name, int(sizeof name), dev)
  int major = 0, minor = 0;
  WS_CHECK(cuDeviceGetAttribute, &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)
  WS_CHECK(cuDeviceGetAttribute, &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)
  rep.device = name;
  rep.arch = "sm_" + std::to_string(major * 10 + minor);
  if (q.probe) return;

  CUcontext ctx = nullptr;
  WS_CHECK(cuCtxCreate, &ctx, nullptr, 0, dev)
  if (q.cubin.empty()) {
    rep.error = "the request has no cubin";
    return;
  }
  CUmodule mod = nullptr;
  WS_CHECK(cuModuleLoadData, &mod, q.cubin.data())
  CUfunction fn = nullptr;
  WS_CHECK(cuModuleGetFunction, &fn, mod, q.entry.c_str())
  if (q.plain) {
    int static_bytes = 0;
    WS_CHECK(cuFuncGetAttribute, &static_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn)
    for (GpuLaunch& l : q.launches)
      l.shared_bytes = l.shared_bytes > std::uint32_t(static_bytes) ? l.shared_bytes - std::uint32_t(static_bytes) : 0;
  }
  // Above 48 KB a kernel must opt in to its dynamic shared memory.
  auto opt_in_shared = [&](CUfunction f) -> CUresult {
    std::uint32_t most = 0;
    for (const GpuLaunch& l : q.launches) most = std::max(most, l.shared_bytes);
    return most > 48u * 1024u
               ? d.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(most))
               : CUDA_SUCCESS;
  };
  if (CUresult r = opt_in_shared(fn); r != CUDA_SUCCESS) {
    rep.error = d.error("cuFuncSetAttribute", r);
    return;
  }
  std::vector<CUdeviceptr> dptr(q.arrays.size(), 0);
  for (std::size_t i = 0; i < q.arrays.size(); ++i)
    WS_CHECK(cuMemAlloc, &dptr[i], std::max<std::size_t>(request_bytes(q, i), 4))
  // The arrays' first contents, again before the traced build: the bytes sent, then the
  // made ones (generated inputs, poisoned outputs) on the device.
  auto upload = [&]() -> std::string {
    for (std::size_t i = 0; i < q.arrays.size(); ++i)
      if (!q.arrays[i].empty())
        if (CUresult r = d.cuMemcpyHtoD(dptr[i], q.arrays[i].data(), q.arrays[i].size()); r != CUDA_SUCCESS)
          return d.error("cuMemcpyHtoD", r);
    if (q.made.empty()) return "";
    std::vector<unsigned long long> ptr(dptr.begin(), dptr.end());
    return device_make(q, ptr);
  };
  if (std::string e = upload(); !e.empty()) {
    rep.error = e;
    return;
  }
  // One slot per value of ws_user_entry (array: pointer, bytes, id; scalar: long long).
  // 32-bit id arguments: the slot's low bytes are the value on a little-endian GPU.
  std::vector<unsigned long long> vals;
  vals.reserve(q.args.size() * 3);
  std::vector<void*> args;
  for (const GpuArg& a : q.args) {
    if (a.array && q.plain) {
      vals.push_back(dptr[a.index]);
      args.push_back(&vals.back());
    } else if (a.array) {
      vals.push_back(dptr[a.index]);
      args.push_back(&vals.back());
      vals.push_back(request_bytes(q, a.index));
      args.push_back(&vals.back());
      vals.push_back(a.index);
      args.push_back(&vals.back());
    } else {
      vals.push_back(static_cast<unsigned long long>(a.value));
      args.push_back(&vals.back());
    }
  }
  auto launch_all = [&]() -> CUresult {
    for (const GpuLaunch& l : q.launches)
      if (CUresult r = d.cuLaunchKernel(fn, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                                        l.block[2], l.shared_bytes, nullptr, args.data(), nullptr);
          r != CUDA_SUCCESS)
        return r;
    return CUDA_SUCCESS;
  };
  launching();
  if (CUresult r = launch_all(); r != CUDA_SUCCESS) {
    rep.error = d.error("cuLaunchKernel", r);
    return;
  }
  WS_CHECK(cuCtxSynchronize)
  if (q.outputs == GpuOutputs::Arrays) {
    rep.arrays.resize(q.arrays.size());
    for (std::size_t i = 0; i < q.arrays.size(); ++i) {
      rep.arrays[i].resize(request_bytes(q, i));
      WS_CHECK(cuMemcpyDtoH, rep.arrays[i].data(), dptr[i], rep.arrays[i].size())
    }
  } else if (q.outputs == GpuOutputs::Check) {
    // Checked where it lies, by our reference (not the student's code): only the verdict
    // comes back. Its kernels run after the student's has ended, in the same context.
    std::vector<unsigned long long> ptr(dptr.begin(), dptr.end());
    if (std::string e = device_check(q, ptr, rep.check); !e.empty()) {
      rep.error = e;
      return;
    }
    rep.checked = true;
  }
  if (q.timing) {
    CUevent a = nullptr, z = nullptr;
    WS_CHECK(cuEventCreate, &a, CU_EVENT_DEFAULT)
    WS_CHECK(cuEventCreate, &z, CU_EVENT_DEFAULT)
    for (int w = 0; w < q.warmup; ++w) launch_all();
    for (int k = 0; k < std::max(q.repeats, 1); ++k) {
      WS_CHECK(cuEventRecord, a, nullptr)
      if (CUresult r = launch_all(); r != CUDA_SUCCESS) {
        rep.error = d.error("cuLaunchKernel", r);
        rep.arrays.clear();
        return;
      }
      WS_CHECK(cuEventRecord, z, nullptr)
      WS_CHECK(cuEventSynchronize, z)
      float t = 0;
      WS_CHECK(cuEventElapsedTime, &t, a, z)
      rep.samples_ms.push_back(t);
    }
  }

  // The traced build: once over fresh inputs, the whole grid counted on the device per
  // source site (the model's analysis, sim/access.h), one block's events kept.
  if (!q.traced_cubin.empty()) {
    CUmodule tm = nullptr;
    WS_CHECK(cuModuleLoadData, &tm, q.traced_cubin.data())
    CUfunction tf = nullptr;
    WS_CHECK(cuModuleGetFunction, &tf, tm, "ws_user_entry")
    if (CUresult r = opt_in_shared(tf); r != CUDA_SUCCESS) {
    rep.error = d.error("cuFuncSetAttribute", r);
    return;
  }
    CUdeviceptr ctl_at = 0;
    std::size_t ctl_bytes = 0;
    WS_CHECK(cuModuleGetGlobal, &ctl_at, &ctl_bytes, tm, q.trace_symbol.c_str())
    if (ctl_bytes != sizeof(cuda::TraceCtl)) {
      rep.error = "the traced build's control block has " + std::to_string(ctl_bytes) + " bytes, not " +
                  std::to_string(sizeof(cuda::TraceCtl));
      rep.arrays.clear();
      return;
    }
    const std::size_t cap = std::max<std::uint64_t>(q.event_capacity, 1);
    const std::size_t sites_bytes = sizeof(cuda::SiteSlot) * cuda::kSiteShards * cuda::kSiteSlots;
    const std::size_t recs_bytes = sizeof(cuda::SharedArrayRec) * cuda::kMaxSharedArrays;
    CUdeviceptr ev = 0, cnt = 0, recs = 0, flt = 0, sites = 0, full = 0;
    WS_CHECK(cuMemAlloc, &ev, cap * sizeof(WarpEvent))
    WS_CHECK(cuMemAlloc, &cnt, sizeof(unsigned long long))
    WS_CHECK(cuMemAlloc, &recs, recs_bytes)
    WS_CHECK(cuMemAlloc, &flt, sizeof(cuda::DeviceFault))
    WS_CHECK(cuMemAlloc, &sites, sites_bytes)
    WS_CHECK(cuMemAlloc, &full, sizeof(unsigned))
    if (std::string e = upload(); !e.empty()) {
      rep.error = e;
      rep.arrays.clear();
      return;
    }
    const sim::AccessModel m{};
    for (const GpuLaunch& l : q.launches) {
      WS_CHECK(cuMemsetD8, cnt, 0, sizeof(unsigned long long))
      WS_CHECK(cuMemsetD8, recs, 0, recs_bytes)
      WS_CHECK(cuMemsetD8, flt, 0, sizeof(cuda::DeviceFault))
      WS_CHECK(cuMemsetD8, sites, 0, sites_bytes)
      WS_CHECK(cuMemsetD8, full, 0, sizeof(unsigned))
      cuda::TraceCtl ctl{};
      ctl.events = reinterpret_cast<WarpEvent*>(ev);
      ctl.count = reinterpret_cast<unsigned long long*>(cnt);
      ctl.capacity = cap;
      ctl.block_lo = 0;
      ctl.block_hi = l.grid[0] * l.grid[1] * l.grid[2];
      ctl.arrays = reinterpret_cast<cuda::SharedArrayRec*>(recs);
      ctl.fault = reinterpret_cast<cuda::DeviceFault*>(flt);
      ctl.sites = reinterpret_cast<cuda::SiteSlot*>(sites);
      ctl.sites_full = reinterpret_cast<unsigned*>(full);
      ctl.batch = nullptr;  // each event counted by its warp's leader lane
      ctl.sector_bytes = m.sector_bytes;
      ctl.line_bytes = m.line_bytes;
      ctl.shared_banks = m.shared_banks;
      ctl.bank_bytes = m.bank_bytes;
      ctl.fetch_bytes = m.fetch_bytes;
      ctl.keep_all = 0;
      ctl.keep_n = 1;
      ctl.keep[0] = q.keep_block;
      WS_CHECK(cuMemcpyHtoD, ctl_at, &ctl, sizeof ctl)
      launching();
      if (CUresult r = d.cuLaunchKernel(tf, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                                        l.block[2], l.shared_bytes, nullptr, args.data(), nullptr);
          r != CUDA_SUCCESS) {
        rep.error = d.error("cuLaunchKernel (traced)", r);
        rep.arrays.clear();
        return;
      }
      WS_CHECK(cuCtxSynchronize)
      GpuTracedLaunch& t = rep.traced.emplace_back();
      WS_CHECK(cuMemcpyDtoH, &t.event_count, cnt, sizeof t.event_count)
      WS_CHECK(cuMemcpyDtoH, &t.sites_full, full, sizeof t.sites_full)
      t.fault.resize(sizeof(cuda::DeviceFault));
      WS_CHECK(cuMemcpyDtoH, t.fault.data(), flt, t.fault.size())
      t.shared_arrays.resize(recs_bytes);
      WS_CHECK(cuMemcpyDtoH, t.shared_arrays.data(), recs, recs_bytes)
      t.sites.resize(sites_bytes);
      WS_CHECK(cuMemcpyDtoH, t.sites.data(), sites, sites_bytes)
      t.events.resize(std::min<std::uint64_t>(t.event_count, cap) * sizeof(WarpEvent));
      if (!t.events.empty()) WS_CHECK(cuMemcpyDtoH, t.events.data(), ev, t.events.size())
      cuda::DeviceFault f{};
      std::memcpy(&f, t.fault.data(), sizeof f);
      if (f.kind != 0) break;  // later launches would read garbage
    }
  }
#undef WS_CHECK
  // The process ends next: the driver releases the context, the module and the memory.
}

std::string read_stdin() {
  std::string s;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(0, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    s.append(buf, std::size_t(n));
  }
  return s;
}

}  // namespace

int gpu_runner_main() {
  GpuRequest q;
  GpuReply rep;
  std::string why;
  int rc = 0;
  // The sandbox (kernels/user/sandbox.h): dies with warpscope (its pid in the environment, so a
  // parent gone before the death signal was armed is seen), and the GpuRunner filter, which
  // leaves CUDA its threads, ioctl and mmap on /dev/nvidia*, local sockets. Already in its
  // own session (spawned with POSIX_SPAWN_SETSID). WARPSCOPE_GPU_SECCOMP=0 leaves the
  // filter out, to tell a CUDA failure caused by it from another.
  if (const char* p = std::getenv("WARPSCOPE_GPU_RUNNER_PARENT"); p && *p) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (std::to_string(::getppid()) != p) return 4;
  }
  const char* sc = std::getenv("WARPSCOPE_GPU_SECCOMP");
  if (!(sc && std::string(sc) == "0") && sandbox::have_filter() &&
      !sandbox::install_filter(sandbox::Profile::GpuRunner, why)) {
    rep.error = "the GPU runner's sandbox could not start: " + why;
    rc = 2;
  } else if (!decode(read_stdin(), q, why)) {
    rep.error = "bad request: " + why;
    rc = 2;
  } else {
    run(q, rep);
    rc = rep.error.empty() ? 0 : 1;
  }
  const std::string out = encode(rep);
  std::size_t off = 0;
  while (off < out.size()) {
    const ssize_t w = ::write(1, out.data() + off, out.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return 3;
    off += std::size_t(w);
  }
  return rc;
}

}  // namespace ws::user

int main(int argc, char** argv) {
  if (argc > 1) {
    std::fprintf(stderr, "%s: runs one student kernel for warpscope (a request on stdin); it takes no arguments\n",
                 argv[0]);
    return 2;
  }
  return ws::user::gpu_runner_main();
}
