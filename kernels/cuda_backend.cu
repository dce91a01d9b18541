// The CUDA backend: runs a variant's fast build (timed with CUDA events), verifies it,
// then its traced build for the kept blocks and, a range of blocks at a time, for the
// whole-grid model totals. Also times the peers (cudaMemcpy, CUB, cuBLAS).
//
// Every CUDA failure becomes one sentence naming the call; nothing here throws out of
// the Backend interface.
#include "kernels/cuda_backend.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_reduce.cuh>
#include <deque>
#include <exception>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "kernels/cupti_profiler.h"
#include "kernels/simt_cuda.h"
#include "sim/model.h"

namespace ws::cuda {
namespace {

// A run's CUDA failure, carried to the top of run()/run_peer() where it becomes text.
struct Failure {
  std::string what;
};

void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw Failure{cuda_error_text(call, e)};
}

std::string version_text(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string mb(std::uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MB", double(bytes) / 1e6);
  return b;
}

// Device memory owned by one run.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (p_) cudaFree(p_);
  }
  // Throws Failure with the array's name and size when the device is out of memory.
  void allocate(std::size_t bytes, const std::string& what) {
    bytes_ = bytes;
    cudaError_t e = cudaMalloc(&p_, std::max<std::size_t>(bytes, 1));
    if (e != cudaSuccess) {
      p_ = nullptr;
      cudaGetLastError();  // clear a non-sticky allocation error
      std::size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      throw Failure{"not enough GPU memory for " + what + " (" + mb(bytes) + " asked, " +
                    mb(free_b) + " free): " + cuda_error_text("cudaMalloc", e)};
    }
  }
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

class Event {
 public:
  Event() { check(cudaEventCreate(&e_), "cudaEventCreate"); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : e_(o.e_) { o.e_ = nullptr; }
  ~Event() {
    if (e_) cudaEventDestroy(e_);
  }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// Times `body` (which queues work on `s`): warm-up, then one pair of events around each
// of `repeats` runs; median, min and max of the samples.
template <class F>
Timing time_on_stream(cudaStream_t s, int warmup, int repeats, F&& body) {
  // A cancel (RunControl) takes effect between batches: the kernels queued finish first.
  throw_if_cancelled();
  for (int i = 0; i < warmup; ++i) body();
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize (warm-up)");
  throw_if_cancelled();
  repeats = std::max(repeats, 1);
  std::vector<Event> start(repeats), stop(repeats);
  for (int i = 0; i < repeats; ++i) {
    check(cudaEventRecord(start[i].get(), s), "cudaEventRecord");
    body();
    check(cudaEventRecord(stop[i].get(), s), "cudaEventRecord");
  }
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize (timed runs)");
  Timing t;
  t.measured = true;
  for (int i = 0; i < repeats; ++i) {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start[i].get(), stop[i].get()), "cudaEventElapsedTime");
    t.samples_ms.push_back(ms);
  }
  std::vector<double> sorted = t.samples_ms;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  t.median_ms = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  t.min_ms = sorted.front();
  t.max_ms = sorted.back();
  return t;
}

// Pseudo-random fill on the device (peers): a hash of the index, so the host can
// recompute any element to check a result.
__host__ __device__ inline std::uint32_t mix(std::uint64_t i, std::uint32_t seed) {
  std::uint64_t z = i * 0x9E3779B97F4A7C15ull + seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return std::uint32_t(z ^ (z >> 31));
}
__host__ __device__ inline float unit_float(std::uint64_t i, std::uint32_t seed) {
  return float(mix(i, seed) >> 8) * (2.0f / 16777216.0f) - 1.0f;  // [-1, 1)
}
__host__ __device__ inline int small_int(std::uint64_t i, std::uint32_t seed) {
  return int(mix(i, seed) % 17u) - 8;  // [-8, 8]: 2^28 of them cannot overflow an int
}
__global__ void fill_floats(float* p, std::uint64_t n, std::uint32_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    p[i] = unit_float(i, seed);
}
__global__ void fill_ints(int* p, std::uint64_t n, std::uint32_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    p[i] = small_int(i, seed);
}
// Lets make_backend() ask whether this build holds code for the device at all.
__global__ void probe_kernel() {}

std::string param_or(const Params& p, const char* key, long long& out) {
  auto it = p.find(key);
  if (it == p.end()) return std::string("missing parameter ") + key;
  out = it->second;
  return "";
}

// The traced passes of one run: which blocks of which launch each pass traces, the
// drain of the event buffer after each traced launch, the sinks per launch.
class TraceSession : public TraceHooks {
 public:
  struct Buffers {
    WarpEvent* events;
    unsigned long long* count;
    unsigned long long capacity;
    SharedArrayRec* arrays;
    DeviceFault* fault;
  };
  struct Range {
    std::uint32_t lo, hi;
  };

