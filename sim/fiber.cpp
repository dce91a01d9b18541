#include "sim/fiber.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#if defined(WS_FIBER_BOOST)
#include <boost/context/detail/fcontext.hpp>
#endif

namespace ws::sim {

std::string_view to_string(FiberBackend b) {
  switch (b) {
    case FiberBackend::Boost: return "boost";
    case FiberBackend::Ucontext: return "ucontext";
  }
  return "unknown";
}

bool fiber_backend_available(FiberBackend b) {
#if defined(WS_FIBER_BOOST)
  (void)b;
  return true;
#else
  return b == FiberBackend::Ucontext;
#endif
}

FiberBackend default_fiber_backend() {
  const char* env = std::getenv("WS_FIBERS");
  if (env && std::strcmp(env, "ucontext") == 0) return FiberBackend::Ucontext;
  return fiber_backend_available(FiberBackend::Boost) ? FiberBackend::Boost
                                                      : FiberBackend::Ucontext;
}

// ---------------------------------------------------------------------------------------
// StackPool

StackPool::StackPool(std::size_t stack_bytes) {
  long pg = ::sysconf(_SC_PAGESIZE);
  page_ = pg > 0 ? std::size_t(pg) : 4096;
  if (stack_bytes < 16 * 1024) stack_bytes = 16 * 1024;
  stack_bytes_ = (stack_bytes + page_ - 1) / page_ * page_;
}

StackPool::~StackPool() {
  for (const Stack& s : all_) ::munmap(s.base - page_, s.size + page_);
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
  void* p = ::mmap(nullptr, stack_bytes_ + page_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // The lowest page is the guard: stacks grow down into it on overflow.
  if (::mprotect(p, page_, PROT_NONE) != 0) {
    ::munmap(p, stack_bytes_ + page_);
    throw std::bad_alloc();
  }
  Stack s{static_cast<std::byte*>(p) + page_, stack_bytes_};
  all_.push_back(s);
  return s;
}

void StackPool::release(Stack s) {
  if (s.base) free_.push_back(s);
}

// ---------------------------------------------------------------------------------------
// Fiber

struct Fiber::Impl {
  // Boost: the fiber's own context while it is suspended, and the resumer's while it runs.
  void* self = nullptr;
  void* caller = nullptr;
  ucontext_t uself;
  ucontext_t ucaller;
};

#if defined(WS_FIBER_BOOST)
namespace bc = boost::context::detail;
#endif

Fiber::Impl& Fiber::impl() { return *std::launder(reinterpret_cast<Impl*>(ctx_)); }

Fiber::Fiber(StackPool& pool, FiberBackend backend) : pool_(pool), backend_(backend) {
  static_assert(sizeof(Impl) <= sizeof(ctx_) && alignof(Impl) <= 16, "grow Fiber::ctx_");
  if (!fiber_backend_available(backend_)) backend_ = FiberBackend::Ucontext;
  new (ctx_) Impl();
}

Fiber::~Fiber() {
  if (stack_.base) pool_.release(stack_);
  impl().~Impl();
}

void Fiber::start(Entry fn, void* arg) {
  if (state_ != State::Idle) throw std::logic_error("Fiber::start on a fiber that is not idle");
  stack_ = pool_.acquire();
  fn_ = fn;
  arg_ = arg;
  escaped_ = nullptr;
  Impl& im = impl();
  if (backend_ == FiberBackend::Boost) {
#if defined(WS_FIBER_BOOST)
    im.self = bc::make_fcontext(stack_.base + stack_.size, stack_.size, [](bc::transfer_t t) {
      Fiber* f = static_cast<Fiber*>(t.data);
      f->impl().caller = t.fctx;
      enter(f);
    });
#endif
  } else {
    if (::getcontext(&im.uself) != 0) {
      pool_.release(stack_);
      stack_ = {};
      throw std::runtime_error("getcontext failed");
    }
    im.uself.uc_stack.ss_sp = stack_.base;
    im.uself.uc_stack.ss_size = stack_.size;
    im.uself.uc_link = nullptr;  // enter() never returns: it switches back itself
    auto bits = reinterpret_cast<std::uintptr_t>(this);
    ::makecontext(&im.uself, reinterpret_cast<void (*)()>(&Fiber::ucontext_entry), 2,
                  unsigned(bits >> 32), unsigned(bits & 0xffffffffu));
  }
  state_ = State::Ready;
}

// makecontext passes only ints: the Fiber* travels as two 32-bit halves.
void Fiber::ucontext_entry(unsigned hi, unsigned lo) {
  auto bits = (std::uintptr_t(hi) << 32) | std::uintptr_t(lo);
  enter(reinterpret_cast<Fiber*>(bits));
}

void Fiber::enter(Fiber* f) {
  f->state_ = State::Running;
  try {
    f->fn_(f->arg_);
  } catch (...) {
    f->escaped_ = std::current_exception();
  }
  f->finish_on_caller();
}

// Switches back to the resumer for the last time. The stack is released by resume()
// on the caller's side, never while we still stand on it.
void Fiber::finish_on_caller() {
  state_ = State::Idle;
  Impl& im = impl();
  if (backend_ == FiberBackend::Boost) {
#if defined(WS_FIBER_BOOST)
    bc::jump_fcontext(im.caller, nullptr);
#endif
  } else {
    ::setcontext(&im.ucaller);
  }
  std::abort();  // unreachable: a finished fiber is never resumed
}

void Fiber::resume() {
  if (state_ != State::Ready && state_ != State::Suspended)
    throw std::logic_error("Fiber::resume on a fiber that is neither ready nor suspended");
  Impl& im = impl();
  state_ = State::Running;
  if (backend_ == FiberBackend::Boost) {
#if defined(WS_FIBER_BOOST)
    bc::transfer_t t = bc::jump_fcontext(im.self, this);
    im.self = t.fctx;
#endif
  } else {
    ::swapcontext(&im.ucaller, &im.uself);
  }
  if (state_ == State::Idle) {
    pool_.release(stack_);
    stack_ = {};
    im.self = nullptr;
    if (escaped_) {
      std::exception_ptr e = std::move(escaped_);
      escaped_ = nullptr;
      std::rethrow_exception(e);
    }
  }
}

void Fiber::yield() {
  Impl& im = impl();
  state_ = State::Suspended;
  if (backend_ == FiberBackend::Boost) {
#if defined(WS_FIBER_BOOST)
    bc::transfer_t t = bc::jump_fcontext(im.caller, nullptr);
    im.caller = t.fctx;
#endif
  } else {
    ::swapcontext(&im.uself, &im.ucaller);
  }
  state_ = State::Running;
}

}  // namespace ws::sim
