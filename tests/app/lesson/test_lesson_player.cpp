// Completing a lesson by driving the player's logic as the GUI does: open each step, run
// its lab on the emulator, answer the predicts, change parameters until the goals are
// reached, then read the saved progress back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "app/lesson/player.h"

using namespace ws::lesson;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("ws_player_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

// What the GUI's worker does after a step opens or a parameter changes.
void run(Player& p, ws::Backend& b) {
  Lab lab = *p.lab();
  lab.variant = p.variant();
  p.set_facts(run_lab(lab, p.changes(), b, p.wanted()));
}

const char* kLesson = R"(---
title: Player test
level: beginner
minutes: 5
---
## Read the warp's store

```lab
family: transpose
variant: naive
params: n=64 tile=32 block_rows=8
view: sector-map
```

```predict
question: Sectors per store request?
answer: st_sectors_per_request
expect: 32
explain: The store spreads over {answer} sectors.
```

## Fix it

```goal
task: Stage the tile in shared memory.
target: st_sectors_per_request == 4
reach: variant=tiled pad=1
```

## Wrap-up

Nothing to do here.
)";

}  // namespace

TEST(LessonPlayer, CompletesALessonAndSavesProgress) {
  TempDir d;
  ParseResult r = parse_lesson_text(kLesson, "lessons/99-player.md");
  ASSERT_TRUE(r.ok()) << r.message();
  auto emu = ws::make_emu_backend();
  {
    Player p(*r.lesson, d.path.string());
    EXPECT_EQ(p.notice(), "");
    ASSERT_EQ(p.step_count(), 3u);
    EXPECT_TRUE(p.at_first());
    EXPECT_FALSE(p.back());

    // Step 1: the lab runs, then a wrong and a right answer.
    run(p, *emu);
    ASSERT_EQ(p.facts().error, "");
    EXPECT_FALSE(p.step_complete());
    PredictResult wrong = p.answer(0, 4);
    EXPECT_FALSE(wrong.correct);
    EXPECT_NE(wrong.explanation.find("spreads over 32 sectors"), std::string::npos)
        << wrong.explanation;
    PredictResult right = p.answer(0, r.lesson->steps[0].predicts[0].expect);
    EXPECT_TRUE(right.correct) << right.explanation;
    EXPECT_TRUE(p.step_complete());
    EXPECT_TRUE(p.next());

    // Step 2: inherits the lab; the goal is not reached until the student changes it.
    ASSERT_NE(p.lab(), nullptr);
    EXPECT_EQ(p.lab()->variant, "naive");
    run(p, *emu);
    EXPECT_FALSE(p.goal(0).reached);
    EXPECT_FALSE(p.step_complete());
    p.set_variant("tiled");
    p.set_param("pad", 1);
    run(p, *emu);
    EXPECT_TRUE(p.goal(0).reached) << p.goal(0).label;
    EXPECT_TRUE(p.goal_done(0));
    // Going back to the original parameters keeps the goal reached.
    p.set_variant("naive");
    p.reset_params();
    run(p, *emu);
    EXPECT_TRUE(p.goal_done(0));
    EXPECT_TRUE(p.step_complete());
    EXPECT_TRUE(p.next());

    // Step 3: nothing to do, so it is complete as soon as it opens.
    EXPECT_TRUE(p.at_last());
    EXPECT_TRUE(p.step_complete());
    EXPECT_FALSE(p.next());
    EXPECT_TRUE(p.lesson_complete());
  }

  // The saved file holds it all, and a new player reopens where the student left.
  Progress saved = load_progress(d.path.string());
  EXPECT_EQ(saved.notice, "");
  const LessonProgress& lp = saved.lessons.at("99-player");
  EXPECT_TRUE(lp.completed);
  EXPECT_EQ(lp.current_step, 2u);
  EXPECT_EQ(lp.steps_done(), 3u);
  EXPECT_DOUBLE_EQ(lp.steps.at(0).answers.at(0), 32);
  EXPECT_TRUE(lp.steps.at(0).correct.at(0));
  EXPECT_TRUE(lp.steps.at(1).goals.at(0));

  Player again(*r.lesson, d.path.string());
  EXPECT_EQ(again.step_index(), 2u);
  EXPECT_TRUE(again.lesson_complete());
  EXPECT_TRUE(again.go(0));
  EXPECT_TRUE(again.answered(0));  // the earlier answer is shown as answered
}