  TraceSession(cudaStream_t s, const Buffers& b, const Plan& plan, const VariantInfo& v,
               const RunOptions& opt)
      : stream_(s), buf_(b), plan_(plan), opt_(opt) {
    const std::size_t n = plan.launches.size();
    pending_.resize(n);
    per_block_.assign(n, 0);
    totals_.resize(n);
    arrays_seen_.assign(n, false);
    keep_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const LaunchCfg& c = plan.launches[i];
      const std::uint64_t blocks = c.grid.count();
      const std::uint32_t nb = std::uint32_t(std::min<std::uint64_t>(blocks, 0xFFFFFFFFull));
      if (opt.totals || opt.keep_all_blocks) {
        if (nb) pending_[i].push_back({0, nb});
      } else {
        std::set<std::uint32_t> ks(opt.keep_blocks.begin(), opt.keep_blocks.end());
        for (std::uint32_t b : ks) {
          if (b >= nb) continue;
          if (!pending_[i].empty() && pending_[i].back().hi == b)
            pending_[i].back().hi = b + 1;
          else
            pending_[i].push_back({b, b + 1});
        }
      }
      LaunchInfo info;
      info.kernel = c.kernel;
      info.source_file = v.source_file;
      info.grid = c.grid;
      info.block = c.block;
      info.shared_bytes = c.shared_bytes;
      for (std::size_t a = 0; a < plan.arrays.size(); ++a) {
        const ArraySpec& s2 = plan.arrays[a];
        info.arrays.push_back(
            ArrayDesc{std::uint8_t(a), Space::Global, s2.name, s2.elem_bytes, s2.count, 0});
      }
      keep_.emplace_back(opt.keep_all_blocks ? std::vector<std::uint32_t>{} : opt.keep_blocks);
      keep_.back().begin_launch(info);
    }
  }

  bool done() const {
    for (const auto& q : pending_)
      if (!q.empty()) return false;
    return true;
  }

