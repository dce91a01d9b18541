// The fiber layer under the emulator: switch order, direct fiber-to-fiber switches, many
// fibers, stack reuse, exceptions kept on their own side, and both backends (Boost.Context
// when built, ucontext always).
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <utility>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/fiber.h"

namespace {

using ws::sim::Fiber;
using ws::sim::FiberHost;
using ws::sim::FiberBackend;
using ws::sim::StackPool;

class FiberTest : public ::testing::TestWithParam<FiberBackend> {
 protected:
  void SetUp() override {
    if (!ws::sim::fiber_backend_available(GetParam()))
      GTEST_SKIP() << "backend " << ws::sim::to_string(GetParam()) << " not built";
  }
  StackPool pool;
  FiberHost host{GetParam()};
};

struct Log {
  std::vector<std::string>* out;
  Fiber* self;
  std::string name;
  int steps;
};

void log_entry(void* p) {
  auto* l = static_cast<Log*>(p);
  for (int i = 0; i < l->steps; ++i) {
    l->out->push_back(l->name + std::to_string(i));
    l->self->yield();
  }
  l->out->push_back(l->name + "end");
}

TEST_P(FiberTest, SwitchOrderInterleavesAsResumed) {
  Fiber a(pool, host), b(pool, host);
  EXPECT_EQ(a.backend(), GetParam());
  std::vector<std::string> out;
  Log la{&out, &a, "a", 2}, lb{&out, &b, "b", 1};
  a.start(&log_entry, &la);
  b.start(&log_entry, &lb);
  EXPECT_EQ(a.state(), Fiber::State::Ready);
  EXPECT_TRUE(out.empty());  // start() runs nothing
  a.resume();
  EXPECT_EQ(a.state(), Fiber::State::Suspended);
  b.resume();
  b.resume();
  EXPECT_TRUE(b.idle());
  a.resume();
  a.resume();
  EXPECT_TRUE(a.idle());
  EXPECT_EQ(out, (std::vector<std::string>{"a0", "b0", "bend", "a1", "aend"}));
}

struct Counter {
  Fiber* self;
  int id;
  int rounds;
  long* sum;
};

void count_entry(void* p) {
  auto* c = static_cast<Counter*>(p);
  volatile char pad[2048];  // locals on the fiber stack must survive every switch
  for (int i = 0; i < int(sizeof pad); ++i) pad[i] = char(c->id + i);
  for (int r = 0; r < c->rounds; ++r) {
    *c->sum += c->id;
    c->self->yield();
  }
  for (int i = 0; i < int(sizeof pad); ++i)
    if (pad[i] != char(c->id + i)) throw std::runtime_error("stack clobbered");
}

TEST_P(FiberTest, ManyFibersRoundRobinAndStacksAreReused) {
  constexpr int kFibers = 300, kRounds = 5;
  std::vector<std::unique_ptr<Fiber>> fibers;
  for (int i = 0; i < kFibers; ++i) fibers.push_back(std::make_unique<Fiber>(pool, host));
  long sum = 0;
  for (int batch = 0; batch < 3; ++batch) {
    std::vector<Counter> cs(kFibers);
    for (int i = 0; i < kFibers; ++i) {
      cs[i] = Counter{fibers[i].get(), i, kRounds, &sum};
      fibers[i]->start(&count_entry, &cs[i]);
    }
    bool any = true;
    while (any) {
      any = false;
      for (auto& f : fibers)
        if (!f->idle()) {
          f->resume();  // would rethrow "stack clobbered"
          any = true;
        }
    }
    // Every stack went back to the pool, and the next batch reuses them.
    EXPECT_EQ(pool.mapped(), std::size_t(kFibers));
    EXPECT_EQ(pool.idle(), std::size_t(kFibers));
  }
  EXPECT_EQ(sum, 3L * kRounds * (kFibers - 1) * kFibers / 2);
}

void throwing_entry(void* p) {
  auto* f = static_cast<Fiber*>(p);
  f->yield();
  throw std::runtime_error("from the fiber");
}

TEST_P(FiberTest, ExceptionStaysOnItsStackAndIsRethrownByResume) {
  Fiber f(pool, host);
  f.start(&throwing_entry, &f);
  f.resume();
  EXPECT_EQ(f.state(), Fiber::State::Suspended);
  try {
    f.resume();
    FAIL() << "resume did not rethrow";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "from the fiber");
  }
  EXPECT_TRUE(f.idle());
  EXPECT_EQ(pool.idle(), 1u);
  // The fiber can be started again after an escaped exception.
  std::vector<std::string> out;
  Log l{&out, &f, "x", 0};
  f.start(&log_entry, &l);
  f.resume();
  EXPECT_EQ(out, std::vector<std::string>{"xend"});
}

