#pragma once
// Fibers for the SIMT emulator: one per CUDA thread of the running block, switched
// cooperatively by the warp scheduler. Three backends behind one class:
//   Native   x86-64 only: six callee-saved registers and the stack pointer, swapped by a
//            routine that is called and returns like any function, so the processor's
//            return predictor stays right across switches (Boost's fcontext leaves by an
//            indirect jump, which made every return after a switch a mispredict: the
//            emulator's largest cost per lane event);
//   Boost    Boost.Context's fcontext (a few ns per switch); only when the library was
//            found at configure time (WS_FIBER_BOOST);
//   Ucontext POSIX makecontext/swapcontext, always available, slower (each switch
//            also saves the signal mask with a system call).
// Stacks come from a StackPool of fixed-size, guard-paged stacks reused across blocks,
// so a launch of millions of threads maps only as many stacks as one block has threads.
//
// A fiber may switch straight to another one (the emulator runs the lanes of a warp
// one after the other without going back to the scheduler in between), which halves
// the switches per event.
//
// Exceptions never cross a fiber boundary: an exception that escapes a fiber's entry is
// caught on the fiber's own stack and rethrown by the host's resume() on the host stack.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>
#include <vector>

// The native switch (sim/fiber.cpp), called inline from yield_to. Not under
// AddressSanitizer: it would need every switch announced (a reused stack keeps the poisoned
// redzones of the frames that lived there), so that build keeps Boost's switch.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WS_FIBER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define WS_FIBER_ASAN 1
#endif
#if defined(__x86_64__) && defined(__ELF__) && !defined(WS_FIBER_ASAN)
#define WS_FIBER_NATIVE 1
extern "C" void ws_fiber_swap(void** save, void* load);
#endif
// ThreadSanitizer is told of every switch (sim/fiber.cpp): then no switch is inline.
#if defined(__SANITIZE_THREAD__)
#define WS_TSAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WS_TSAN_FIBERS 1
#endif
#endif

namespace ws::sim {

enum class FiberBackend : std::uint8_t { Boost, Ucontext, Native };
std::string_view to_string(FiberBackend b);

// @post true for Ucontext always; true for Boost iff compiled with WS_FIBER_BOOST; true
//       for Native iff built for x86-64 (ELF).
bool fiber_backend_available(FiberBackend b);

// The backend new fibers use when none is named: Native, else Boost, else ucontext;
// the environment variable WS_FIBERS=boost or WS_FIBERS=ucontext asks for another (to
// test it or compare), when available.
// @post fiber_backend_available(result).
FiberBackend default_fiber_backend();

// Fixed-size stacks, each below a PROT_NONE guard page (an overflow faults instead of
// corrupting a neighbour), handed out LIFO so the warm ones are reused first.
class StackPool {
 public:
  static constexpr std::size_t kDefaultStackBytes = 64 * 1024;
  struct Stack {
    std::byte* base = nullptr;  // lowest usable address
    std::size_t size = 0;       // bytes mapped above the guard page
    // Bytes left unused at the top: the stack grows down from base + size - color. Each
    // stack's top lands on another 64-byte line of the page, so the hot frames of a warp's
    // 32 fibers sit in different cache sets instead of all in the same few (the stacks are
    // page-aligned: without it every switch evicted the previous lanes' frames).
    std::size_t color = 0;
  };

  // @post stack_bytes() >= stack_bytes rounded up to whole pages (and >= 16 KiB), plus one
  //       page for the colours (so every stack keeps at least the bytes asked for).
  explicit StackPool(std::size_t stack_bytes = kDefaultStackBytes);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  // @post result.size == stack_bytes(), result.color < one page, a multiple of 64; a
  //       released stack is returned before a new one is mapped. Throws std::bad_alloc when the system refuses the mapping.
  Stack acquire();
  // @pre s came from acquire() of this pool and is not in use.
  void release(Stack s);

  std::size_t stack_bytes() const { return stack_bytes_; }
  std::size_t mapped() const { return all_.size(); }  // stacks ever mapped
  std::size_t idle() const { return free_.size(); }   // stacks waiting for reuse

 private:
  std::size_t stack_bytes_ = 0;
  std::size_t page_ = 0;
  std::vector<Stack> all_;
  std::vector<Stack> free_;
  std::vector<unsigned> valgrind_ids_;  // one per mapped stack (0 outside valgrind)
};

class Fiber;

// The context that runs fibers: the stack of the OS thread that calls Fiber::resume()
// (the emulator's scheduler). Fibers of one host may switch straight to each other;
// control comes back to the host when one of them yields to it.
class FiberHost {
 public:
  explicit FiberHost(FiberBackend backend = default_fiber_backend());
  ~FiberHost();
  FiberHost(const FiberHost&) = delete;
  FiberHost& operator=(const FiberHost&) = delete;
  FiberBackend backend() const { return backend_; }