  // Picks this pass's range for every launch that still has blocks to trace. Returns
  // the last launch the pass must run (earlier ones run untraced if they have none).
  int plan_pass() {
    current_.assign(pending_.size(), Range{0, 0});
    int last = -1;
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      if (pending_[i].empty()) continue;
      Range r = pending_[i].front();
      pending_[i].pop_front();
      std::uint32_t chunk = 1;  // until one block's events are known
      if (per_block_[i] > 0)
        chunk = std::uint32_t(std::max<unsigned long long>(
            1, (buf_.capacity * 9 / 10) / per_block_[i]));
      if (r.hi - r.lo > chunk) {
        pending_[i].push_front({r.lo + chunk, r.hi});
        r.hi = r.lo + chunk;
      }
      current_[i] = r;
      last = int(i);
    }
    last_ = last;
    return last;
  }

  bool before(int index, const LaunchCfg&, TraceCtl& ctl, std::string& error) override {
    if (index > last_) return false;
    const Range r = current_.at(index);
    ctl.events = buf_.events;
    ctl.count = buf_.count;
    ctl.capacity = buf_.capacity;
    ctl.block_lo = r.lo;
    ctl.block_hi = r.hi;
    ctl.arrays = buf_.arrays;
    ctl.fault = buf_.fault;
    try {
      check(cudaMemsetAsync(buf_.count, 0, sizeof(unsigned long long), stream_),
            "cudaMemsetAsync(trace count)");
      check(cudaMemsetAsync(buf_.fault, 0, sizeof(DeviceFault), stream_),
            "cudaMemsetAsync(trace fault)");
      check(cudaMemsetAsync(buf_.arrays, 0, sizeof(SharedArrayRec) * kMaxSharedArrays, stream_),
            "cudaMemsetAsync(shared array table)");
    } catch (const Failure& f) {
      error = f.what;
      return false;
    }
    return true;
  }

  void after(int index, const LaunchCfg& cfg, std::string& error) override {
    try {
      drain(index, cfg);
    } catch (const Failure& f) {
      error = f.what.empty() ? "stopped at a fault of the traced build" : f.what;
    }
  }

  std::vector<sim::Problem>& problems() { return problems_; }
  const std::vector<sim::TotalsSink>& totals() const { return totals_; }
  std::vector<KeptLaunch> kept() {
    std::vector<KeptLaunch> out;
    for (auto& k : keep_) {
      if (!k.launches().empty()) out.push_back(std::move(k.launches().front()));
    }
    return out;
  }

 private:
  void drain(int index, const LaunchCfg& cfg) {
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (traced launch)");
    unsigned long long count = 0;
    DeviceFault fault{};
    check(cudaMemcpy(&count, buf_.count, sizeof count, cudaMemcpyDeviceToHost),
          "cudaMemcpy(trace count)");
    check(cudaMemcpy(&fault, buf_.fault, sizeof fault, cudaMemcpyDeviceToHost),
          "cudaMemcpy(trace fault)");
    const Range r = current_.at(index);
    if (fault.kind != 0) {
      problems_.push_back(to_problem(fault, cfg));
      throw Failure{""};  // stops the passes; the problem says why
    }
    if (!arrays_seen_[index]) {
      SharedArrayRec recs[kMaxSharedArrays];
      check(cudaMemcpy(recs, buf_.arrays, sizeof recs, cudaMemcpyDeviceToHost),
            "cudaMemcpy(shared array table)");
      for (const SharedArrayRec& a : recs) {
        if (a.elem_bytes == 0) continue;
        ArrayDesc d{a.id, Space::Shared, std::string(a.name), a.elem_bytes, a.count, a.offset,
                    a.cols};
        keep_[index].on_array(d);
      }
      arrays_seen_[index] = true;
    }
    const std::uint32_t blocks = r.hi - r.lo;
    if (count > buf_.capacity) {
      if (blocks == 1)
        throw Failure{"block " + std::to_string(r.lo) + " of " + describe(cfg) + " writes " +
                      std::to_string(count) + " warp events, more than the trace buffer's " +
                      std::to_string(buf_.capacity)};
      // Retry the range in smaller chunks, sized from the events it asked for.
      per_block_[index] = std::max(per_block_[index], (count + blocks - 1) / blocks);
      pending_[index].push_front(r);
      return;
    }
    per_block_[index] = std::max(per_block_[index], (count + blocks - 1) / std::max(blocks, 1u));
    if (per_block_[index] == 0) per_block_[index] = 1;
    host_.resize(count);
    if (count)
      check(cudaMemcpy(host_.data(), buf_.events, count * sizeof(WarpEvent),
                       cudaMemcpyDeviceToHost),
            "cudaMemcpy(trace events)");
    const bool keep = opt_.keep_all_blocks || !opt_.keep_blocks.empty();
    for (const WarpEvent& e : host_) {
      if (opt_.totals) totals_[index].on_event(e);
      if (keep) keep_[index].on_event(e);
    }
  }

  sim::Problem to_problem(const DeviceFault& f, const LaunchCfg& cfg) const {
    sim::Problem p;
    p.line = std::uint16_t(f.line);
    p.block = f.block;
    p.thread = f.thread;
    if (FaultKind(f.kind) == FaultKind::Deadlock) {
      p.kind = sim::ProblemKind::Deadlock;
      p.message = "line " + std::to_string(f.line) + ": the lanes of a warp of block " +
                  std::to_string(f.block) + " wait for each other (" +
                  to_string(FaultKind::Deadlock) +
                  "): a collective names lanes that exited or wait at a barrier";
      return p;
    }
    if (FaultKind(f.kind) == FaultKind::SharedOverflow) {
      p.kind = sim::ProblemKind::SharedOverflow;
      p.message = "line " + std::to_string(f.line) + ": shared arrays need " +
                  std::to_string(f.index) + " bytes but " + cfg.kernel + " was launched with " +
                  std::to_string(f.extent) + " (block " + std::to_string(f.block) + ")";
      return p;
    }
    p.kind = sim::ProblemKind::OutOfBounds;
    std::string name = "#" + std::to_string(f.array);
    if (!f.shared && f.array < plan_.arrays.size()) name = "'" + plan_.arrays[f.array].name + "'";
    p.message = "line " + std::to_string(f.line) + ": " + (f.shared ? "shared" : "global") +
                " index " + std::to_string(f.index) + " is outside array " + name + " of " +
                std::to_string(f.extent) + " elements (block " + std::to_string(f.block) +
                ", thread " + std::to_string(f.thread) + ")";
    return p;
  }

  cudaStream_t stream_;
  Buffers buf_;
  const Plan& plan_;
  const RunOptions& opt_;
  std::vector<std::deque<Range>> pending_;
  std::vector<unsigned long long> per_block_;  // most events one block has asked for
  std::vector<Range> current_;
  int last_ = -1;
  std::vector<sim::TotalsSink> totals_;
  std::vector<KeepSink> keep_;
  std::vector<bool> arrays_seen_;
  std::vector<WarpEvent> host_;
  std::vector<sim::Problem> problems_;
};

