#pragma once
// Fibers for the SIMT emulator: one per CUDA thread of the running block, switched
// cooperatively by the warp scheduler. Two backends behind one class:
//   Boost    Boost.Context's fcontext (a few ns per switch); only when the library was
//            found at configure time (WS_FIBER_BOOST);
//   Ucontext POSIX makecontext/swapcontext, always available, slower (each switch
//            also saves the signal mask with a system call).
// Stacks come from a StackPool of fixed-size, guard-paged stacks reused across blocks,
// so a launch of millions of threads maps only as many stacks as one block has threads.
//
// Exceptions never cross a fiber boundary: an exception that escapes a fiber's entry is
// caught on the fiber's own stack and rethrown by the resume() that was running it.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>
#include <vector>

namespace ws::sim {

enum class FiberBackend : std::uint8_t { Boost, Ucontext };
std::string_view to_string(FiberBackend b);

// @post true for Ucontext always; true for Boost iff compiled with WS_FIBER_BOOST.
bool fiber_backend_available(FiberBackend b);

// The backend new fibers use when none is named: Boost when available, unless the
// environment variable WS_FIBERS=ucontext asks for the fallback (to test it).
// @post fiber_backend_available(result).
FiberBackend default_fiber_backend();

// Fixed-size stacks, each below a PROT_NONE guard page (an overflow faults instead of
// corrupting a neighbour), handed out LIFO so the warm ones are reused first.
class StackPool {
 public:
  static constexpr std::size_t kDefaultStackBytes = 64 * 1024;
  struct Stack {
    std::byte* base = nullptr;  // lowest usable address
    std::size_t size = 0;       // usable bytes; the stack grows down from base + size
  };

  // @post stack_bytes() >= stack_bytes rounded up to whole pages (and >= 16 KiB).
  explicit StackPool(std::size_t stack_bytes = kDefaultStackBytes);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  // @post result.size == stack_bytes(); a released stack is returned before a new one
  //       is mapped. Throws std::bad_alloc when the system refuses the mapping.
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
};

// One cooperative thread of control. Not movable: the running stack refers to it.
class Fiber {
 public:
  using Entry = void (*)(void* arg);
  enum class State : std::uint8_t {
    Idle,       // no entry, no stack
    Ready,      // start() armed it; nothing has run yet
    Suspended,  // it yielded; resume() continues it
    Running,
    // When the entry returns the fiber gives its stack back and becomes Idle again.
  };

  explicit Fiber(StackPool& pool, FiberBackend backend = default_fiber_backend());
  // Destroying a Ready fiber is fine; destroying a Suspended one releases its stack but
  // runs no destructor of what lives on it: unwind it first (resume it so that it
  // returns), which is what the emulator does on an aborted launch.
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // @pre state() == Idle. @post state() == Ready; a stack is taken from the pool.
  // Throws std::logic_error when the fiber is not Idle.
  void start(Entry fn, void* arg);

  // Runs the fiber until it yields or its entry returns.
  // @pre state() is Ready or Suspended (else std::logic_error).
  // @post state() is Suspended (it yielded) or Idle (entry returned, stack released);
  //       an exception that escaped the entry is rethrown here, after the switch back.
  void resume();

  // From inside the running fiber: back to the resume() that runs it.
  // @pre called on the fiber's own stack (state() == Running).
  void yield();

  State state() const { return state_; }
  bool idle() const { return state_ == State::Idle; }
  FiberBackend backend() const { return backend_; }

 private:
  struct Impl;
  Impl& impl();
  static void enter(Fiber* f);  // runs on the fiber's stack; never returns
  static void ucontext_entry(unsigned hi, unsigned lo);
  [[noreturn]] void finish_on_caller();

  StackPool& pool_;
  FiberBackend backend_;
  State state_ = State::Idle;
  Entry fn_ = nullptr;
  void* arg_ = nullptr;
  StackPool::Stack stack_{};
  std::exception_ptr escaped_;
  // Backend contexts, kept opaque so this header needs neither Boost nor <ucontext.h>.
  // Boost uses two pointers; ucontext needs two ucontext_t (under 1 KiB each on Linux).
  alignas(16) unsigned char ctx_[2 * 1024 + 64];
};

}  // namespace ws::sim
