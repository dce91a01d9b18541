// The traced dialect of kernels/dialect/simt_cuda.h on the GPU, below the backend: what one warp
// writes for each kind of event, the shared-memory carving rule, the traced block range,
// the buffer's overflow count and the fault record. Label gpu; skips with no device.
#define WS_MODE_TRACED 1
#include "kernels/dialect/simt.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace ws;

namespace {

bool have_gpu() {
  int n = 0;
  const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  cudaGetLastError();
  return ok;
}

#define NEED_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device"

// One kernel that does one of each event kind (line numbers are read back below).
constexpr int kBranchLine = __LINE__ + 8;
struct Probe {
  Global<int> out;
  WS_DEVICE void operator()(Thread& t) const {
    auto a = t.shared<char>(3, "a");
    auto b = t.shared<double>(5, "bee");
    auto c = t.shared2d<float4>(2, 2, "c");
    (void)a, (void)c;
    if (t.branch(t.lane() < 5)) {
      b(t.lane()) = 1.0;
    }
    t.syncthreads();
    int v = t.shfl_down_sync(WS_FULL_MASK, int(t.lane()), 1);
    unsigned bal = t.ballot_sync(WS_FULL_MASK, (t.lane() & 1u) != 0);
    out(t.blockIdx.x * t.blockDim.x + t.tid()) = v + int(bal & 0u);
  }
};

// Writes past the end of its array.
constexpr int kOobLine = __LINE__ + 5;
struct OutOfBounds {
  Global<int> out;
  WS_DEVICE void operator()(Thread& t) const {
    int i = int(t.tid()) + 1000;
    out(i) = 1;
  }
};

template <class T>
struct DeviceArray {
  T* p = nullptr;
  explicit DeviceArray(std::size_t n) { EXPECT_EQ(cudaMalloc(&p, n * sizeof(T)), cudaSuccess); }
  ~DeviceArray() { cudaFree(p); }
};

struct Hooks : cuda::TraceHooks {
  cuda::TraceCtl ctl{};
  bool before(int, const LaunchCfg&, cuda::TraceCtl& c, std::string&) override {
    c = ctl;
    return true;
  }
  void after(int, const LaunchCfg&, std::string&) override {}
};

// A traced launch with its buffers; after run(), events/count/fault/arrays are on the host.
struct Traced {
  static constexpr unsigned kCap = 4096;
  DeviceArray<WarpEvent> ev{kCap};
  DeviceArray<unsigned long long> count{1};
  DeviceArray<cuda::SharedArrayRec> arrays{cuda::kMaxSharedArrays};
  DeviceArray<cuda::DeviceFault> fault{1};
  std::vector<WarpEvent> events;
  unsigned long long n = 0;
  cuda::DeviceFault f{};
  std::vector<cuda::SharedArrayRec> recs;

  template <class K>
  std::string run(const K& k, LaunchCfg cfg, std::uint32_t lo, std::uint32_t hi,
                  unsigned long long capacity = kCap) {
    cudaMemset(ev.p, 0xAB, kCap * sizeof(WarpEvent));
    cudaMemset(count.p, 0, sizeof(unsigned long long));
    cudaMemset(arrays.p, 0, cuda::kMaxSharedArrays * sizeof(cuda::SharedArrayRec));
    cudaMemset(fault.p, 0, sizeof(cuda::DeviceFault));
    Hooks h;
    h.ctl = cuda::TraceCtl{ev.p, count.p, capacity, lo, hi, arrays.p, fault.p};
    h.ctl.keep_all = 1;  // every traced block writes its events (no per-site counting)
    Launcher L(nullptr, h);
    L.launch(cfg, k);
    if (!L.error().empty()) return L.error();
    if (cudaDeviceSynchronize() != cudaSuccess) return "sync failed";
    cudaMemcpy(&n, count.p, sizeof n, cudaMemcpyDeviceToHost);
    cudaMemcpy(&f, fault.p, sizeof f, cudaMemcpyDeviceToHost);
    events.resize(kCap);
    cudaMemcpy(events.data(), ev.p, kCap * sizeof(WarpEvent), cudaMemcpyDeviceToHost);
    events.resize(std::min<unsigned long long>(n, capacity));
    recs.resize(cuda::kMaxSharedArrays);
    cudaMemcpy(recs.data(), arrays.p, recs.size() * sizeof(cuda::SharedArrayRec),
               cudaMemcpyDeviceToHost);
    return "";
  }
};

std::vector<WarpEvent> of(const std::vector<WarpEvent>& ev, std::uint32_t block,
                          std::uint16_t warp) {
  std::vector<WarpEvent> out;
  for (const WarpEvent& e : ev)
    if (e.block == block && e.warp == warp) out.push_back(e);
  return out;
}

}  // namespace