class CudaBackend final : public Backend {
 public:
  CudaBackend(int device, DeviceInfo info, cudaStream_t stream)
      : device_(device), info_(std::move(info)), stream_(stream) {}
  ~CudaBackend() override {
    cudaFree(trace_events_);
    cudaFree(trace_misc_);
    if (cublas_) cublasDestroy(cublas_);
    cudaStreamDestroy(stream_);
  }

  BackendKind kind() const override { return BackendKind::Cuda; }
  DeviceInfo device() const override { return info_; }

  RunResult run(const std::string& family, const std::string& variant, const Params& params,
                const RunOptions& opt) override {
    RunResult r;
    bool cuda_failed = false;
    // Polled between kernels and in the reference: the run's control, else the thread's.
    ThreadControlScope scope(opt.control ? opt.control : thread_control());
    try {
      run_impl(family, variant, params, opt, r);
    } catch (const RunCancelled&) {
      r.cancelled = true;
      r.verified = false;
      r.error = "cancelled";
    } catch (const Failure& f) {
      r.error = f.what;
      cuda_failed = true;
    } catch (const std::exception& e) {
      r.error = family + "/" + variant + ": " + e.what();
    }
    if (cuda_failed) {
      // A failed kernel can leave a sticky error; say so instead of failing later runs
      // with an unrelated message.
      cudaError_t sticky = cudaDeviceSynchronize();
      if (sticky != cudaSuccess)
        r.error += " (the GPU context is now unusable: " +
                   cuda_error_text("cudaDeviceSynchronize", sticky) + "; restart warpscope)";
    }
    return r;
  }

  PeerResult run_peer(Peer p, const Params& params, const RunOptions& opt) override {
    PeerResult r;
    r.peer = p;
    try {
      check(cudaSetDevice(device_), "cudaSetDevice");
      switch (p) {
        case Peer::MemcpyD2D: r.timing = peer_memcpy(params, opt); break;
        case Peer::CubReduceSum: r.timing = peer_cub(params, opt); break;
        case Peer::CublasSgemm: r.timing = peer_sgemm(params, opt); break;
      }
    } catch (const Failure& f) {
      r.error = std::string(to_string(p)) + ": " + f.what;
    } catch (const std::exception& e) {
      r.error = std::string(to_string(p)) + ": " + e.what();
    }
    return r;
  }

