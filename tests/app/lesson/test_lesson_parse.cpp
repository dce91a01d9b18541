// The lesson format: front matter, steps, blocks with their lines, the render tree, and a
// precise `file:line: message` for each malformed case.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "app/lesson/lesson_model.h"

using namespace ws::lesson;

namespace {

const char* kGood = R"(---
title: Banks
level: beginner
minutes: 15
prerequisites: 01-warps, 02-coalescing
---

An *intro* paragraph.

## First step

Some **strong** text with `code` and a [link](http://x).

```lab
family: transpose
variant: tiled
params: n=256 tile=32, block_rows=8 pad=0
view: bank-map
blocks: 0 3
```

- one
- two

```cpp
int x = 1;
```

```predict
question: How many wavefronts
  does a column read take?
answer: metric l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
expect: 32
tolerance: 10%
unit: wavefronts
explain: The trace shows {answer} wavefronts and {bank_conflicts} conflicts.
```

## Second step ##

```goal
task: Remove the conflict.
target: bank_conflicts == 0
reach: pad=1
```

```goal
task: Reach the copy.
target: ratio copy_bandwidth >= 0.8
reach: variant=tiled pad=1
needs: gpu: measured time
```
)";

std::string first_error(const std::string& text) {
  ParseResult r = parse_lesson_text(text, "x.md");
  return r.errors.empty() ? "" : r.errors[0].str();
}

std::string all_errors(const std::string& text) {
  return parse_lesson_text(text, "x.md").message();
}

// A valid lesson with `block` as the body of its one step (line 7 is the step heading,
// the block's fence is on line 8).
std::string with_step(const std::string& block) {
  return "---\ntitle: T\nlevel: beginner\nminutes: 5\n---\n\n## S\n" + block;
}

const char* kLab = "```lab\nfamily: transpose\nvariant: naive\n```\n";  // lines 8-11

}  // namespace

TEST(LessonParse, FrontMatter) {
  ParseResult r = parse_lesson_text(kGood, "lessons/03-banks.md");
  ASSERT_TRUE(r.ok()) << r.message();
  const Lesson& l = *r.lesson;
  EXPECT_EQ(l.id, "03-banks");
  EXPECT_EQ(l.title, "Banks");
  EXPECT_EQ(l.level, "beginner");
  EXPECT_EQ(l.minutes, 15);
  EXPECT_EQ(l.prerequisites, (std::vector<std::string>{"01-warps", "02-coalescing"}));
  EXPECT_EQ(l.key_lines.at("minutes"), 4);
}

