#pragma once
// The kernel dialect. A kernel is written once, as a small struct whose members are its
// parameters and whose operator()(Thread& t) is the body, and compiled three ways:
//
//   WS_MODE_EMU     host compiler; accesses report to the SIMT emulator (sim/emulator.h)
//   WS_MODE_FAST    nvcc; handles are plain pointers, accesses are plain loads/stores
//   WS_MODE_TRACED  nvcc; the first active lane of each warp writes a WarpEvent
//
// Exactly one mode is defined per translation unit; each lives in its own inline
// namespace (ws::emu, ws::fast, ws::traced) so the three builds never clash at link time.
//
// What a kernel body can use (same spelling in every mode):
//   t.threadIdx / blockIdx / blockDim / gridDim (.x .y .z), t.tid(), t.lane(), t.warp()
//   in(i)              global element i; reads and writes through it are recorded
//   t.shared<T>(n, "name"), t.shared2d<T>(rows, cols, "name") -> s(i) / s(r, c)
//   t.syncthreads(), t.syncwarp(mask), t.shfl_{sync,up_sync,down_sync,xor_sync}(...)
//   t.ballot_sync(mask, pred), t.activemask(), t.branch(cond) (a marked branch)
//   t.work(n)          the n instructions this path runs here (its arithmetic, which
//                      leaves no access to trace): a Work event at the issuing lanes'
//                      mask, so both sides of a divergent branch count at their masks
//   a.atomic_add(i, v) on Global and Shared handles. It returns nothing: an atomic whose
//                      old value is unused is what sm_90 compiles to a reduction (REDG,
//                      counted under ..._op_red), and the model counts it so (DESIGN.md).
//                      On shared memory it models a value that is the same for every lane
//                      (`+= 1`: ATOMS.POPC.INC, lanes on one word are one add)
//   s.atomic_add_varying(i, v) on Shared handles: a value that differs per lane (a weight):
//                      ATOMS.ADD, lanes on one word serialise (kEventVaryingAtomic)
// Each access is tagged with its source line (__builtin_LINE() as a default argument,
// which nvcc supports in device code) and the array it names.
#include <cstddef>
#include <cstdint>

#include "sim/trace.h"

#if defined(__CUDACC__)
#define WS_DEVICE __device__ __forceinline__
#define WS_HD __host__ __device__
#else
#define WS_DEVICE inline
#define WS_HD
#endif

#define WS_FULL_MASK 0xffffffffu

// Loops over compile-time trip counts are unrolled on the device, so a thread issues all
// its loads before it waits for the first one. The host compiler needs no hint.
#if defined(__CUDACC__)
#define WS_UNROLL _Pragma("unroll")
#define WS_NO_UNROLL _Pragma("unroll 1")
#else
#define WS_UNROLL
#define WS_NO_UNROLL
#endif

// Marks a loop of event-free compute: WS_WORK(rounds) before it lets the emulator count
// those rounds toward its step limit, its progress and cancellation (a loop without
// events would otherwise escape all three); the GPU builds compile it away.
#if defined(WS_MODE_EMU)
#define WS_WORK(rounds) ::ws::sim::work(std::uint64_t(rounds))
#else
#define WS_WORK(rounds) ((void)0)
#endif

// The namespace of this translation unit's mode. Family headers open it with
// WS_BEGIN_MODE and close it with WS_END_MODE, so one header serves all three builds.
#if defined(WS_MODE_EMU)
#define WS_BEGIN_MODE namespace ws { inline namespace emu {
#elif defined(WS_MODE_FAST)
#define WS_BEGIN_MODE namespace ws { inline namespace fast {
#else
#define WS_BEGIN_MODE namespace ws { inline namespace traced {
#endif
#define WS_END_MODE } }

namespace ws {

// Shared arrays are carved from the block's dynamic shared memory in declaration order;
// every backend uses this one rule so shared byte offsets (and so banks) agree.
WS_HD constexpr std::uint32_t shared_carve(std::uint32_t used, std::uint32_t align) {
  return (used + align - 1) / align * align;
}
// Shared arrays get ids from here up, global arrays their argument ordinal (0, 1, ...).
constexpr std::uint8_t kFirstSharedId = 0x80;

}  // namespace ws

#if defined(WS_MODE_EMU) + defined(WS_MODE_FAST) + defined(WS_MODE_TRACED) != 1
#error "define exactly one of WS_MODE_EMU, WS_MODE_FAST, WS_MODE_TRACED before kernels/dialect/simt.h"
#endif

#if defined(WS_MODE_EMU)
#include "kernels/dialect/simt_emu.h"
#else
#include "kernels/dialect/simt_cuda.h"
#endif