 private:
  void run_impl(const std::string& family, const std::string& variant, const Params& params,
                const RunOptions& opt, RunResult& r) {
    const VariantInfo* v = fast_info(family, variant);
    if (!v) {
      std::string names;
      for (const VariantInfo* i : fast_catalogue())
        if (i->family == family) names += (names.empty() ? "" : ", ") + i->name;
      r.rejected = true;
      r.error = names.empty() ? "unknown kernel family '" + family + "'"
                              : "unknown variant '" + variant + "' of " + family +
                                    " (variants: " + names + ")";
      return;
    }
    r.error = validate(*v, params, info_.limits, r.params);
    r.rejected = !r.error.empty();
    if (r.rejected) return;
    r.plan = v->plan(r.params);
    check(cudaSetDevice(device_), "cudaSetDevice");

    HostArrays host = HostArrays::allocate(r.plan);
    v->init(host, r.params, opt.seed);

    std::vector<std::unique_ptr<DeviceBuffer>> dev;
    DeviceArrays d;
    for (const ArraySpec& a : r.plan.arrays) {
      dev.push_back(std::make_unique<DeviceBuffer>());
      dev.back()->allocate(std::size_t(a.count) * a.elem_bytes, "array '" + a.name + "'");
      d.ptr.push_back(dev.back()->get());
      d.count.push_back(a.count);
    }
    upload(host, r.plan, d);

    // The fast build: once, or warm-up plus timed runs (the output of the last is checked).
    auto fast = [&] {
      std::string e = launch_fast(family, variant, r.params, r.plan, d, stream_, &r.regs_per_thread);
      if (!e.empty()) throw Failure{e};
    };
    if (opt.timing) {
      r.timing = time_on_stream(stream_, std::max(opt.warmup, 0), opt.repeats, fast);
      const double ms = r.timing.median_ms;
      if (r.plan.gflops()) {
        r.timing.unit = "GFLOP/s";
        r.timing.throughput = ms > 0 ? r.plan.flops / (ms * 1e6) : 0;
      } else {
        r.timing.unit = "GB/s";
        r.timing.throughput = ms > 0 ? r.plan.logical_bytes / (ms * 1e6) : 0;
      }
    } else {
      fast();
    }
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (fast run)");
    download(host, r.plan, d);
    r.verify_message = v->verify(host, r.params);
    r.verified = r.verify_message.empty();

    // The hardware's counters of the same fast build (kernels/cupti_profiler.cpp); every
    // replay pass starts from the same inputs.
    if (opt.hardware_runs > 0)
      r.hardware = profile_counters(info_.name, opt.hardware_runs,
                                    [&] { upload(host, r.plan, d); }, fast);
    if (opt.hardware_runs > 0 && opt.hardware_lines && r.hardware.ok()) {
      upload(host, r.plan, d);
      profile_sass_lines(r.hardware, fast);
    }

    // The traced build: kept blocks and whole-grid totals.
    const bool keep = opt.keep_all_blocks || !opt.keep_blocks.empty();
    if (!keep && !opt.totals) return;
    ensure_trace_buffers();
    TraceSession::Buffers b{trace_events_, trace_count_, trace_capacity_, trace_arrays_,
                            trace_fault_};
    TraceSession ts(stream_, b, r.plan, *v, opt);
    bool traced_checked = false;
    while (!ts.done()) {
      throw_if_cancelled();
      const int last = ts.plan_pass();
      upload(host, r.plan, d);  // each pass starts from the same inputs
      std::string e = launch_traced(family, variant, r.params, r.plan, d, stream_, ts);
      if (!ts.problems().empty()) {
        r.problems = ts.problems();
        break;
      }
      if (!e.empty()) throw Failure{e};
      check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (traced run)");
      // The traced build must compute what the fast one did: checked once, on a pass
      // that ran every launch.
      if (!traced_checked && last == int(r.plan.launches.size()) - 1) {
        download(host, r.plan, d);
        std::string m = v->verify(host, r.params);
        if (!m.empty() && r.verified) {
          r.verified = false;
          r.verify_message = "the traced build computed a different result: " + m;
        }
      }
      traced_checked = traced_checked || last == int(r.plan.launches.size()) - 1;
    }
    r.kept = ts.kept();
    for (std::size_t i = 0; i < r.plan.launches.size(); ++i) {
      LaunchTotals lt{r.plan.launches[i], ts.totals()[i].totals()};
      r.totals.merge(lt.totals);
      r.launches.push_back(std::move(lt));
    }
  }

  // Inputs from the host copies; outputs poisoned (all bits set: NaN for floats, -1 for
  // integers) so an element the kernel never writes cannot pass verification.
  void upload(const HostArrays& h, const Plan& plan, const DeviceArrays& d) {
    for (std::size_t i = 0; i < plan.arrays.size(); ++i) {
      const std::size_t bytes = std::size_t(plan.arrays[i].count) * plan.arrays[i].elem_bytes;
      if (plan.arrays[i].output)
        check(cudaMemsetAsync(d.ptr[i], 0xFF, bytes, stream_), "cudaMemsetAsync(poison output)");
      else
        check(cudaMemcpyAsync(d.ptr[i], h.data[i].data(), bytes, cudaMemcpyHostToDevice,
                              stream_),
              "cudaMemcpyAsync(input to device)");
    }
  }
  void download(HostArrays& h, const Plan& plan, const DeviceArrays& d) {
    for (std::size_t i = 0; i < plan.arrays.size(); ++i) {
      if (!plan.arrays[i].output) continue;
      const std::size_t bytes = std::size_t(plan.arrays[i].count) * plan.arrays[i].elem_bytes;
      check(cudaMemcpyAsync(h.data[i].data(), d.ptr[i], bytes, cudaMemcpyDeviceToHost, stream_),
            "cudaMemcpyAsync(output to host)");
    }
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (output to host)");
  }

  // The event buffer: 2^21 events (about 300 MB), less on a device with little free
  // memory or when WS_CUDA_TRACE_EVENTS asks for fewer; allocated on the first traced
  // run and kept.
  void ensure_trace_buffers() {
    if (trace_events_) return;
    std::size_t free_b = 0, total_b = 0;
    check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    unsigned long long cap = 1ull << 21;
    cap = std::min<unsigned long long>(cap, free_b / 8 / sizeof(WarpEvent));
    if (cap < 4096) throw Failure{"not enough free GPU memory for the trace buffer"};
    // A smaller buffer on request: the tests use it to force many chunks.
    if (const char* env = std::getenv("WS_CUDA_TRACE_EVENTS")) {
      const unsigned long long want = std::strtoull(env, nullptr, 10);
      if (want >= 64) cap = std::min(cap, want);
    }
    check(cudaMalloc(reinterpret_cast<void**>(&trace_events_), cap * sizeof(WarpEvent)),
          "cudaMalloc(trace buffer)");
    const std::size_t misc = 256 + sizeof(SharedArrayRec) * kMaxSharedArrays + sizeof(DeviceFault);
    check(cudaMalloc(&trace_misc_, misc), "cudaMalloc(trace control)");
    auto* base = static_cast<unsigned char*>(trace_misc_);
    trace_count_ = reinterpret_cast<unsigned long long*>(base);
    trace_fault_ = reinterpret_cast<DeviceFault*>(base + 64);
    trace_arrays_ = reinterpret_cast<SharedArrayRec*>(base + 256);
    trace_capacity_ = cap;
  }