TEST(LessonParse, StepsAndBlocksWithLines) {
  ParseResult r = parse_lesson_text(kGood, "x.md");
  ASSERT_TRUE(r.ok()) << r.message();
  const Lesson& l = *r.lesson;
  ASSERT_EQ(l.steps.size(), 2u);
  EXPECT_EQ(l.steps[0].title, "First step");
  EXPECT_EQ(l.steps[0].line, 10);
  EXPECT_EQ(l.steps[1].title, "Second step");  // closing hashes dropped
  EXPECT_EQ(l.steps[1].line, 39);

  ASSERT_TRUE(l.steps[0].lab.has_value());
  const Lab& lab = *l.steps[0].lab;
  EXPECT_EQ(lab.line, 14);
  EXPECT_EQ(lab.family, "transpose");
  EXPECT_EQ(lab.variant, "tiled");
  EXPECT_EQ(lab.params, (ws::Params{{"n", 256}, {"tile", 32}, {"block_rows", 8}, {"pad", 0}}));
  EXPECT_EQ(lab.view, "bank-map");
  EXPECT_EQ(lab.keep_blocks, (std::vector<std::uint32_t>{0, 3}));
  EXPECT_EQ(lab.key_lines.at("params"), 17);

  ASSERT_EQ(l.steps[0].predicts.size(), 1u);
  const Predict& p = l.steps[0].predicts[0];
  EXPECT_EQ(p.line, 29);
  EXPECT_EQ(p.question, "How many wavefronts does a column read take?");
  EXPECT_EQ(p.answer.kind, QuantityKind::Metric);
  EXPECT_EQ(p.answer.name, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum");
  EXPECT_DOUBLE_EQ(p.expect, 32);
  EXPECT_TRUE(p.relative);
  EXPECT_DOUBLE_EQ(p.tolerance, 0.10);
  EXPECT_EQ(p.unit, "wavefronts");

  ASSERT_EQ(l.steps[1].goals.size(), 2u);
  const Goal& g = l.steps[1].goals[0];
  EXPECT_EQ(g.line, 41);
  EXPECT_EQ(g.quantity.kind, QuantityKind::Plain);
  EXPECT_EQ(g.quantity.name, "bank_conflicts");
  EXPECT_EQ(g.op, Op::Eq);
  EXPECT_EQ(g.reach, (ws::Params{{"pad", 1}}));
  EXPECT_FALSE(g.gpu_only);
  const Goal& g2 = l.steps[1].goals[1];
  EXPECT_EQ(g2.quantity.key(), "ratio:copy_bandwidth");
  EXPECT_EQ(g2.op, Op::Ge);
  EXPECT_DOUBLE_EQ(g2.value, 0.8);
  EXPECT_EQ(g2.reach_variant, "tiled");
  EXPECT_TRUE(g2.gpu_only);
  EXPECT_EQ(g2.needs, "measured time");

  // The second step has no lab: it keeps the first one.
  EXPECT_EQ(l.lab_at(1), &*l.steps[0].lab);
}

TEST(LessonParse, RenderTree) {
  ParseResult r = parse_lesson_text(kGood, "x.md");
  ASSERT_TRUE(r.ok()) << r.message();
  const Lesson& l = *r.lesson;
  ASSERT_EQ(l.intro.size(), 1u);
  ASSERT_EQ(l.intro[0].kind, BlockKind::Paragraph);
  ASSERT_GE(l.intro[0].spans.size(), 2u);
  EXPECT_EQ(l.intro[0].spans[0].text, "An ");
  EXPECT_TRUE(l.intro[0].spans[1].emphasis);
  EXPECT_EQ(l.intro[0].spans[1].text, "intro");

  const auto& body = l.steps[0].body;
  std::vector<BlockKind> kinds;
  for (const auto& b : body) kinds.push_back(b.kind);
  EXPECT_EQ(kinds, (std::vector<BlockKind>{BlockKind::Paragraph, BlockKind::Lab, BlockKind::List,
                                           BlockKind::Code, BlockKind::Predict}));
  const Block& p = body[0];
  bool strong = false, code = false, link = false;
  for (const auto& s : p.spans) {
    strong = strong || (s.strong && s.text == "strong");
    code = code || (s.code && s.text == "code");
    link = link || (s.link == "http://x" && s.text == "link");
  }
  EXPECT_TRUE(strong && code && link);
  ASSERT_EQ(body[2].children.size(), 2u);
  EXPECT_EQ(body[2].children[1].kind, BlockKind::ListItem);
  ASSERT_EQ(body[2].children[1].children.size(), 1u);
  EXPECT_EQ(body[2].children[1].children[0].spans[0].text, "two");
  EXPECT_EQ(body[3].info, "cpp");
  EXPECT_EQ(body[3].text, "int x = 1;");
  EXPECT_EQ(body[4].index, 0u);
  EXPECT_EQ(body[1].line, 14);
}

TEST(LessonParse, ReadsFilesAndReportsUnreadable) {
  ParseResult r = parse_lesson("/nonexistent/lesson.md");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].str(),
            "/nonexistent/lesson.md: does not exist");
}

// ---------------------------------------------------------------- malformed cases

TEST(LessonParseErrors, MissingFrontMatter) {
  EXPECT_EQ(first_error("## S\n"),
            "x.md:1: missing front matter: the file must start with a '---' line, then "
            "title, level, minutes, prerequisites, then '---'");
}

TEST(LessonParseErrors, UnclosedFrontMatter) {
  EXPECT_EQ(first_error("---\ntitle: T\n## S\n"),
            "x.md:1: front matter opened here is not closed by a '---' line");
}

