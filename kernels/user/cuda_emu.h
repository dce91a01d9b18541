#pragma once
// What the emulator needs to run a student's plain CUDA file after the front end
// (kernels/user/cuda_front.h) rewrote it: traced pointer handles, the block's shared
// arrays, the built-in variables and CUDA's device functions, each reporting to the
// emulated lane (sim::current_lane(), one per fiber, so __device__ functions reach it
// too). Included after kernels/dialect/simt.h in WS_MODE_EMU (the runtime build's prelude).
// Every traced call takes the student's line as a defaulted __builtin_LINE(), which the
// rewritten file's #line directive maps to the student's own file and line.
#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "kernels/dialect/simt.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)

namespace ws::cu {

using ::ws::emu::Ref;

// The value a Ref stands for, else the type itself.
template <class X>
struct value_of { using type = X; };
template <class T>
struct value_of<Ref<T>> { using type = std::remove_const_t<T>; };
template <class X>
using val_t = typename value_of<std::remove_cv_t<std::remove_reference_t<X>>>::type;

inline sim::Lane& lane() { return sim::current_lane(); }

// A pointer into a global or shared array: the array's bytes, this pointer's byte offset
// into them, and the array's trace id. Subscripts and dereferences give traced Refs;
// arithmetic stays inside the handle, so an access past the array is reported, not made.
template <class T>
struct Ptr {
  using V = std::remove_const_t<T>;
  std::byte* base = nullptr;
  std::uint64_t bytes = 0;
  std::int64_t off = 0;
  std::uint32_t shared_off = 0;
  std::uint8_t id = kNoArray;
  bool shared = false;

  Ptr() = default;
  Ptr(std::nullptr_t) {}
  template <class U>
    requires(std::is_convertible_v<U*, T*> && !std::is_same_v<U, T>)
  Ptr(const Ptr<U>& o)
      : base(o.base), bytes(o.bytes), off(o.off), shared_off(o.shared_off), id(o.id), shared(o.shared) {}

