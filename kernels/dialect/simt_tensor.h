#pragma once
// The dialect's warp-level tensor-core and asynchronous-copy instructions, for the family
// headers that use them (kernels/families/tensor.cuh, kernels/families/async_copy.cuh); they include this after
// kernels/registry.h. Kept out of kernels/dialect/simt.h and kernels/dialect/simt_cuda.h, whose text the
// recorded SASS of every family is keyed to (kernels/hardware/sass.cpp), so adding them left the
// shipped SASS of the other families current.
//
//   ldmatrix_x4(t, r, tile, row, col[, trans])  ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16:
//                      this lane names the 16-byte row at (row, col) of a Shared2D of 16-byte
//                      elements; register i gets its part of 8 x 8 matrix i (lanes 8i..8i+7
//                      name its rows). One 16-byte SharedLoad event at each lane's row.
//   mma_16816(t, d, a, b)  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: d = a b + d
//                      (a: four .f16x2 registers of A, b: two of B, d: four floats). One Mma
//                      event. Both need every lane of the warp (else a BadCollective on the
//                      emulator); the fragment layouts are sim/mma.h's.
//   cp_async16(t, tile, row, col, g, i)  cp.async.cg.shared.global, 16 bytes: element i of
//                      `g` to (row, col) of `tile`, without registers. Two events: AsyncLoad
//                      (the global side) and AsyncStore (the shared side).
//   cp_async_commit(t), cp_async_wait<N>(t)  commit_group / wait_group N. On the emulator the
//                      bytes land at the wait that retires their group (the ordering point),
//                      so a read before it sees the old contents, as it may on the GPU.
//   bulk_fence(t)      fence.proxy.async.shared::cta: this thread's shared writes become
//                      visible to the copy engine (then a barrier, then the bulk copies).
//   bulk_store<COUNT>(t, g, i, tile, row, col)  cp.async.bulk.global.shared::cta.bulk_group:
//                      this lane hands the copy engine (TMA) COUNT elements of `tile`'s row
//                      from (row, col) to elements i.. of `g`; the lane issues no store. One
//                      BulkStore event (sim/trace.h).
//   bulk_commit(t), bulk_wait_read<N>(t)  cp.async.bulk.commit_group / wait_group.read N:
//                      the shared source may be written again once its group has been read.
#include <cstdint>

#include "kernels/dialect/simt.h"
#include "sim/mma.h"

WS_BEGIN_MODE

#if defined(WS_MODE_EMU)
// The emulator's Thread does the work (kernels/dialect/simt_emu.h): its lane, its copy groups.
template <class T>
inline void ldmatrix_x4(Thread& t, std::uint32_t (&r)[4], const Shared2D<T>& s, int row, int col,
                        bool trans = false, int line = __builtin_LINE()) {
  t.ldmatrix_x4(r, s, row, col, trans, line);
}
inline void mma_16816(Thread& t, float (&d)[4], const std::uint32_t (&a)[4],
                      const std::uint32_t (&b)[2], int line = __builtin_LINE()) {
  t.mma_16816(d, a, b, line);
}
template <class T>
inline void cp_async16(Thread& t, const Shared2D<T>& s, int row, int col, const Global<const T>& g,
                       std::int64_t i, int line = __builtin_LINE()) {
  t.cp_async16(s, row, col, g, i, line);
}
inline void cp_async_commit(Thread& t, int line = __builtin_LINE()) { t.cp_async_commit(line); }
template <int N>
inline void cp_async_wait(Thread& t, int line = __builtin_LINE()) {
  t.template cp_async_wait<N>(line);
}
inline void bulk_fence(Thread& t, int line = __builtin_LINE()) { t.bulk_fence(line); }
template <int COUNT, class T>
inline void bulk_store(Thread& t, const Global<T>& g, std::int64_t i, const Shared2D<T>& s, int row,
                       int col, int line = __builtin_LINE()) {
  t.template bulk_store<COUNT>(g, i, s, row, col, line);
}
inline void bulk_commit(Thread& t, int line = __builtin_LINE()) { t.bulk_commit(line); }
template <int N>
inline void bulk_wait_read(Thread& t, int line = __builtin_LINE()) {
  t.template bulk_wait_read<N>(line);
}
#else
// On the GPU: inline PTX. In a traced block each records its event(s) first (the warp
// scheduler of kernels/dialect/simt_cuda.h), then the warp is brought together: `.sync.aligned`
// needs every lane at the same instruction.

// ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16: this lane names the 16-byte row at
// (row, col) of `s`; register i gets its part of 8 x 8 matrix i (lanes 8i..8i+7 name its rows).
template <class T>
__device__ __forceinline__ void ldmatrix_x4(Thread&, std::uint32_t (&r)[4], const Shared2D<T>& s,
                                            int row, int col, bool trans = false,
                                            int line = __builtin_LINE()) {
  static_assert(sizeof(T) == 16, "ldmatrix: each lane names one 16-byte row");
  std::int64_t i = std::int64_t(row) * s.cols + col;
#if defined(WS_MODE_TRACED)
  if (row < 0 || row >= s.rows || col < 0 || col >= s.cols) {
    ws_fault(cuda::FaultKind::OutOfBounds, std::uint16_t(line), s.id, true, i,
             (unsigned long long)s.rows * s.cols);
    i = 0;
  }
  if (ws_block_traced()) {
    const std::uint16_t l = std::uint16_t(line);
    const Turn turn = ws_turn(ws_key(l, s.id, EventKind::SharedLoad), 0u, l);
    ws_emit(turn.group, EventKind::SharedLoad, s.id, 16, l, 0u,
            s.off + std::uint32_t(i) * 16u);
    __syncwarp();
  }
#endif
  const unsigned addr = unsigned(__cvta_generic_to_shared(s.ptr + i));
  if (trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: d = a b + d for the warp's
// 16 x 8 tile (a: four .f16x2 registers of A, b: two of B, d: four floats of C).
__device__ __forceinline__ void mma_16816(Thread&, float (&d)[4], const std::uint32_t (&a)[4],
                                          const std::uint32_t (&b)[2],
                                          int line = __builtin_LINE()) {
#if defined(WS_MODE_TRACED)
  if (ws_block_traced()) {
    const std::uint16_t l = std::uint16_t(line);
    const Turn turn = ws_turn(ws_key(l, kNoArray, EventKind::Mma), 0u, l);
    ws_emit(turn.group, EventKind::Mma, kNoArray, 0, l, 0u, 0u);
    __syncwarp();
  }
#else
  (void)line;
#endif
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// cp.async.cg.shared.global, 16 bytes: element i of `g` to (row, col) of `s`, without
// passing through registers. Lands by the cp_async_wait<N>() that leaves its group behind.
template <class T>
__device__ __forceinline__ void cp_async16(Thread&, const Shared2D<T>& s, int row, int col,
                                           const Global<const T>& g, std::int64_t i,
                                           int line = __builtin_LINE()) {
  static_assert(sizeof(T) == 16, "cp_async16 copies one 16-byte element");
  std::int64_t si = std::int64_t(row) * s.cols + col;
#if defined(WS_MODE_TRACED)
  if (i < 0 || std::uint64_t(i) >= g.n) {
    ws_fault(cuda::FaultKind::OutOfBounds, std::uint16_t(line), g.id, false, i, g.n);
    i = 0;
  }
  if (row < 0 || row >= s.rows || col < 0 || col >= s.cols) {
    ws_fault(cuda::FaultKind::OutOfBounds, std::uint16_t(line), s.id, true, si,
             (unsigned long long)s.rows * s.cols);
    si = 0;
  }
  if (ws_block_traced()) {
    const std::uint16_t l = std::uint16_t(line);
    Turn turn = ws_turn(ws_key(l, g.id, EventKind::AsyncLoad), 0u, l);
    ws_emit(turn.group, EventKind::AsyncLoad, g.id, 16, l, 0u, std::uint32_t(i) * 16u);
    turn = ws_turn(ws_key(l, s.id, EventKind::AsyncStore), 0u, l);
    ws_emit(turn.group, EventKind::AsyncStore, s.id, 16, l, 0u,
            s.off + std::uint32_t(si) * 16u);
  }
#else
  (void)line;
#endif
  const unsigned dst = unsigned(__cvta_generic_to_shared(s.ptr + si));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(g.ptr + i)
               : "memory");
}
// cp.async.commit_group: the copies issued since the last commit become one group.
__device__ __forceinline__ void cp_async_commit(Thread&, int = __builtin_LINE()) {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
// cp.async.wait_group N: waits until at most N of this thread's groups are in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait(Thread&, int = __builtin_LINE()) {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// fence.proxy.async.shared::cta: this thread's shared writes (the generic proxy) become
// visible to the copy engine (the async proxy) before a barrier hands them to it.
// Before Hopper (sm_90) there is no copy engine: a build for an older GPU (CMake's `native`
// on an A100, say) compiles the bulk calls to the issuing thread's own stores, so the results
// stay right there; its counters then show LSU stores, which the model (of the copy engine)
// does not count.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define WS_HAS_BULK_COPY 1
#else
#define WS_HAS_BULK_COPY 0
#endif
__device__ __forceinline__ void bulk_fence(Thread&, int = __builtin_LINE()) {
#if WS_HAS_BULK_COPY
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}
// cp.async.bulk.global.shared::cta.bulk_group: COUNT elements of row `row` of `s` from
// column `col` to elements i.. of `g`, copied by the copy engine. One BulkStore event.
template <int COUNT, class T>
__device__ __forceinline__ void bulk_store(Thread&, const Global<T>& g, std::int64_t i,
                                           const Shared2D<T>& s, int row, int col,
                                           int line = __builtin_LINE()) {
  constexpr unsigned bytes = unsigned(COUNT * sizeof(T));
  static_assert(sizeof(T) % kBulkUnit == 0, "bulk_store copies 16-byte elements (aligned both sides)");
  static_assert(COUNT > 0 && bytes / kBulkUnit <= 255, "a traced bulk copy moves 16 to 4080 bytes");
  std::int64_t si = std::int64_t(row) * s.cols + col;
#if defined(WS_MODE_TRACED)
  bool fault = false;  // a faulting copy is traced at element 0 and not made
  if (i < 0 || std::uint64_t(i) + COUNT > g.n) {
    ws_fault(cuda::FaultKind::OutOfBounds, std::uint16_t(line), g.id, false, i, g.n);
    i = 0;
    fault = true;
  }
  if (row < 0 || row >= s.rows || col < 0 || col + COUNT > s.cols) {
    ws_fault(cuda::FaultKind::OutOfBounds, std::uint16_t(line), s.id, true, si,
             (unsigned long long)s.rows * s.cols);
    si = 0;
    fault = true;
  }
  if (ws_block_traced()) {
    const std::uint16_t l = std::uint16_t(line);
    const Turn turn = ws_turn(ws_key(l, g.id, EventKind::BulkStore), 0u, l);
    ws_emit(turn.group, EventKind::BulkStore, g.id, std::uint8_t(bytes / kBulkUnit), l, 0u,
            bulk_pack(std::uint32_t(i) * std::uint32_t(sizeof(T)),
                      s.off + std::uint32_t(si) * std::uint32_t(sizeof(T))));
  }
  if (fault) return;
#else
  (void)line;
#endif
#if WS_HAS_BULK_COPY
  const unsigned src = unsigned(__cvta_generic_to_shared(s.ptr + si));
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(g.ptr + i),
               "r"(src), "n"(bytes)
               : "memory");
#else
  for (int k = 0; k < COUNT; ++k) g.ptr[i + k] = s.ptr[si + k];
#endif
}
// cp.async.bulk.commit_group: the bulk copies since the last commit become one group.
__device__ __forceinline__ void bulk_commit(Thread&, int = __builtin_LINE()) {
#if WS_HAS_BULK_COPY
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}
// cp.async.bulk.wait_group.read N: waits until at most N groups have not yet read their
// shared source (their global writes may still be under way).
template <int N>
__device__ __forceinline__ void bulk_wait_read(Thread&, int = __builtin_LINE()) {
#if WS_HAS_BULK_COPY
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
#endif
}
#undef WS_HAS_BULK_COPY
#endif

WS_END_MODE