TEST(LessonParseErrors, BadFrontMatterValues) {
  EXPECT_EQ(first_error("---\ntitle: T\nlevel: expert\nminutes: 5\n---\n## S\n"),
            "x.md:3: front matter: level must be beginner, intermediate or advanced, got "
            "'expert'");
  EXPECT_EQ(first_error("---\ntitle: T\nlevel: beginner\nminutes: soon\n---\n## S\n"),
            "x.md:4: front matter: minutes must be a whole number from 1 to 600, got 'soon'");
  EXPECT_EQ(first_error("---\nlevel: beginner\nminutes: 5\n---\n## S\n"),
            "x.md:4: front matter: 'title:' is missing or empty");
  EXPECT_EQ(first_error("---\ntitle: T\nlevel: beginner\nminutes: 5\nauthor: me\n---\n## S\n"),
            "x.md:5: front matter: unknown key 'author' (expected title, level, "
            "minutes, prerequisites)");
  EXPECT_EQ(first_error("---\ntitle: T\nlevel: beginner\nminutes: 5\nprerequisites: Lesson 1\n---\n## S\n"),
            "x.md:5: front matter: prerequisite 'Lesson' is not a lesson id (a file name "
            "without .md, like 02-coalescing)");
}

TEST(LessonParseErrors, NoSteps) {
  EXPECT_EQ(first_error("---\ntitle: T\nlevel: beginner\nminutes: 5\n---\ntext\n"),
            "x.md:6: no steps: a lesson needs at least one '## ' heading");
}

TEST(LessonParseErrors, UnterminatedBlock) {
  EXPECT_EQ(first_error(with_step("```lab\nfamily: transpose\nvariant: naive\n")),
            "x.md:8: lab block opened here is not closed (no matching ``` line)");
  EXPECT_EQ(first_error(with_step("~~~~predict\nquestion: q\n~~~\n")),
            "x.md:8: predict block opened here is not closed (no matching ~~~~ line)");
  EXPECT_EQ(first_error(with_step("text\n```cpp\nint x;\n")),
            "x.md:9: code block opened here is not closed (no matching ``` line)");
}

TEST(LessonParseErrors, BrokenBlockLines) {
  // The malformed line is reported at its line, beside the missing key it causes.
  EXPECT_EQ(all_errors(with_step("```lab\nfamily transpose\nvariant: naive\n```\n")),
            "x.md:8: lab block has no 'family:' line\n"
            "x.md:9: lab block: expected 'key: value', got 'family transpose'\n");
  EXPECT_EQ(first_error(with_step("```lab\nfamily: transpose\nvariant: naive\nkernel: x\n```\n")),
            "x.md:11: lab block: unknown key 'kernel' (expected family, variant, params, timing, "
            "view, blocks, at)");
  EXPECT_EQ(first_error(with_step("```lab\nfamily: transpose\nvariant: naive\nat: somewhere\n```\n")),
            "x.md:11: lab block: at: 'somewhere' is not an event (first-conflict, line N, load, "
            "store, shared-load, shared-store, shared-atomic, global-load, global-store, "
            "global-atomic, branch, divergent-branch, barrier, mma or bulk-store)");
  EXPECT_EQ(first_error(with_step("```lab\nfamily: transpose\nfamily: access\nvariant: x\n```\n")),
            "x.md:10: lab block: 'family' given twice (first at line 9)");
  EXPECT_EQ(first_error(with_step("```lab\nfamily: transpose\n```\n")),
            "x.md:8: lab block has no 'variant:' line");
  EXPECT_EQ(first_error(with_step("```lab\nfamily: transpose\nvariant: naive\nparams: n=big\n```\n")),
            "x.md:11: lab: bad parameter 'n=big' (expected name=integer)");
  EXPECT_EQ(first_error(with_step("```lab\nfamily: transpose\nvariant: naive\nview: banks\n```\n")),
            "x.md:11: lab block: unknown view 'banks' (expected bank-map, sector-map, "
            "divergence, charts, metrics, stepper, roofline, occupancy or fragments)");
  EXPECT_EQ(first_error(with_step(std::string(kLab) + kLab)),
            "x.md:12: second lab block in step 'S' (first at line 8): one lab per step");
}

TEST(LessonParseErrors, PredictMissingAnswer) {
  EXPECT_EQ(first_error(with_step(std::string(kLab) +
                                  "```predict\nquestion: q\nexpect: 1\nexplain: {answer}\n```\n")),
            "x.md:12: predict block has no 'answer:' line");
}

