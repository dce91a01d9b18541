#include "sim/fiber.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#if defined(WS_FIBER_BOOST)
#include <boost/context/detail/fcontext.hpp>
#endif
// Under valgrind, stacks must be registered or every switch reads as a wild access;
// outside valgrind the client requests cost a few instructions, once per stack.
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define WS_STACK_REGISTER(lo, hi) VALGRIND_STACK_REGISTER(lo, hi)
#define WS_STACK_DEREGISTER(id) VALGRIND_STACK_DEREGISTER(id)
#else
#define WS_STACK_REGISTER(lo, hi) 0u
#define WS_STACK_DEREGISTER(id) ((void)(id))
#endif

// ThreadSanitizer follows a thread's stack and knows nothing of our switches: each fiber
// gets a TSan fiber and every switch names the one it goes to (the sanitizer's fiber API),
// or TSan takes the fiber stacks for one endless stack and crashes.
#if defined(WS_TSAN_FIBERS)
#include <sanitizer/tsan_interface.h>
#endif

// The native switch (x86-64 System V). ws_fiber_swap(save, load) pushes the callee-saved
// registers, stores the stack pointer in *save, loads `load`, pops the other context's
// registers and returns into it: a call and a ret, so the return-address predictor pairs
// each switch's ret with its call (the code a lane parks from is the code the next lane
// resumes in). The caller-saved registers, the FP control words included, are the
// caller's to keep, as for any call. A fresh stack "returns" into ws_fiber_trampoline
// with the Fiber* in rbx and the entry in r12.
#if defined(WS_FIBER_NATIVE)
extern "C" void ws_fiber_trampoline();
asm(R"(
  .text
  .p2align 4
  .globl ws_fiber_swap
  .hidden ws_fiber_swap
  .type ws_fiber_swap,@function
ws_fiber_swap:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size ws_fiber_swap, .-ws_fiber_swap

  .p2align 4
  .globl ws_fiber_trampoline
  .hidden ws_fiber_trampoline
  .type ws_fiber_trampoline,@function
ws_fiber_trampoline:
  .cfi_startproc
  .cfi_undefined rip
  movq %rbx, %rdi
  callq *%r12
  ud2
  .cfi_endproc
  .size ws_fiber_trampoline, .-ws_fiber_trampoline
)");
#endif

