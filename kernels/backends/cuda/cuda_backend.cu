// The CUDA backend: runs a variant's fast build (timed with CUDA events) on inputs made on
// the device, verifies its output on the device, then its traced build for the kept
// blocks and the whole-grid counters (accumulated on the device). The pieces live in
// kernels/backends/cuda/: buffers (pool, inputs), verify, trace_session, peers, device_query.
//
// Every CUDA failure becomes one sentence naming the call; nothing here throws out of
// the Backend interface.
#include "kernels/backends/cuda/cuda_backend.h"

#include <cstdlib>
#include <exception>
#include <memory>

#include "kernels/backends/cuda/common.h"
#include "kernels/backends/cuda/trace_session.h"
#include "kernels/hardware/cupti_profiler.h"
#include "sim/model.h"

namespace ws::cuda {
namespace {

class CudaBackend final : public Backend {
 public:
  CudaBackend(int device, DeviceInfo info, cudaStream_t stream)
      : device_(device), info_(std::move(info)), stream_(stream) {}
  ~CudaBackend() override {
    pool_.clear();
    trace_events_.release();
    trace_misc_.release();
    cudaStreamDestroy(stream_);
  }

  BackendKind kind() const override { return BackendKind::Cuda; }
  DeviceInfo device() const override { return info_; }

  RunResult run(const std::string& family, const std::string& variant, const Params& params,
                const RunOptions& opt) override {
    RunResult r;
    bool cuda_failed = false;
    // Polled between kernels and stages: the run's control, else the thread's.
    ThreadControlScope scope(opt.control ? opt.control : thread_control());
    try {
      run_impl(family, variant, params, opt, r);
      if (opt.timing) r.timing.source = sim::Provenance::measured(info_.name);
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
    pool_.release_all();
    if (cuda_failed) sticky(r.error);
    return r;
  }

  PeerResult run_peer(Peer p, const Params& params, const RunOptions& opt) override {
    PeerResult r;
    r.peer = p;
    bool cuda_failed = false;
    try {
      check(cudaSetDevice(device_), "cudaSetDevice");
      pool_.release_all();
      switch (p) {
        case Peer::MemcpyD2D: r.timing = peer_memcpy(params, opt, stream_, pool_); break;
        case Peer::CubReduceSum: r.timing = peer_cub(params, opt, stream_, pool_); break;
        case Peer::CublasSgemm: r.timing = peer_sgemm(params, opt, stream_, pool_, blas_); break;
        case Peer::CublasGemmEx: r.timing = peer_gemm_ex(params, opt, stream_, pool_, blas_); break;
      }
      r.timing.source = sim::Provenance::measured(info_.name);
    } catch (const Failure& f) {
      r.error = std::string(to_string(p)) + ": " + f.what;
      cuda_failed = true;
    } catch (const std::exception& e) {
      r.error = std::string(to_string(p)) + ": " + e.what();
    }
    pool_.release_all();
    if (cuda_failed) sticky(r.error);
    return r;
  }

 private:
  // A failed kernel can leave a sticky error; say so instead of failing later runs with
  // an unrelated message.
  void sticky(std::string& error) {
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess)
      error += " (the GPU context is now unusable: " +
               cuda_error_text("cudaDeviceSynchronize", e) + "; restart warpscope)";
  }

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

    // The arrays: from the pool (allocated once per size), inputs made on the device.
    DeviceArrays d;
    for (const ArraySpec& a : r.plan.arrays) {
      d.ptr.push_back(pool_.acquire(std::size_t(a.count) * a.elem_bytes, "array '" + a.name + "'"));
      d.count.push_back(a.count);
    }
    make_inputs(r.plan, opt.seed, d, stream_);

    if (opt.verify || opt.timing) {
      // The fast build: once, or warm-up plus timed runs (the output of the last is checked).
      auto fast = [&] {
        std::string e = launch_fast(family, variant, r.params, r.plan, d, stream_, &r.regs_per_thread);
        if (!e.empty()) throw Failure{e};
      };
      if (opt.timing) {
        r.timing = time_on_stream(stream_, std::max(opt.warmup, 0), opt.repeats, fast);
        set_throughput(r.timing, r.plan);
      } else {
        fast();
      }
      check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (fast run)");
      r.verify_message = verify_output(*v, r, d);
      r.verified = r.verify_message.empty();
      // The hardware's counters of the same fast build (kernels/hardware/cupti_profiler.cpp); every
      // replay pass starts from the same inputs.
      if (opt.hardware_runs > 0)
        r.hardware = profile_counters(info_.name, opt.hardware_runs,
                                      [&] { make_inputs(r.plan, opt.seed, d, stream_); }, fast);
      if (opt.hardware_runs > 0 && opt.hardware_lines && r.hardware.ok()) {
        make_inputs(r.plan, opt.seed, d, stream_);
        profile_sass_lines(r.hardware, fast);
      }
    } else {
      r.verify_message = "not verified by this run (the traced build only)";
    }