  Ref<T> at(std::int64_t i, int line) const {
    const std::int64_t b = off + i * std::int64_t(sizeof(T));
    if (!base || b % std::int64_t(sizeof(T)) != 0) [[unlikely]]
      ::ws::emu::fail_pointer(lane(), line, b, sizeof(T), shared, id, !base);
    return Ref<T>(reinterpret_cast<T*>(base), bytes / sizeof(T), b / std::int64_t(sizeof(T)), id,
                  shared_off, shared, std::uint16_t(line));
  }
  Ptr operator+(std::int64_t k) const {
    Ptr p = *this;
    p.off += k * std::int64_t(sizeof(T));
    return p;
  }
  Ptr operator-(std::int64_t k) const { return *this + (-k); }
  std::int64_t operator-(const Ptr& o) const { return (off - o.off) / std::int64_t(sizeof(T)); }
  Ptr& operator+=(std::int64_t k) { return *this = *this + k; }
  Ptr& operator-=(std::int64_t k) { return *this = *this - k; }
  Ptr& operator++() { return *this += 1; }
  Ptr& operator--() { return *this -= 1; }
  Ptr operator++(int) {
    Ptr p = *this;
    *this += 1;
    return p;
  }
  Ptr operator--(int) {
    Ptr p = *this;
    *this -= 1;
    return p;
  }
  explicit operator bool() const { return base != nullptr; }
  friend Ptr operator+(std::int64_t k, const Ptr& p) { return p + k; }
  friend bool operator==(const Ptr& a, const Ptr& b) { return a.base == b.base && a.off == b.off; }
  friend bool operator<(const Ptr& a, const Ptr& b) { return a.off < b.off; }
  friend bool operator>(const Ptr& a, const Ptr& b) { return a.off > b.off; }
  friend bool operator<=(const Ptr& a, const Ptr& b) { return a.off <= b.off; }
  friend bool operator>=(const Ptr& a, const Ptr& b) { return a.off >= b.off; }
};

// A 2-D __shared__ array: tile[r] is the row's pointer, tile[r][c] its element.
template <class T>
struct Array2 {
  Ptr<T> p;
  int rows = 0, cols = 0;
};

// A kernel parameter's handle from the job's array (Global's members are private in a
// student's build: only this reads them). The CUDA source cannot name a Ptr's members:
// Clang checked it as CUDA, where a pointer has none.
struct Access {
  template <class T>
  static Ptr<T> ptr(const ::ws::emu::Global<T>& g) {
    Ptr<T> p;
    p.base = reinterpret_cast<std::byte*>(const_cast<std::remove_const_t<T>*>(g.ptr));
    p.bytes = g.n * sizeof(T);
    p.id = g.id;
    return p;
  }
};
template <class T>
Ptr<T> ptr(const ::ws::emu::Global<T>& g) {
  return Access::ptr(g);
}

template <class T, class U>
Ptr<T> cast(const Ptr<U>& p);

// A vector type's components (float4's x, y, z, w): p4[i].x is a 4-byte access of its own,
// as on the GPU, where it compiles to a 32-bit load or store rather than a 128-bit one.
template <class T> struct VecOf { static constexpr int n = 0; };
template <> struct VecOf<float2> { using C = float; static constexpr int n = 2; };
template <> struct VecOf<float4> { using C = float; static constexpr int n = 4; };
template <> struct VecOf<int2> { using C = int; static constexpr int n = 2; };
template <> struct VecOf<int4> { using C = int; static constexpr int n = 4; };
template <class T>
constexpr int vec_n = VecOf<std::remove_const_t<T>>::n;
template <class T>
using VecC = std::conditional_t<std::is_const_v<T>, const typename VecOf<std::remove_const_t<T>>::C,
                                typename VecOf<std::remove_const_t<T>>::C>;

// The element as a whole (a 16-byte access for a float4), and each component as a Ref.
template <class T, int N = vec_n<T>>
struct VecRef;
template <class T>
struct VecRef<T, 2> : Ref<T> {
  Ref<VecC<T>> x, y;
  VecRef(const Ptr<T>& p, std::int64_t i, int line)
      : Ref<T>(p.at(i, line)), x(cast<VecC<T>>(p + i).at(0, line)), y(cast<VecC<T>>(p + i).at(1, line)) {}
  using Ref<T>::operator=;
  VecRef& operator=(const VecRef& o) requires(!std::is_const_v<T>) {
    Ref<T>::operator=(static_cast<const Ref<T>&>(o));
    return *this;
  }
};
template <class T>
struct VecRef<T, 4> : Ref<T> {
  Ref<VecC<T>> x, y, z, w;
  VecRef(const Ptr<T>& p, std::int64_t i, int line)
      : Ref<T>(p.at(i, line)), x(cast<VecC<T>>(p + i).at(0, line)), y(cast<VecC<T>>(p + i).at(1, line)),
        z(cast<VecC<T>>(p + i).at(2, line)), w(cast<VecC<T>>(p + i).at(3, line)) {}
  using Ref<T>::operator=;
  VecRef& operator=(const VecRef& o) requires(!std::is_const_v<T>) {
    Ref<T>::operator=(static_cast<const Ref<T>&>(o));
    return *this;
  }
};

// p[i], tile[r], a local array's a[i], *p, &p[i]
template <class T>
auto at(const Ptr<T>& p, std::int64_t i, int line = __builtin_LINE()) {
  if constexpr (vec_n<T> > 0)
    return VecRef<T>(p, i, line);
  else
    return p.at(i, line);
}
template <class T>
Ptr<T> at(const Array2<T>& a, std::int64_t r, int = __builtin_LINE()) {
  return a.p + r * a.cols;
}
template <class T, std::size_t N>
T& at(T (&a)[N], std::int64_t i, int = 0) {
  return a[i];
}
template <class T>
T& at(T* p, std::int64_t i, int = 0) {
  return p[i];
}
template <class T>
auto deref(const Ptr<T>& p, int line = __builtin_LINE()) {
  return at(p, 0, line);
}
template <class T>
T& deref(T* p, int = 0) {
  return *p;
}
template <class T>
Ptr<T> addr(const Ptr<T>& p, std::int64_t i, int = 0) {
  return p + i;
}
template <class T, std::size_t N>
T* addr(T (&a)[N], std::int64_t i, int = 0) {
  return &a[i];
}
template <class T>
T* addr(T* p, std::int64_t i, int = 0) {
  return p + i;
}

// reinterpret_cast<T*>(p), (T*)p
template <class T, class U>
Ptr<T> cast(const Ptr<U>& p) {
  Ptr<T> q;
  q.base = p.base;
  q.bytes = p.bytes;
  q.off = p.off;
  q.shared_off = p.shared_off;
  q.id = p.id;
  q.shared = p.shared;
  return q;
}
template <class T, class U>
T* cast(U* p) {
  return reinterpret_cast<T*>(p);
}
// (T*)0, (T*)nullptr, reinterpret_cast<T*>(an integer): a pointer into no array, so an
// access through it is reported as one through a null pointer (on the GPU it faults).
template <class T>
Ptr<T> cast(std::nullptr_t) {
  return Ptr<T>(nullptr);
}
template <class T, class I>
  requires std::is_integral_v<I>
Ptr<T> cast(I) {
  return Ptr<T>(nullptr);
}

// __shared__ arrays, carved in declaration order as the dialect's t.shared() does.
template <class T>
constexpr std::uint32_t shared_align() {
  return alignof(T) < 16 ? 16 : std::uint32_t(alignof(T));
}
template <class T>
Ptr<T> shared_alloc(std::uint64_t count, const char* name, int id, int line, std::uint32_t cols) {
  sim::Lane& l = lane();
  const std::uint32_t off = l.alloc_shared(count * sizeof(T), shared_align<T>(), sizeof(T), name,
                                           std::uint16_t(line), cols);
  Ptr<T> p;
  p.base = l.shared_base() + off;
  p.bytes = count * sizeof(T);
  p.shared_off = off;
  p.id = std::uint8_t(id);
  p.shared = true;
  return p;
}
template <class T>
Ptr<T> shared1d(std::uint64_t n, const char* name, int id, int line = __builtin_LINE()) {
  return shared_alloc<T>(n, name, id, line, 0);
}
template <class T>
Array2<T> shared2d(int rows, int cols, const char* name, int id, int line = __builtin_LINE()) {
  return Array2<T>{shared_alloc<T>(std::uint64_t(rows) * cols, name, id, line, std::uint32_t(cols)), rows,
                   cols};
}
// `extern __shared__ T name[];`: the rest of the launch's shared memory, after the static
// arrays (as CUDA places dynamic shared memory after the static).
// `start`: the byte where it begins, after the kernel's static arrays (the front end
// adds them up in declaration order, as shared_alloc carves them).
template <class T>
Ptr<T> shared_extern(const char* name, int id, std::uint32_t start, int line = __builtin_LINE()) {
  const std::uint32_t total = lane().shared_bytes();
  const std::uint64_t count = total > start ? (total - start) / sizeof(T) : 0;
  return shared_alloc<T>(count, name, id, line, 0);
}
template <class T>
Ref<T> shared_var(const char* name, int id, int line = __builtin_LINE()) {
  return shared_alloc<T>(1, name, id, line, 0).at(0, line);
}

// The built-in variables of the running thread.
inline const Dim3& threadIdx() { return lane().thread_idx; }
inline const Dim3& blockIdx() { return lane().block_idx; }
inline const Dim3& blockDim() { return lane().block_dim; }
inline const Dim3& gridDim() { return lane().grid_dim; }
inline int warpSize() { return 32; }

// A branch the front end found (if, loop condition, ?:): the warp's ballot is traced.
template <class C>
bool br(const C& c, int line = __builtin_LINE()) {
  return lane().branch(static_cast<bool>(c), std::uint16_t(line));
}

template <class V>
V shuffle(sim::ShuffleKind k, unsigned mask, V v, int arg, int width, int line) {
  static_assert(sizeof(V) <= 8 && std::is_trivially_copyable_v<V>, "a shuffle moves up to 8 bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(V));
  bits = lane().shuffle(k, mask, bits, arg, width, std::uint16_t(line));
  V out;
  std::memcpy(&out, &bits, sizeof(V));
  return out;
}

// One atomic event, then the read-modify-write; CUDA's atomics return the old value.
template <class T, class F>
std::remove_const_t<T> atomic(const Ptr<T>& p, int line, F f) {
  return p.at(0, line).atomic_apply(f);
}

}  // namespace ws::cu

namespace ws::emu {
// What a CUDA expression does with an element that the dialect's Ref leaves out.
template <class T>
std::remove_const_t<T> operator++(Ref<T> r) {
  std::remove_const_t<T> v = r;
  r = ++v;
  return v;
}
template <class T>
std::remove_const_t<T> operator--(Ref<T> r) {
  std::remove_const_t<T> v = r;
  r = --v;
  return v;
}
template <class T>
std::remove_const_t<T> operator++(Ref<T> r, int) {
  std::remove_const_t<T> v = r;
  r = std::remove_const_t<T>(v + 1);
  return v;
}
template <class T>
std::remove_const_t<T> operator--(Ref<T> r, int) {
  std::remove_const_t<T> v = r;
  r = std::remove_const_t<T>(v - 1);
  return v;
}
#define WS_CU_COMPOUND(op)                                  \
  template <class T, class U>                               \
  Ref<T> operator op##=(Ref<T> r, const U & u) {            \
    std::remove_const_t<T> v = r;                           \
    r = std::remove_const_t<T>(v op ::ws::cu::val_t<U>(u)); \
    return r;                                               \
  }
WS_CU_COMPOUND(/)
WS_CU_COMPOUND(%)
WS_CU_COMPOUND(&)
WS_CU_COMPOUND(|)
WS_CU_COMPOUND(^)
WS_CU_COMPOUND(<<)
WS_CU_COMPOUND(>>)
#undef WS_CU_COMPOUND
}  // namespace ws::emu