 private:
  friend class Fiber;
  struct Impl;
  FiberBackend backend_;
  Fiber* from_ = nullptr;        // who switched last (nullptr: the host itself)
  Fiber* finished_ = nullptr;    // a fiber whose entry returned, its stack not yet released
  std::exception_ptr escaped_;   // an exception that left a fiber's entry
  void* fctx_ = nullptr;         // Boost, Native: the host's saved context
  void* tsan_ = nullptr;         // the TSan fiber of the thread that runs the host
  Impl* uc_ = nullptr;           // ucontext: its register file (opaque: no <ucontext.h> here)
};

// One cooperative thread of control. Not movable: the running stack refers to it.
class Fiber {
 public:
  using Entry = void (*)(void* arg);
  enum class State : std::uint8_t {
    Idle,       // no entry, no stack (also once the entry has returned)
    Ready,      // start() armed it; nothing has run yet
    Suspended,  // it switched away; it continues when something switches to it
    Running,
  };

  Fiber(StackPool& pool, FiberHost& host);
  // Destroying a Ready fiber is fine; destroying a Suspended one releases its stack but
  // runs no destructor of what lives on it: unwind it first (resume it so that it
  // returns), which is what the emulator does on an aborted launch.
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // @pre state() == Idle (else std::logic_error). @post state() == Ready, with a stack
  //      from the pool and no successor.
  void start(Entry fn, void* arg);

  // From the host: runs this fiber, and whatever it switches to, until one yields to
  // the host. @pre state() is Ready or Suspended (else std::logic_error).
  // @post the host runs again; every fiber whose entry returned meanwhile is Idle with
  //       its stack back in the pool; an exception that escaped an entry is rethrown.
  void resume();

  // From inside the running fiber: back to the host.
  void yield();
  // From inside the running fiber: suspends it and runs `next` (Ready or Suspended, not
  // this one, same host; else std::logic_error, thrown on this fiber's stack). Inline:
  // the emulator switches lanes this way at every event of every lane.
  void yield_to(Fiber& next) {
    if (&next == this || &next.host_ != &host_ || !next.can_run()) [[unlikely]]
      cannot_yield_to();
    state_ = State::Suspended;
    next.state_ = State::Running;
#if defined(WS_FIBER_NATIVE) && !defined(WS_TSAN_FIBERS)
    if (host_.backend_ == FiberBackend::Native) [[likely]] {
      ws_fiber_swap(&fctx_, next.fctx_);
      if (host_.finished_) [[unlikely]]
        land(host_, nullptr);
      return;
    }
#endif
    switch_to(host_, this, &next);
  }
  // Where control goes when the entry returns: `next` (checked then as for yield_to;
  // the host if it cannot run), or the host when nullptr. Reset by start().
  void set_successor(Fiber* next) { successor_ = next; }

  State state() const { return state_; }
  bool idle() const { return state_ == State::Idle; }
  FiberBackend backend() const { return host_.backend_; }

 private:
  struct Impl;
  static void enter(Fiber* f);  // runs on the fiber's stack; never returns
  static void ucontext_entry(unsigned hi, unsigned lo);
  static void native_entry(Fiber* f);
  // Saves this context (or the host's when self is nullptr) and runs `to` (the host when
  // nullptr); returns when something switches back.
  static void switch_to(FiberHost& h, Fiber* self, Fiber* to);
  [[noreturn]] static void exit_to(FiberHost& h, Fiber* self, Fiber* to);
  static void land(FiberHost& h, void* fctx);  // bookkeeping after every switch
  [[noreturn, gnu::cold]] static void cannot_yield_to();
  bool can_run() const { return state_ == State::Ready || state_ == State::Suspended; }

  // What every switch reads comes first, in one cache line: the emulator switches
  // between hundreds of fibers, so each line a switch touches is a likely miss.
  void* fctx_ = nullptr;  // Boost, Native: the saved context, a pointer into the suspended stack
  FiberHost& host_;
  State state_ = State::Idle;
  Fiber* successor_ = nullptr;
  Entry fn_ = nullptr;
  void* arg_ = nullptr;
  StackPool& pool_;
  StackPool::Stack stack_{};
  void* tsan_ = nullptr;  // its TSan fiber
  Impl* uc_ = nullptr;    // ucontext: its register file (under 1 KiB), made on first start
};

std::string_view to_string(Fiber::State s);

}  // namespace ws::sim