TEST(LessonPlayer, AnswerBeforeTheRunIsCheckedWhenItArrives) {
  ParseResult r = parse_lesson_text(kLesson, "lessons/99-player.md");
  ASSERT_TRUE(r.ok()) << r.message();
  auto emu = ws::make_emu_backend();
  Player p(*r.lesson, "");  // no data dir: progress in memory only
  PredictResult early = p.answer(0, 32);
  EXPECT_FALSE(early.correct);
  EXPECT_NE(early.explanation.find("checked when the lab has run"), std::string::npos);
  run(p, *emu);
  ASSERT_NE(p.result(0), nullptr);
  EXPECT_TRUE(p.result(0)->correct) << p.result(0)->explanation;
  EXPECT_TRUE(p.save());
}

TEST(LessonPlayer, ParameterChangesDoNotMoveThePredictsAnswer) {
  ParseResult r = parse_lesson_text(kLesson, "lessons/99-player.md");
  ASSERT_TRUE(r.ok()) << r.message();
  auto emu = ws::make_emu_backend();
  Player p(*r.lesson, "");
  run(p, *emu);
  p.set_variant("tiled");
  run(p, *emu);  // the student's own experiment: 4 sectors per store
  EXPECT_TRUE(p.answer(0, 32).correct);  // judged on the step's lab as written
  EXPECT_EQ(p.params().at("n"), 64);
}

TEST(LessonPlayer, CorruptProgressIsReportedAndThePlayerStillWorks) {
  TempDir d;
  fs::create_directories(d.path);
  { std::ofstream(d.path / "progress.json") << "not json"; }
  ParseResult r = parse_lesson_text(kLesson, "lessons/99-player.md");
  ASSERT_TRUE(r.ok()) << r.message();
  Player p(*r.lesson, d.path.string());
  EXPECT_NE(p.notice().find("progress.json.bak.1"), std::string::npos) << p.notice();
  EXPECT_EQ(p.step_index(), 0u);
  EXPECT_TRUE(p.next());
  EXPECT_TRUE(fs::exists(d.path / "progress.json"));
  EXPECT_TRUE(fs::exists(d.path / "progress.json.bak.1"));
}

// Another step's untimed question about this very run (same family, variant, parameters)
// is pending here; one about another variant, or answered, is not.
TEST(LessonPlayer, QuestionsAboutTheSameRunArePendingOnItsOtherSteps) {
  const char* text = R"(---
title: Same run
level: beginner
minutes: 5
---
## Look

```lab
family: transpose
variant: naive
params: n=64
```

## Ask

```lab
family: transpose
variant: naive
params: n=64
```

```predict
question: Sectors?
answer: st_sectors_per_request
expect: 32
explain: {answer}.
```

## Ask another

```lab
family: transpose
variant: copy
params: n=64
```

```predict
question: Sectors?
answer: st_sectors_per_request
expect: 4
explain: {answer}.
```
)";
  ParseResult r = parse_lesson_text(text, "lessons/97-same-run.md");
  ASSERT_TRUE(r.ok()) << r.message();
  Player p(*r.lesson, "");
  auto pend = p.pending_same_run();
  ASSERT_EQ(pend.size(), 1u);
  EXPECT_EQ(pend[0].first, 1u);
  EXPECT_EQ(pend[0].second.key(), "st_sectors_per_request");
  // A goal of that quantity here would answer it too.
  EXPECT_EQ(p.pending_steps_asking(pend[0].second), std::vector<std::size_t>{1});
  ASSERT_TRUE(p.next());
  EXPECT_TRUE(p.pending_same_run().empty()) << "its own question is not another step's";
  p.answer(0, 32);
  ASSERT_TRUE(p.back());
  EXPECT_TRUE(p.pending_same_run().empty()) << "answered";
}