  // --- peers ---

  void fits(std::uint64_t bytes, const char* what) {
    std::size_t free_b = 0, total_b = 0;
    check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    if (bytes > free_b)
      throw Failure{std::string(what) + " needs " + mb(bytes) + " of GPU memory, " + mb(free_b) +
                    " is free"};
  }

  // The bytes a copy must move to match a variant's run: given as bytes=B (what
  // peer_params() gives a caller that holds the run's plan: the CLI and the lessons), or,
  // for a caller that passes only a variant's parameters, half the logical bytes (read +
  // written) of the plan of the first catalogue variant whose parameter names are exactly
  // the given ones. Variants of one family can differ a little for the same parameters (a
  // reduction's partial sums depend on its grid): within 5% the first one sizes the copy.
  long long copy_bytes(const Params& p) {
    long long bytes = 0;
    if (param_or(p, "bytes", bytes).empty()) return bytes;
    std::vector<double> sizes;
    for (const VariantInfo* v : fast_catalogue()) {
      if (v->params.size() != p.size()) continue;
      bool same = true;
      for (const ParamSpec& s : v->params) same = same && p.count(s.name);
      Params done;
      if (!same || !validate(*v, p, info_.limits, done).empty()) continue;
      sizes.push_back(v->plan(done).logical_bytes);
    }
    if (sizes.empty()) throw Failure{"give the copy's size as bytes=B, or a variant's parameters"};
    const auto [lo, hi] = std::minmax_element(sizes.begin(), sizes.end());
    if (*hi > 1.05 * *lo)
      throw Failure{"the parameters fit variants of different sizes (" + mb(std::uint64_t(*lo)) +
                    " to " + mb(std::uint64_t(*hi)) + "): give bytes=B"};
    return (long long)(sizes.front() / 2);
  }

  Timing peer_memcpy(const Params& p, const RunOptions& opt) {
    const long long bytes = copy_bytes(p);
    if (bytes <= 0) throw Failure{"the copy's size must be positive (bytes=B)"};
    fits(2ull * std::uint64_t(bytes), "the copy");
    DeviceBuffer src, dst;
    src.allocate(std::size_t(bytes), "the copy's source");
    dst.allocate(std::size_t(bytes), "the copy's destination");
    const std::uint64_t words = std::uint64_t(bytes) / 4;
    fill_ints<<<1024, 256, 0, stream_>>>(static_cast<int*>(src.get()), words, 7);
    check(cudaGetLastError(), "fill_ints launch");
    Timing t = time_on_stream(stream_, std::max(opt.warmup, 1), opt.repeats, [&] {
      check(cudaMemcpyAsync(dst.get(), src.get(), std::size_t(bytes), cudaMemcpyDeviceToDevice,
                            stream_),
            "cudaMemcpyAsync(device to device)");
    });
    // Spot-check the copy: first, middle and last words.
    for (std::uint64_t i : {std::uint64_t(0), words / 2, words ? words - 1 : 0}) {
      if (!words) break;
      int got = 0;
      check(cudaMemcpy(&got, static_cast<int*>(dst.get()) + i, 4, cudaMemcpyDeviceToHost),
            "cudaMemcpy(check)");
      if (got != small_int(i, 7))
        throw Failure{"the device-to-device copy returned a wrong word at " + std::to_string(i)};
    }
    t.unit = "GB/s";
    t.throughput = 2.0 * double(bytes) / (t.median_ms * 1e6);  // read + written
    return t;
  }