namespace ws::sim {

std::string_view to_string(FiberBackend b) {
  switch (b) {
    case FiberBackend::Boost: return "boost";
    case FiberBackend::Ucontext: return "ucontext";
    case FiberBackend::Native: return "native";
  }
  return "unknown";
}

std::string_view to_string(Fiber::State s) {
  switch (s) {
    case Fiber::State::Idle: return "idle";
    case Fiber::State::Ready: return "ready";
    case Fiber::State::Suspended: return "suspended";
    case Fiber::State::Running: return "running";
  }
  return "unknown";
}

bool fiber_backend_available(FiberBackend b) {
  switch (b) {
    case FiberBackend::Ucontext: return true;
    case FiberBackend::Boost:
#if defined(WS_FIBER_BOOST)
      return true;
#else
      return false;
#endif
    case FiberBackend::Native:
#if defined(WS_FIBER_NATIVE)
      return true;
#else
      return false;
#endif
  }
  return false;
}

FiberBackend default_fiber_backend() {
  const char* env = std::getenv("WS_FIBERS");
  if (env && std::strcmp(env, "ucontext") == 0) return FiberBackend::Ucontext;
  if (env && std::strcmp(env, "boost") == 0 && fiber_backend_available(FiberBackend::Boost))
    return FiberBackend::Boost;
  if (fiber_backend_available(FiberBackend::Native)) return FiberBackend::Native;
  return fiber_backend_available(FiberBackend::Boost) ? FiberBackend::Boost
                                                      : FiberBackend::Ucontext;
}

// ---------------------------------------------------------------------------------------
// StackPool

StackPool::StackPool(std::size_t stack_bytes) {
  long pg = ::sysconf(_SC_PAGESIZE);
  page_ = pg > 0 ? std::size_t(pg) : 4096;
  if (stack_bytes < 16 * 1024) stack_bytes = 16 * 1024;
  stack_bytes_ = (stack_bytes + page_ - 1) / page_ * page_ + page_;
}

StackPool::~StackPool() {
  for (std::size_t i = 0; i < all_.size(); ++i) {
    WS_STACK_DEREGISTER(valgrind_ids_[i]);
    ::munmap(all_[i].base - page_, all_[i].size + page_);
  }
}

StackPool::Stack StackPool::acquire() {
  if (!free_.empty()) {
    Stack s = free_.back();
    free_.pop_back();
    return s;
  }
  // Reserve the vectors first so that a failed push_back cannot leak a mapping.
  all_.reserve(all_.size() + 1);
  free_.reserve(all_.size() + 1);
  valgrind_ids_.reserve(all_.size() + 1);
  void* p = ::mmap(nullptr, stack_bytes_ + page_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // The lowest page is the guard: stacks grow down into it on overflow.
  if (::mprotect(p, page_, PROT_NONE) != 0) {
    ::munmap(p, stack_bytes_ + page_);
    throw std::bad_alloc();
  }
  // Colours step by 5 lines (coprime with the 64 lines of a page), so 64 stacks in a row
  // each start on a line of their own.
  const std::size_t color = (all_.size() * 5 % (page_ / 64)) * 64;
  Stack s{static_cast<std::byte*>(p) + page_, stack_bytes_, color};
  all_.push_back(s);
  valgrind_ids_.push_back(unsigned(WS_STACK_REGISTER(s.base, s.base + s.size)));
  return s;
}

void StackPool::release(Stack s) {
  if (s.base) free_.push_back(s);
}

// ---------------------------------------------------------------------------------------
// Fiber

#if defined(WS_FIBER_BOOST)
namespace bc = boost::context::detail;
#endif

// The ucontext backend's register file; Boost keeps only a pointer (fctx_).
struct FiberHost::Impl {
  ucontext_t uc;
};
struct Fiber::Impl {
  ucontext_t uc;
};

FiberHost::FiberHost(FiberBackend backend)
    : backend_(fiber_backend_available(backend) ? backend : FiberBackend::Ucontext) {
  if (backend_ == FiberBackend::Ucontext) uc_ = new Impl();
}
FiberHost::~FiberHost() { delete uc_; }

Fiber::Fiber(StackPool& pool, FiberHost& host) : host_(host), pool_(pool) {
#if defined(WS_TSAN_FIBERS)
  tsan_ = __tsan_create_fiber(0);
#endif
}

Fiber::~Fiber() {
  if (stack_.base) pool_.release(stack_);
#if defined(WS_TSAN_FIBERS)
  __tsan_destroy_fiber(tsan_);
#endif
  delete uc_;
}

void Fiber::start(Entry fn, void* arg) {
  if (state_ != State::Idle)
    throw std::logic_error("Fiber::start on a fiber that is " + std::string(to_string(state_)) +
                           ", not idle");
  stack_ = pool_.acquire();
  fn_ = fn;
  arg_ = arg;
  successor_ = nullptr;
  if (host_.backend_ == FiberBackend::Native) {
#if defined(WS_FIBER_NATIVE)
    // The frame ws_fiber_swap pops (r15, r14, r13, r12, rbx, rbp, return address), placed
    // so that the trampoline's call finds the stack 16-byte aligned.
    auto top = reinterpret_cast<std::uintptr_t>(stack_.base + stack_.size - stack_.color) & ~std::uintptr_t(15);
    auto* sp = reinterpret_cast<void**>(top - 72);
    sp[0] = sp[1] = sp[2] = nullptr;                                 // r15, r14, r13
    sp[3] = reinterpret_cast<void*>(&Fiber::native_entry);           // r12
    sp[4] = this;                                                    // rbx
    sp[5] = nullptr;                                                 // rbp
    sp[6] = reinterpret_cast<void*>(&ws_fiber_trampoline);           // return address
    fctx_ = sp;
#endif
  } else if (host_.backend_ == FiberBackend::Boost) {
#if defined(WS_FIBER_BOOST)
    fctx_ = bc::make_fcontext(stack_.base + stack_.size - stack_.color, stack_.size - stack_.color,
                                [](bc::transfer_t t) {
      // The first switch into a fiber passes the fiber itself as data.
      Fiber* f = static_cast<Fiber*>(t.data);
      land(f->host_, t.fctx);
      enter(f);
    });
#endif
  } else {
    if (!uc_) uc_ = new Impl();
    Impl& im = *uc_;
    if (::getcontext(&im.uc) != 0) {
      pool_.release(stack_);
      stack_ = {};
      throw std::runtime_error("getcontext failed");
    }
    im.uc.uc_stack.ss_sp = stack_.base;
    im.uc.uc_stack.ss_size = stack_.size - stack_.color;
    im.uc.uc_link = nullptr;  // enter() never returns: it switches away itself
    auto bits = reinterpret_cast<std::uintptr_t>(this);
    ::makecontext(&im.uc, reinterpret_cast<void (*)()>(&Fiber::ucontext_entry), 2,
                  unsigned(bits >> 32), unsigned(bits & 0xffffffffu));
  }
  state_ = State::Ready;
}

// makecontext passes only ints: the Fiber* travels as two 32-bit halves.
void Fiber::ucontext_entry(unsigned hi, unsigned lo) {
  auto bits = (std::uintptr_t(hi) << 32) | std::uintptr_t(lo);
  Fiber* f = reinterpret_cast<Fiber*>(bits);
  land(f->host_, nullptr);
  enter(f);
}

void Fiber::native_entry(Fiber* f) {
  land(f->host_, nullptr);
  enter(f);
}

// Runs after every switch, on the stack that was switched to: stores the context of the
// one that switched away, and gives back the stack of a fiber that has finished (never
// released while that fiber still stood on it).
void Fiber::land(FiberHost& h, void* fctx) {
  if (h.backend_ == FiberBackend::Boost) {
    if (Fiber* from = h.from_)
      from->fctx_ = fctx;
    else
      h.fctx_ = fctx;
  }
  if (Fiber* done = h.finished_) {
    h.finished_ = nullptr;
    done->pool_.release(done->stack_);
    done->stack_ = {};
  }
}

void Fiber::cannot_yield_to() {
  throw std::logic_error("Fiber::yield_to a fiber that cannot run now");
}

void Fiber::switch_to(FiberHost& h, Fiber* self, Fiber* to) {
  h.from_ = self;
#if defined(WS_TSAN_FIBERS)  // TSan is told which fiber runs next, just before the switch
  if (!self) h.tsan_ = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(to ? to->tsan_ : h.tsan_, 0);
#endif
  if (h.backend_ == FiberBackend::Native) {
#if defined(WS_FIBER_NATIVE)
    ws_fiber_swap(self ? &self->fctx_ : &h.fctx_, to ? to->fctx_ : h.fctx_);
    land(h, nullptr);
#endif
  } else if (h.backend_ == FiberBackend::Boost) {
#if defined(WS_FIBER_BOOST)
    bc::transfer_t t = bc::jump_fcontext(to ? to->fctx_ : h.fctx_, to);
    land(h, t.fctx);
#endif
  } else {
    ::swapcontext(self ? &self->uc_->uc : &h.uc_->uc, to ? &to->uc_->uc : &h.uc_->uc);
    land(h, nullptr);
  }
}

void Fiber::exit_to(FiberHost& h, Fiber* self, Fiber* to) {
  self->state_ = State::Idle;
  h.from_ = self;
  h.finished_ = self;  // its stack goes back once the next context stands on its own
#if defined(WS_TSAN_FIBERS)
  __tsan_switch_to_fiber(to ? to->tsan_ : h.tsan_, 0);
#endif
  if (h.backend_ == FiberBackend::Native) {
#if defined(WS_FIBER_NATIVE)
    void* dead = nullptr;  // this context is never resumed
    ws_fiber_swap(&dead, to ? to->fctx_ : h.fctx_);
#endif
  } else if (h.backend_ == FiberBackend::Boost) {
#if defined(WS_FIBER_BOOST)
    bc::jump_fcontext(to ? to->fctx_ : h.fctx_, to);
#endif
  } else {
    ::setcontext(to ? &to->uc_->uc : &h.uc_->uc);
  }
  std::abort();  // unreachable: a finished fiber is never switched to
}

void Fiber::enter(Fiber* f) {
  f->state_ = State::Running;
  try {
    f->fn_(f->arg_);
  } catch (...) {
    if (!f->host_.escaped_) f->host_.escaped_ = std::current_exception();
  }
  Fiber* next = f->successor_;
  if (next && (next == f || &next->host_ != &f->host_ || !next->can_run())) next = nullptr;
  if (next) next->state_ = State::Running;
  exit_to(f->host_, f, next);
}

void Fiber::resume() {
  if (!can_run())
    throw std::logic_error("Fiber::resume on a fiber that is " + std::string(to_string(state_)) +
                           ", neither ready nor suspended");
  state_ = State::Running;
  switch_to(host_, nullptr, this);
  if (host_.escaped_) {
    std::exception_ptr e = std::move(host_.escaped_);
    host_.escaped_ = nullptr;
    std::rethrow_exception(e);
  }
}

void Fiber::yield() {
  state_ = State::Suspended;
  switch_to(host_, this, nullptr);
}


}  // namespace ws::sim