TEST(LessonParseErrors, PredictBadValues) {
  const std::string pre = std::string(kLab) + "```predict\nquestion: q\n";  // predict at 12
  EXPECT_EQ(first_error(with_step(pre + "answer: sectors_per_lane\nexpect: 1\nexplain: {answer}\n```\n")),
            "x.md:14: predict block: unknown quantity 'sectors_per_lane' (write Nsight Compute "
            "names as 'metric NAME'; plain names are listed in lessons/README.md)");
  EXPECT_EQ(first_error(with_step(pre + "answer: ratio bandwidth\nexpect: 1\nexplain: {answer}\n```\n")),
            "x.md:14: predict block: unknown ratio 'bandwidth' (ratios: copy_bandwidth, peak, library, "
            "over:VARIANT)");
  EXPECT_EQ(first_error(with_step(pre + "answer: blocks\nexpect: many\nexplain: {answer}\n```\n")),
            "x.md:15: predict block: expect must be a number or 'recorded', got 'many'");
  EXPECT_EQ(first_error(with_step(pre + "answer: blocks\nexpect: 1\ntolerance: -1\nexplain: {answer}\n```\n")),
            "x.md:16: predict block: tolerance must be a non-negative number or percentage, "
            "got '-1'");
  EXPECT_EQ(first_error(with_step(pre + "answer: blocks\nexpect: 1\nexplain: It is one.\n```\n")),
            "x.md:16: predict block: the explanation must refer to the trace, e.g. {answer} "
            "or {sectors_per_request}");
  EXPECT_EQ(first_error(with_step(pre + "answer: blocks\nexpect: 1\nexplain: {answer} {nope}\n```\n")),
            "x.md:16: predict block: unknown fact '{nope}' (use {answer}, {guess}, a plain "
            "name, a metric or ratio:NAME)");
}

TEST(LessonParseErrors, GoalBadValues) {
  const std::string pre = std::string(kLab) + "```goal\ntask: t\n";  // goal at 12
  EXPECT_EQ(first_error(with_step(pre + "target: bank_conflicts = 0\nreach: pad=1\n```\n")),
            "x.md:14: goal block: target: expected 'QUANTITY OP NUMBER' with OP one of == != < "
            "<= > >=, got 'bank_conflicts = 0'");
  EXPECT_EQ(first_error(with_step(pre + "target: bank_conflicts == 0\n```\n")),
            "x.md:12: goal block has no 'reach:' line");
  EXPECT_EQ(first_error(with_step(pre + "target: bank_conflicts == 0 and\nreach: pad=1\n```\n")),
            "x.md:14: goal block: target: 'and' needs a condition on each side, got "
            "'bank_conflicts == 0 and'");
  EXPECT_EQ(first_error(with_step(pre + "target: bank_conflicts == 0 and blocks\nreach: pad=1\n```\n")),
            "x.md:14: goal block: target: expected 'QUANTITY OP NUMBER' with OP one of == != < "
            "<= > >=, got 'blocks'");
  EXPECT_EQ(first_error(with_step(pre + "target: throughput > 5\nreach: pad=1\n```\n")),
            "x.md:14: goal block: 'throughput' is a timed quantity: add 'needs: gpu: REASON' "
            "(on the emulator it is judged on modelled time)");
  EXPECT_EQ(first_error(with_step(pre + "target: throughput > 5\nreach: pad=1\nneeds: gpu\n```\n")),
            "x.md:16: goal block: needs: gpu must say what it needs, e.g. 'gpu: measured time'");
  EXPECT_EQ(first_error(with_step(pre + "target: blocks > 5\nreach: pad=1\nneeds: tensor cores\n```\n")),
            "x.md:16: goal block: needs: the only requirement is 'gpu: REASON', got 'tensor "
            "cores'");
}

TEST(LessonParseErrors, BlocksOutsideStepsOrWithoutLab) {
  EXPECT_EQ(first_error("---\ntitle: T\nlevel: beginner\nminutes: 5\n---\n" + std::string(kLab) + "## S\n"),
            "x.md:6: lab block before the first step: blocks belong in a step (after a '## ' "
            "heading)");
  EXPECT_EQ(first_error(with_step("```goal\ntask: t\ntarget: blocks > 1\nreach: n=64\n```\n")),
            "x.md:8: goal block in step 'S' has no lab to run: add a lab block to this or an "
            "earlier step");
}

TEST(LessonParseErrors, SeveralErrorsAllReportedInLineOrder) {
  ParseResult r = parse_lesson_text(
      with_step("```lab\nfamily: transpose\n```\n```predict\nquestion: q\n```\n"), "x.md");
  ASSERT_EQ(r.errors.size(), 4u) << r.message();
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.errors[0].line, 8);   // lab without variant
  EXPECT_EQ(r.errors[1].line, 11);  // predict without answer, expect, explain
  EXPECT_EQ(r.errors[3].line, 11);
}