// CUDA's device functions, at file scope as CUDA declares them.
inline void __syncthreads(int line = __builtin_LINE()) {
  ::ws::cu::lane().syncthreads(std::uint16_t(line));
}
inline void __syncwarp(unsigned mask = 0xffffffffu, int line = __builtin_LINE()) {
  ::ws::cu::lane().syncwarp(mask, std::uint16_t(line));
}
inline void __threadfence() {}
inline void __threadfence_block() {}
template <class V>
::ws::cu::val_t<V> __shfl_sync(unsigned mask, const V& v, int src, int width = 32,
                               int line = __builtin_LINE()) {
  return ::ws::cu::shuffle(::ws::sim::ShuffleKind::Idx, mask, ::ws::cu::val_t<V>(v), src, width, line);
}
template <class V>
::ws::cu::val_t<V> __shfl_up_sync(unsigned mask, const V& v, unsigned d, int width = 32,
                                  int line = __builtin_LINE()) {
  return ::ws::cu::shuffle(::ws::sim::ShuffleKind::Up, mask, ::ws::cu::val_t<V>(v), int(d), width, line);
}
template <class V>
::ws::cu::val_t<V> __shfl_down_sync(unsigned mask, const V& v, unsigned d, int width = 32,
                                    int line = __builtin_LINE()) {
  return ::ws::cu::shuffle(::ws::sim::ShuffleKind::Down, mask, ::ws::cu::val_t<V>(v), int(d), width, line);
}
template <class V>
::ws::cu::val_t<V> __shfl_xor_sync(unsigned mask, const V& v, int lane_mask, int width = 32,
                                   int line = __builtin_LINE()) {
  return ::ws::cu::shuffle(::ws::sim::ShuffleKind::Xor, mask, ::ws::cu::val_t<V>(v), lane_mask, width, line);
}
inline unsigned __ballot_sync(unsigned mask, bool pred, int line = __builtin_LINE()) {
  return ::ws::cu::lane().ballot(mask, pred, std::uint16_t(line));
}
inline int __any_sync(unsigned mask, bool pred, int line = __builtin_LINE()) {
  return (__ballot_sync(mask, pred, line) & mask) != 0;
}
inline int __all_sync(unsigned mask, bool pred, int line = __builtin_LINE()) {
  return (__ballot_sync(mask, pred, line) & mask) == mask;
}
inline unsigned __activemask(int line = __builtin_LINE()) {
  return ::ws::cu::lane().activemask(std::uint16_t(line));
}
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }

#define WS_CU_ATOMIC(name, expr)                                                               \
  template <class T, class U>                                                                  \
  std::remove_const_t<T> name(const ::ws::cu::Ptr<T>& p, const U& u, int line = __builtin_LINE()) { \
    using V = std::remove_const_t<T>;                                                          \
    const V v = V(::ws::cu::val_t<U>(u));                                                      \
    return ::ws::cu::atomic(p, line, [&](V o) { return V(expr); });                            \
  }
WS_CU_ATOMIC(atomicAdd, o + v)
WS_CU_ATOMIC(atomicSub, o - v)
WS_CU_ATOMIC(atomicExch, v)
WS_CU_ATOMIC(atomicMin, v < o ? v : o)
WS_CU_ATOMIC(atomicMax, v > o ? v : o)
WS_CU_ATOMIC(atomicAnd, o & v)
WS_CU_ATOMIC(atomicOr, o | v)
WS_CU_ATOMIC(atomicXor, o ^ v)
WS_CU_ATOMIC(atomicInc, o >= v ? 0 : o + 1)
WS_CU_ATOMIC(atomicDec, (o == 0 || o > v) ? v : o - 1)
#undef WS_CU_ATOMIC
template <class T, class U, class W>
std::remove_const_t<T> atomicCAS(const ::ws::cu::Ptr<T>& p, const U& cmp, const W& val,
                                 int line = __builtin_LINE()) {
  using V = std::remove_const_t<T>;
  const V c = V(::ws::cu::val_t<U>(cmp)), v = V(::ws::cu::val_t<W>(val));
  return ::ws::cu::atomic(p, line, [&](V o) { return o == c ? v : o; });
}

// min/max over CUDA's mixed argument types (the usual arithmetic conversions).
template <class A, class B>
auto min(const A& a, const B& b) {
  using R = std::common_type_t<::ws::cu::val_t<A>, ::ws::cu::val_t<B>>;
  const R x = R(::ws::cu::val_t<A>(a)), y = R(::ws::cu::val_t<B>(b));
  return y < x ? y : x;
}
template <class A, class B>
auto max(const A& a, const B& b) {
  using R = std::common_type_t<::ws::cu::val_t<A>, ::ws::cu::val_t<B>>;
  const R x = R(::ws::cu::val_t<A>(a)), y = R(::ws::cu::val_t<B>(b));
  return x < y ? y : x;
}
inline float rsqrtf(float x) { return 1.f / std::sqrt(x); }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return x < 0.f ? 0.f : x > 1.f ? 1.f : x; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