TEST(TracedDialect, OneWarpWritesOneEventPerKind) {
  NEED_GPU();
  DeviceArray<int> out(4 * 64);
  Traced tr;
  LaunchCfg cfg{"probe", {4, 1, 1}, {64, 1, 1}, 128};
  ASSERT_EQ(tr.run(Probe{{out.p, 4 * 64, 0}}, cfg, 1, 3), "");
  ASSERT_EQ(tr.f.kind, 0u);
  EXPECT_EQ(tr.n, 2u * 2 * 6);  // blocks 1 and 2, two warps each, six events per warp
  for (const WarpEvent& e : tr.events) EXPECT_TRUE(e.block == 1 || e.block == 2) << e.block;

  const auto w = canonical(of(tr.events, 2, 1));
  ASSERT_EQ(w.size(), 6u);
  // In source order: branch, shared store, barrier, shuffle, vote, global store.
  EXPECT_EQ(w[0].kind, EventKind::Branch);
  EXPECT_EQ(w[0].line, kBranchLine);
  EXPECT_EQ(w[0].mask, 0xffffffffu);
  EXPECT_EQ(w[0].ballot, 0x1fu);
  EXPECT_EQ(w[1].kind, EventKind::SharedStore);
  EXPECT_EQ(w[1].mask, 0x1fu);
  EXPECT_EQ(w[1].array, kFirstSharedId + 1);
  EXPECT_EQ(w[1].bytes, 8);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(w[1].offset[l], l < 5 ? 16u + 8u * l : 0u) << l;
  EXPECT_EQ(w[2].kind, EventKind::Barrier);
  EXPECT_EQ(w[2].mask, 0xffffffffu);
  EXPECT_EQ(w[3].kind, EventKind::Shuffle);
  EXPECT_EQ(w[4].kind, EventKind::Vote);
  EXPECT_EQ(w[4].ballot, 0xaaaaaaaau);
  EXPECT_EQ(w[5].kind, EventKind::GlobalStore);
  EXPECT_EQ(w[5].array, 0);
  EXPECT_EQ(w[5].bytes, 4);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(w[5].offset[l], 4u * (2 * 64 + 32 + l)) << l;

  // The carving rule: offsets rounded up to max(16, alignof(T)), ids in order.
  const std::uint32_t a = 0, b = shared_carve(a + 3, 16), c = shared_carve(b + 40, 16);
  ASSERT_EQ(tr.recs[0].elem_bytes, 1u);
  EXPECT_EQ(tr.recs[0].offset, a);
  EXPECT_EQ(tr.recs[0].count, 3u);
  EXPECT_STREQ(tr.recs[0].name, "a");
  EXPECT_EQ(tr.recs[1].offset, b);
  EXPECT_EQ(tr.recs[1].elem_bytes, 8u);
  EXPECT_STREQ(tr.recs[1].name, "bee");
  EXPECT_EQ(tr.recs[2].offset, c);
  EXPECT_EQ(tr.recs[2].id, kFirstSharedId + 2);
  EXPECT_EQ(tr.recs[2].count, 4u);
  EXPECT_EQ(tr.recs[3].elem_bytes, 0u);  // nothing more was allocated
}

TEST(TracedDialect, EmptyRangeRecordsNothing) {
  NEED_GPU();
  DeviceArray<int> out(2 * 64);
  Traced tr;
  ASSERT_EQ(tr.run(Probe{{out.p, 2 * 64, 0}}, {"probe", {2, 1, 1}, {64, 1, 1}, 128}, 0, 0), "");
  EXPECT_EQ(tr.n, 0u);
  EXPECT_EQ(tr.f.kind, 0u);
}

TEST(TracedDialect, OverflowCountsButDoesNotWritePastCapacity) {
  NEED_GPU();
  DeviceArray<int> out(4 * 64);
  Traced tr;
  ASSERT_EQ(tr.run(Probe{{out.p, 4 * 64, 0}}, {"probe", {4, 1, 1}, {64, 1, 1}, 128}, 0, 4, 5),
            "");
  EXPECT_EQ(tr.n, 4u * 2 * 6);  // every event asked for a slot
  std::vector<WarpEvent> all(Traced::kCap);
  cudaMemcpy(all.data(), tr.ev.p, all.size() * sizeof(WarpEvent), cudaMemcpyDeviceToHost);
  unsigned char untouched[sizeof(WarpEvent)];
  std::memset(untouched, 0xAB, sizeof untouched);
  EXPECT_NE(std::memcmp(&all[4], untouched, sizeof(WarpEvent)), 0);
  EXPECT_EQ(std::memcmp(&all[5], untouched, sizeof(WarpEvent)), 0);
}

TEST(TracedDialect, OutOfBoundsIsReportedNotPerformed) {
  NEED_GPU();
  DeviceArray<int> out(64);
  Traced tr;
  ASSERT_EQ(tr.run(OutOfBounds{{out.p, 64, 0}}, {"oob", {1, 1, 1}, {32, 1, 1}, 0}, 0, 1), "");
  EXPECT_EQ(tr.f.kind, std::uint32_t(cuda::FaultKind::OutOfBounds));
  EXPECT_EQ(tr.f.line, std::uint32_t(kOobLine));
  EXPECT_EQ(tr.f.shared, 0u);
  EXPECT_GE(tr.f.index, 1000);
  EXPECT_EQ(tr.f.extent, 64u);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(TracedDialect, SharedOverflowIsReported) {
  NEED_GPU();
  DeviceArray<int> out(64);
  Traced tr;
  // Probe carves 128 bytes; give it 64 (it touches only the first 56).
  ASSERT_EQ(tr.run(Probe{{out.p, 64, 0}}, {"probe", {1, 1, 1}, {64, 1, 1}, 64}, 0, 1), "");
  EXPECT_EQ(tr.f.kind, std::uint32_t(cuda::FaultKind::SharedOverflow));
  EXPECT_EQ(tr.f.extent, 64u);
  EXPECT_EQ(tr.f.index, 128);
}

TEST(TracedDialect, FaultKindsHaveNames) {
  EXPECT_STREQ(cuda::to_string(cuda::FaultKind::OutOfBounds), "out of bounds");
  EXPECT_STREQ(cuda::to_string(cuda::FaultKind::SharedOverflow), "shared memory overflow");
  EXPECT_STREQ(cuda::to_string(cuda::FaultKind::Deadlock), "deadlock");
  EXPECT_STREQ(cuda::to_string(cuda::FaultKind::None), "none");
}