// A later step's timed question about the same family keeps times back on an earlier step
// (its chart of every variant would answer it), until it is answered; another family's
// question does not.
TEST(LessonPlayer, LaterTimedQuestionsOfTheFamilyAreKeptBack) {
  const char* text = R"(---
title: Cover test
level: beginner
minutes: 5
---
## Look at the copy

```lab
family: transpose
variant: copy
params: n=64
```

## Then the naive one

```lab
family: transpose
variant: naive
params: n=64
```

```predict
question: How many times slower than the copy?
answer: ratio over:copy
expect: 6
tolerance: 3
explain: {answer}.
```

## Another family

```lab
family: reduce
variant: interleaved_modulo
params: n=4096
```

```predict
question: How long?
answer: time_us
expect: 5
tolerance: 5
explain: {answer}.
```
)";
  ParseResult r = parse_lesson_text(text, "lessons/98-cover.md");
  ASSERT_TRUE(r.ok()) << r.message();
  Player p(*r.lesson, "");
  std::vector<Quantity> q = p.pending_timed_elsewhere();
  ASSERT_EQ(q.size(), 1u);  // step 2's ratio; step 3's time is of another family
  EXPECT_EQ(q[0].key(), "ratio:over:copy");
  // Whose question it is, so the window can say so (the review of 2026-11-28 read "this
  // chart shows the answer to the lesson's question" on a step without a timed one).
  EXPECT_EQ(p.pending_timed_steps(), std::vector<std::size_t>{1});
  // A goal's value answers only a question of its own quantity.
  Quantity same, other;
  same.kind = other.kind = QuantityKind::Ratio;
  same.name = "over:copy";
  other.name = "over:naive";
  EXPECT_EQ(p.pending_steps_asking(same), std::vector<std::size_t>{1});
  EXPECT_TRUE(p.pending_steps_asking(other).empty());
  ASSERT_TRUE(p.next());
  EXPECT_TRUE(p.pending_timed_elsewhere().empty());  // the open step's own: covered as before
  EXPECT_TRUE(p.pending_timed_steps().empty());
  p.answer(0, 6);
  ASSERT_TRUE(p.back());
  EXPECT_TRUE(p.pending_timed_elsewhere().empty());  // answered: the chart may show it
  EXPECT_TRUE(p.pending_timed_steps().empty());
  ASSERT_TRUE(p.go(2));
  EXPECT_TRUE(p.pending_timed_elsewhere().empty());  // reduce: no other reduce question
}

// Fresh reading (issue 22): a counting step's charts show every variant's time, the answer
// of a later step's timed predict of the same family; the window keeps times back until
// that predict is answered. Another family's later predict, or an answered one, does not.
TEST(LessonPlayer, ALaterTimedPredictOfTheFamilyKeepsTimesBack) {
  const char* text = R"(---
title: Later times
level: beginner
minutes: 5
---
## Count first

```lab
family: transpose
variant: naive
params: n=64 tile=32 block_rows=8
timing: n=8192
view: charts
```

```predict
question: Sectors per store request?
answer: st_sectors_per_request
expect: 32
explain: {answer} sectors.
```

## Another family

```lab
family: reduce
variant: sequential
params: n=65536 block=256
timing: n=67108864
```

```predict
question: Times faster than version 1?
answer: ratio over:interleaved_modulo
expect: recorded
tolerance: 1
explain: {answer} times.
```

## Then time

```lab
family: transpose
variant: tiled
params: n=64 tile=32 block_rows=8 pad=1
timing: n=8192
view: charts
```

```predict
question: Fraction of memcpy?
answer: ratio copy_bandwidth
expect: recorded
tolerance: 0.1
explain: {answer} of memcpy.
```
)";
  ParseResult r = parse_lesson_text(text, "lessons/99-later.md");
  ASSERT_TRUE(r.ok()) << r.message();
  Player p(*r.lesson, "");
  EXPECT_TRUE(!p.pending_timed_elsewhere().empty()) << "step 3 asks a transpose time";
  ASSERT_TRUE(p.next());
  EXPECT_FALSE(!p.pending_timed_elsewhere().empty()) << "no later reduce time";
  ASSERT_TRUE(p.next());
  EXPECT_FALSE(!p.pending_timed_elsewhere().empty()) << "the last step's own predict covers itself";
  p.answer(0, 0.9);
  ASSERT_TRUE(p.go(0));
  EXPECT_FALSE(!p.pending_timed_elsewhere().empty()) << "answered: nothing left to give away";
}