void noop_entry(void*) {}

TEST_P(FiberTest, MisuseIsAnErrorNotACrash) {
  Fiber f(pool, host);
  EXPECT_THROW(f.resume(), std::logic_error);  // idle
  f.start(&noop_entry, nullptr);
  EXPECT_THROW(f.start(&noop_entry, nullptr), std::logic_error);  // not idle
  f.resume();
  EXPECT_TRUE(f.idle());
  EXPECT_THROW(f.resume(), std::logic_error);  // finished
}

TEST_P(FiberTest, DestroyingAReadyFiberReturnsItsStack) {
  {
    Fiber f(pool, host);
    f.start(&noop_entry, nullptr);
    EXPECT_EQ(pool.idle(), 0u);
  }
  EXPECT_EQ(pool.idle(), 1u);
}

int deep(int n) {
  volatile char buf[512];
  buf[0] = char(n);
  return n == 0 ? buf[0] : deep(n - 1) + 1;
}
void deep_entry(void* p) { *static_cast<int*>(p) = deep(60); }  // ~30 KiB of stack

TEST_P(FiberTest, StackHoldsTensOfKilobytes) {
  EXPECT_GE(pool.stack_bytes(), StackPool::kDefaultStackBytes);
  Fiber f(pool, host);
  int r = -1;
  f.start(&deep_entry, &r);
  f.resume();
  EXPECT_EQ(r, 60);
}


// A ring of fibers that pass control along without the host: each logs, then switches to
// the next; the last of a round yields to the host.
struct Ring {
  std::vector<std::unique_ptr<Fiber>>* fibers;
  std::vector<int>* out;
  int id;
  int rounds;
};

void ring_entry(void* p) {
  auto* r = static_cast<Ring*>(p);
  auto& fs = *r->fibers;
  const int n = int(fs.size());
  for (int round = 0; round < r->rounds; ++round) {
    r->out->push_back(round * 100 + r->id);
    if (r->id + 1 < n)
      fs[r->id]->yield_to(*fs[r->id + 1]);
    else
      fs[r->id]->yield();
  }
  // On exit, hand over to the next fiber directly as well.
  if (r->id + 1 < n) fs[r->id]->set_successor(fs[r->id + 1].get());
}

TEST_P(FiberTest, FibersSwitchStraightToEachOther) {
  constexpr int kFibers = 5, kRounds = 3;
  std::vector<std::unique_ptr<Fiber>> fs;
  for (int i = 0; i < kFibers; ++i) fs.push_back(std::make_unique<Fiber>(pool, host));
  std::vector<Ring> rings;
  std::vector<int> out;
  for (int i = 0; i < kFibers; ++i) rings.push_back(Ring{&fs, &out, i, kRounds});
  for (int i = 0; i < kFibers; ++i) fs[i]->start(&ring_entry, &rings[i]);
  std::vector<int> want;
  for (int round = 0; round < kRounds; ++round) {
    fs[0]->resume();  // one resume runs the whole ring once
    for (int i = 0; i < kFibers; ++i) want.push_back(round * 100 + i);
    EXPECT_EQ(out, want);
    for (auto& f : fs) EXPECT_EQ(f->state(), Fiber::State::Suspended);
  }
  fs[0]->resume();  // every entry returns, each handing over to the next
  for (auto& f : fs) EXPECT_TRUE(f->idle());
  EXPECT_EQ(pool.idle(), std::size_t(kFibers));  // finished fibers' stacks came back
}