  Timing peer_cub(const Params& p, const RunOptions& opt) {
    long long n = 0;
    if (!param_or(p, "n", n).empty() || n <= 0 || n > (1ll << 31) - 1)
      throw Failure{"give the reduction's size as n=N ints (0 < N < 2^31)"};
    fits(std::uint64_t(n) * 4 + 64, "the reduction");
    DeviceBuffer in, out, temp;
    in.allocate(std::size_t(n) * 4, "the reduction's input");
    out.allocate(sizeof(int), "the reduction's output");
    fill_ints<<<1024, 256, 0, stream_>>>(static_cast<int*>(in.get()), std::uint64_t(n), 11);
    check(cudaGetLastError(), "fill_ints launch");
    std::size_t temp_bytes = 0;
    check(cub::DeviceReduce::Sum(nullptr, temp_bytes, static_cast<int*>(in.get()),
                                 static_cast<int*>(out.get()), int(n), stream_),
          "cub::DeviceReduce::Sum (temporary storage size)");
    temp.allocate(temp_bytes, "CUB's temporary storage");
    Timing t = time_on_stream(stream_, std::max(opt.warmup, 1), opt.repeats, [&] {
      check(cub::DeviceReduce::Sum(temp.get(), temp_bytes, static_cast<int*>(in.get()),
                                   static_cast<int*>(out.get()), int(n), stream_),
            "cub::DeviceReduce::Sum");
    });
    int got = 0;
    check(cudaMemcpy(&got, out.get(), sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy(sum)");
    long long want = 0;
    for (long long i = 0; i < n; ++i) want += small_int(std::uint64_t(i), 11);
    if (got != want)
      throw Failure{"CUB's sum is " + std::to_string(got) + ", expected " + std::to_string(want)};
    t.unit = "GB/s";
    t.throughput = (4.0 * double(n) + 4.0) / (t.median_ms * 1e6);
    return t;
  }

  Timing peer_sgemm(const Params& p, const RunOptions& opt) {
    long long n = 0;
    if (!param_or(p, "n", n).empty() || n <= 0 || n > 32768)
      throw Failure{"give the matrix side as n=N (0 < N <= 32768)"};
    const std::size_t bytes = std::size_t(n) * std::size_t(n) * 4;
    fits(3ull * bytes, "SGEMM");
    DeviceBuffer a, b, c;
    a.allocate(bytes, "matrix A");
    b.allocate(bytes, "matrix B");
    c.allocate(bytes, "matrix C");
    const std::uint64_t nn = std::uint64_t(n) * std::uint64_t(n);
    fill_floats<<<1024, 256, 0, stream_>>>(static_cast<float*>(a.get()), nn, 3);
    fill_floats<<<1024, 256, 0, stream_>>>(static_cast<float*>(b.get()), nn, 5);
    check(cudaGetLastError(), "fill_floats launch");
    if (!cublas_) {
      cublasStatus_t s = cublasCreate(&cublas_);
      if (s != CUBLAS_STATUS_SUCCESS) {
        cublas_ = nullptr;
        throw Failure{std::string("cublasCreate: ") + cublasGetStatusString(s)};
      }
    }
    auto ok = [](cublasStatus_t s, const char* call) {
      if (s != CUBLAS_STATUS_SUCCESS) throw Failure{std::string(call) + ": " + cublasGetStatusString(s)};
    };
    ok(cublasSetStream(cublas_, stream_), "cublasSetStream");
    // Plain FP32: no TF32 tensor-core shortcut, so it does the arithmetic our kernels do.
    ok(cublasSetMathMode(cublas_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    const float one = 1.f, zero = 0.f;
    const int in = int(n);
    Timing t = time_on_stream(stream_, std::max(opt.warmup, 1), opt.repeats, [&] {
      ok(cublasSgemm(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, in, in, in, &one,
                     static_cast<const float*>(a.get()), in, static_cast<const float*>(b.get()),
                     in, &zero, static_cast<float*>(c.get()), in),
         "cublasSgemm");
    });
    // Spot-check a few entries (column-major: C(i,j) = sum_k A(i,k) B(k,j)) in double.
    for (long long probe : {0ll, n / 3, n - 1}) {
      const long long i = probe, j = (probe * 7 + 1) % n;
      double want = 0, mag = 0;
      for (long long k = 0; k < n; ++k) {
        const double x = unit_float(std::uint64_t(k * n + i), 3);
        const double y = unit_float(std::uint64_t(j * n + k), 5);
        want += x * y;
        mag += std::fabs(x * y);
      }
      float got = 0;
      check(cudaMemcpy(&got, static_cast<float*>(c.get()) + (j * n + i), 4,
                       cudaMemcpyDeviceToHost),
            "cudaMemcpy(check)");
      if (!(std::fabs(got - want) <= 1e-4 * mag + 1e-6))
        throw Failure{"cuBLAS C(" + std::to_string(i) + "," + std::to_string(j) + ") = " +
                      std::to_string(got) + ", expected " + std::to_string(want)};
    }
    t.unit = "GFLOP/s";
    t.throughput = 2.0 * double(n) * double(n) * double(n) / (t.median_ms * 1e6);
    return t;
  }

  int device_;
  DeviceInfo info_;
  cudaStream_t stream_;
  cublasHandle_t cublas_ = nullptr;
  WarpEvent* trace_events_ = nullptr;
  void* trace_misc_ = nullptr;
  unsigned long long* trace_count_ = nullptr;
  DeviceFault* trace_fault_ = nullptr;
  SharedArrayRec* trace_arrays_ = nullptr;
  unsigned long long trace_capacity_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_backend(std::string& why) {
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorInsufficientDriver || (e == cudaSuccess && drv > 0 && drv < rt)) {
    cudaGetLastError();
    why = drv == 0 ? "no NVIDIA driver is loaded (" + cuda_error_text("cudaGetDeviceCount", e) + ")"
                   : "the NVIDIA driver supports CUDA " + version_text(drv) +
                         " but warpscope was built with CUDA " + version_text(rt) +
                         ": update the driver";
    return nullptr;
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    why = "no usable CUDA device: " + cuda_error_text("cudaGetDeviceCount", e);
    return nullptr;
  }
  if (count == 0) {
    why = "no CUDA device found";
    return nullptr;
  }
  const int dev = 0;
  auto fail = [&](const char* call, cudaError_t err) {
    cudaGetLastError();
    why = "the CUDA device could not be used: " + cuda_error_text(call, err);
    return nullptr;
  };
  if ((e = cudaSetDevice(dev)) != cudaSuccess) return fail("cudaSetDevice", e);
  cudaDeviceProp prop{};
  if ((e = cudaGetDeviceProperties(&prop, dev)) != cudaSuccess)
    return fail("cudaGetDeviceProperties", e);
  cudaFuncAttributes fa{};
  if ((e = cudaFuncGetAttributes(&fa, probe_kernel)) != cudaSuccess) {
    cudaGetLastError();
    why = "this build of warpscope holds no GPU code for the " + std::string(prop.name) +
          " (compute capability " + std::to_string(prop.major) + "." +
          std::to_string(prop.minor) + "); rebuild with -DCMAKE_CUDA_ARCHITECTURES=" +
          std::to_string(prop.major) + std::to_string(prop.minor) + " (" +
          cuda_error_text("cudaFuncGetAttributes", e) + ")";
    return nullptr;
  }
  int mem_khz = 0, bus = 0;
  if ((e = cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev)) != cudaSuccess)
    return fail("cudaDeviceGetAttribute(MemoryClockRate)", e);
  if ((e = cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev)) != cudaSuccess)
    return fail("cudaDeviceGetAttribute(GlobalMemoryBusWidth)", e);

  DeviceInfo info;
  info.name = prop.name;
  info.driver = version_text(drv);
  info.runtime = version_text(rt);
  info.sm_count = prop.multiProcessorCount;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.mem_clock_mhz = mem_khz / 1000.0;
  int sm_khz = 0;
  if (cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, dev) == cudaSuccess)
    info.sm_clock_mhz = sm_khz / 1000.0;
  info.bus_width_bits = bus;
  // Double data rate: two transfers per clock over bus/8 bytes.
  info.peak_gbps = 2.0 * (mem_khz * 1e3) * (bus / 8.0) / 1e9;
  info.l2_bytes = std::uint64_t(prop.l2CacheSize);
  DeviceLimits& l = info.limits;
  l.name = prop.name;
  l.max_threads_per_block = prop.maxThreadsPerBlock;
  l.max_block = {unsigned(prop.maxThreadsDim[0]), unsigned(prop.maxThreadsDim[1]),
                 unsigned(prop.maxThreadsDim[2])};
  l.max_grid = {unsigned(prop.maxGridSize[0]), unsigned(prop.maxGridSize[1]),
                unsigned(prop.maxGridSize[2])};
  l.max_shared_per_block = std::uint32_t(prop.sharedMemPerBlock);
  l.max_shared_per_block_optin = std::uint32_t(prop.sharedMemPerBlockOptin);
  l.sm_count = prop.multiProcessorCount;
  l.warp_size = prop.warpSize;

  cudaStream_t stream = nullptr;
  if ((e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)) != cudaSuccess)
    return fail("cudaStreamCreateWithFlags", e);
  why.clear();
  return std::make_unique<CudaBackend>(dev, std::move(info), stream);
}

}  // namespace ws::cuda