// ---------------------------------------------------------------- issue 10: hostile files

namespace {
const std::string kFront = "---\ntitle: T\nlevel: beginner\nminutes: 5\n---\n## S\n";

std::size_t depth(const std::vector<Block>& bs) {
  std::size_t d = 0;
  for (const auto& b : bs) d = std::max(d, 1 + depth(b.children));
  return d;
}
}  // namespace

// Finding 1: 20,000 nested '>' crashed the player's drawing; a million crashed
// --validate in the tree's destructor. The tree stays shallow and the line is named.
TEST(LessonHostile, DeepQuotesAreBoundedAndReportedWithTheirLine) {
  for (std::size_t n : {std::size_t(20000), std::size_t(1000000)}) {
    const std::string text = kFront + "text\n\n" + std::string(n, '>') + " deep\n";
    ParseResult r = parse_lesson_text(text, "deep.md");
    ASSERT_EQ(r.errors.size(), 1u) << r.message();
    EXPECT_EQ(r.errors[0].str(), "deep.md:9: quotes or lists nested more than 32 levels deep (nest less)");
  }
  // 32 levels are fine, and the tree the player draws is no deeper.
  ParseResult ok = parse_lesson_text(kFront + std::string(32, '>') + " fine\n", "ok.md");
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_LE(depth(ok.lesson->steps.at(0).body), 33u);
}

TEST(LessonHostile, DeepListsAreBoundedToo) {
  std::string text = kFront;
  for (int i = 0; i < 3000; ++i) text += std::string(std::size_t(2 * i), ' ') + "- x\n";
  ParseResult r = parse_lesson_text(text, "lists.md");
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors[0].message.find("nested more than 32"), std::string::npos) << r.message();
}

// Finding 12: a UTF-8 byte-order mark said "missing front matter".
TEST(LessonHostile, AByteOrderMarkIsSkipped) {
  ParseResult r = parse_lesson_text("\xEF\xBB\xBF" + kFront + "text\n", "bom.md");
  EXPECT_TRUE(r.ok()) << r.message();
}

// Finding 12: --validate accepted NUL bytes and invalid UTF-8.
TEST(LessonHostile, NulBytesAndInvalidUtf8AreErrorsWithTheirLine) {
  ParseResult nul = parse_lesson_text(kFront + "ok\nbad\0here\n", "nul.md");
  nul = parse_lesson_text(kFront + std::string("ok\nbad\0here\n", 12), "nul.md");
  ASSERT_EQ(nul.errors.size(), 1u);
  EXPECT_EQ(nul.errors[0].str(), "nul.md:8: a NUL byte: a lesson is UTF-8 text, not a binary file");
  ParseResult utf = parse_lesson_text(kFront + "ok\n\xC3(\n", "utf.md");
  ASSERT_EQ(utf.errors.size(), 1u);
  EXPECT_EQ(utf.errors[0].str(), "utf.md:8: invalid UTF-8 (a lesson is UTF-8 text)");
  EXPECT_TRUE(parse_lesson_text(kFront + "caf\xC3\xA9 \xE2\x80\x94 ok\n", "fine.md").ok());
}

// Finding 12: /dev/zero or a FIFO "did not exist" (and reading either never ends); a
// name too long surfaced as an internal filesystem error.
TEST(LessonHostile, DevicesFifosAndLongNamesAreNamedNotRead) {
  ParseResult z = parse_lesson("/dev/zero");
  ASSERT_EQ(z.errors.size(), 1u);
  EXPECT_EQ(z.errors[0].str(), "/dev/zero: is a character device, not a regular file: not a lesson");
  const std::string fifo = "/tmp/ws_lesson_fifo_" + std::to_string(::getpid()) + ".md";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ParseResult f = parse_lesson(fifo);
  ::unlink(fifo.c_str());
  ASSERT_EQ(f.errors.size(), 1u);
  EXPECT_NE(f.errors[0].message.find("not a regular file"), std::string::npos);
  ParseResult l = parse_lesson("/tmp/" + std::string(300, 'x') + ".md");
  ASSERT_EQ(l.errors.size(), 1u);
  EXPECT_NE(l.errors[0].message.find("File name too long"), std::string::npos) << l.errors[0].str();
}