    throw_if_cancelled();
    // The traced build: kept blocks and whole-grid counters.
    const bool keep = opt.keep_all_blocks || !opt.keep_blocks.empty();
    if (!keep && !opt.totals) return;
    ensure_trace_buffers();
    auto* misc = static_cast<unsigned char*>(trace_misc_.get());
    TraceSession::Buffers b{static_cast<WarpEvent*>(trace_events_.get()),
                            reinterpret_cast<unsigned long long*>(misc),
                            trace_capacity_,
                            reinterpret_cast<SharedArrayRec*>(misc + 256),
                            reinterpret_cast<DeviceFault*>(misc + 64),
                            reinterpret_cast<SiteSlot*>(misc + kSitesOffset),
                            reinterpret_cast<unsigned*>(misc + 128),
                            static_cast<WarpEvent*>(batch_.get()),
                            static_cast<std::uint32_t*>(batch_n_.get()),
                            batch_slots_};
    TraceSession ts(stream_, b, r.plan, *v, opt);
    bool traced_checked = !opt.verify;
    while (!ts.done()) {
      throw_if_cancelled();
      const int last = ts.plan_pass();
      make_inputs(r.plan, opt.seed, d, stream_);  // each pass starts from the same inputs
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
        const std::string m = verify_output(*v, r, d);
        if (!m.empty() && r.verified) {
          r.verified = false;
          r.verify_message = "the traced build computed a different result: " + m;
        }
        traced_checked = true;
      }
    }
    r.kept = ts.kept();
    if (!opt.totals) return;
    for (std::size_t i = 0; i < r.plan.launches.size(); ++i) {
      LaunchTotals lt{r.plan.launches[i], {}, ts.sites(i)};
      for (const sim::SiteTotals& s : lt.sites) lt.totals.merge(s.totals);
      r.totals.merge(lt.totals);
      r.launches.push_back(std::move(lt));
    }
  }

  // On the device against a GPU reference where the variant has one; else the output is
  // copied back for its CPU reference. "" when right.
  std::string verify_output(const VariantInfo& v, const RunResult& r, const DeviceArrays& d) {
    if (r.plan.ref.kind != RefKind::None) {
      const CheckResult c = verifier_.check(r.plan.ref, d, stream_, blas_);
      return c.message(r.plan.arrays.at(r.plan.ref.out).name);
    }
    HostArrays host = HostArrays::allocate(r.plan);
    for (std::size_t i = 0; i < r.plan.arrays.size(); ++i) {
      const std::size_t bytes = host.data[i].size();
      check(cudaMemcpyAsync(host.data[i].data(), d.ptr[i], bytes, cudaMemcpyDeviceToHost, stream_),
            "cudaMemcpyAsync(arrays to host)");
    }
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (arrays to host)");
    return v.verify(host, r.params);
  }

  // The event buffer: 2^21 events (about 300 MB), less on a device with little free
  // memory or when WS_CUDA_TRACE_EVENTS asks for fewer; allocated on the first traced
  // run and kept, with the control words and the site counters beside it.
  static constexpr std::size_t kSitesOffset = 256 + sizeof(SharedArrayRec) * kMaxSharedArrays;
  void ensure_trace_buffers() {
    if (trace_events_.get()) return;
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
    trace_events_.allocate(cap * sizeof(WarpEvent), "the trace buffer");
    trace_misc_.allocate(kSitesOffset + sizeof(SiteSlot) * kSiteShards * kSiteSlots,
                         "the trace control and site counters");
    trace_capacity_ = cap;
    // The counting batches: kBatch events per warp slot of every SM id the device can
    // report (%smid is below 256 on every GPU so far), counted 32 at a time by the warp's
    // lanes. On the H100 this took the matmul's counters at n = 4096 from 4.9 s to 1.0 s
    // (p50). WS_CUDA_COUNT=serial counts each event by its leader lane instead; the gpu
    // tests hold both to the host model.
    const char* mode = std::getenv("WS_CUDA_COUNT");
    if (!(mode && std::string(mode) == "serial")) {
      batch_slots_ = 256u * std::uint32_t(kWarpSlotsPerSm);
      batch_.allocate(std::size_t(batch_slots_) * kBatch * sizeof(WarpEvent), "the counting batches");
      batch_n_.allocate(std::size_t(batch_slots_) * sizeof(std::uint32_t), "the counting batches");
    }
  }

  int device_;
  DeviceInfo info_;
  cudaStream_t stream_;
  Cublas blas_;
  BufferPool pool_;
  DeviceVerifier verifier_;
  DeviceBuffer trace_events_, trace_misc_, batch_, batch_n_;
  std::uint32_t batch_slots_ = 0;
  unsigned long long trace_capacity_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_backend(std::string& why) {
  DeviceInfo info;
  const int dev = 0;
  if (!query_device(dev, info, why)) return nullptr;
  cudaStream_t stream = nullptr;
  if (cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); e != cudaSuccess) {
    cudaGetLastError();
    why = "the CUDA device could not be used: " + cuda_error_text("cudaStreamCreateWithFlags", e);
    return nullptr;
  }
  return std::make_unique<CudaBackend>(dev, std::move(info), stream);
}

}  // namespace ws::cuda