void bad_switch_entry(void* p) {
  auto* f = static_cast<Fiber*>(p);
  f->yield_to(*f);  // not allowed: throws on this fiber's stack
}

TEST_P(FiberTest, BadSwitchThrowsInsideAndResurfacesAtTheHost) {
  Fiber f(pool, host);
  f.start(&bad_switch_entry, &f);
  EXPECT_THROW(f.resume(), std::logic_error);
  EXPECT_TRUE(f.idle());
}

void exit_to_idle_entry(void* p) {
  auto* pair = static_cast<std::pair<Fiber*, Fiber*>*>(p);
  pair->first->set_successor(pair->second);  // an idle successor cannot run: host instead
}

TEST_P(FiberTest, SuccessorThatCannotRunFallsBackToTheHost) {
  Fiber f(pool, host), idle(pool, host);
  std::pair<Fiber*, Fiber*> pair{&f, &idle};
  f.start(&exit_to_idle_entry, &pair);
  f.resume();
  EXPECT_TRUE(f.idle());
  EXPECT_TRUE(idle.idle());
}

INSTANTIATE_TEST_SUITE_P(Backends, FiberTest,
                         ::testing::Values(FiberBackend::Native, FiberBackend::Boost, FiberBackend::Ucontext),
                         [](const auto& info) { return std::string(ws::sim::to_string(info.param)); });

TEST_P(FiberTest, MisuseMessageNamesTheState) {
  EXPECT_EQ(to_string(Fiber::State::Idle), "idle");
  EXPECT_EQ(to_string(Fiber::State::Ready), "ready");
  EXPECT_EQ(to_string(Fiber::State::Suspended), "suspended");
  EXPECT_EQ(to_string(Fiber::State::Running), "running");
  Fiber f(pool, host);
  try {
    f.resume();
    ADD_FAILURE() << "resume on an idle fiber did not throw";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("is idle"), std::string::npos) << e.what();
  }
  f.start(&noop_entry, nullptr);
  try {
    f.start(&noop_entry, nullptr);
    ADD_FAILURE() << "start on a ready fiber did not throw";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("is ready"), std::string::npos) << e.what();
  }
  f.resume();
}

TEST(FiberBackendTest, UcontextAlwaysAvailableAndEnvSelectsIt) {
  EXPECT_TRUE(ws::sim::fiber_backend_available(FiberBackend::Ucontext));
  ::setenv("WS_FIBERS", "ucontext", 1);
  EXPECT_EQ(ws::sim::default_fiber_backend(), FiberBackend::Ucontext);
  ::unsetenv("WS_FIBERS");
  EXPECT_TRUE(ws::sim::fiber_backend_available(ws::sim::default_fiber_backend()));
#if defined(WS_FIBER_NATIVE)  // x86-64, not under AddressSanitizer (sim/fiber.h)
  EXPECT_TRUE(ws::sim::fiber_backend_available(FiberBackend::Native));
  EXPECT_EQ(ws::sim::default_fiber_backend(), FiberBackend::Native);
#elif defined(WS_EXPECT_BOOST_FIBERS)
  EXPECT_EQ(ws::sim::default_fiber_backend(), FiberBackend::Boost);
#endif
#if defined(WS_EXPECT_BOOST_FIBERS)
  ::setenv("WS_FIBERS", "boost", 1);
  EXPECT_EQ(ws::sim::default_fiber_backend(), FiberBackend::Boost);
  ::unsetenv("WS_FIBERS");
#endif
}

TEST(StackPoolTest, RoundsUpAndReusesLastReleasedFirst) {
  StackPool pool(1000);
  EXPECT_GE(pool.stack_bytes(), 16u * 1024);
  auto a = pool.acquire();
  auto b = pool.acquire();
  EXPECT_EQ(a.size, pool.stack_bytes());
  EXPECT_NE(a.base, b.base);
  pool.release(a);
  pool.release(b);
  EXPECT_EQ(pool.acquire().base, b.base);
  EXPECT_EQ(pool.mapped(), 2u);
}

}  // namespace
