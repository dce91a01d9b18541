// The compilers' messages read by a linear scan (kernels/user/compile_log.h): the shapes the
// regexes accepted, and inputs that broke them (issue 27).
#include <gtest/gtest.h>

#include "kernels/user/compile_log.h"

namespace ws::user {
namespace {

TEST(CompileLog, GccLinesAreSplitIntoFileLineKindAndMessage) {
  Diagnostic d;
  ASSERT_TRUE(parse_gcc_line("/tmp/k.cuh:12:5: error: 'x' was not declared", d));
  EXPECT_EQ(d.file, "/tmp/k.cuh");
  EXPECT_EQ(d.line, 12);
  EXPECT_EQ(d.kind, "error");
  EXPECT_EQ(d.message, "'x' was not declared");
  ASSERT_TRUE(parse_gcc_line("k.cuh:3: fatal error: foo.h: No such file", d));
  EXPECT_EQ(d.kind, "fatal error");
  EXPECT_EQ(d.message, "foo.h: No such file");
  ASSERT_TRUE(parse_gcc_line("simt.h:40:7:   required from here", d));
  EXPECT_EQ(d.kind, "");
  EXPECT_EQ(d.line, 40);
  // The first ":DIGITS:" ends the file name, as the lazy regex did.
  ASSERT_TRUE(parse_gcc_line("a:b:7: note: x:9: y", d));
  EXPECT_EQ(d.file, "a:b");
  EXPECT_EQ(d.kind, "note");
  EXPECT_FALSE(parse_gcc_line("In file included from x.h", d));
  EXPECT_FALSE(parse_gcc_line(":12: error: no file", d));
  EXPECT_FALSE(parse_gcc_line("k.cuh:0: error: line zero", d));
  EXPECT_FALSE(parse_gcc_line("k.cuh:99999999999999999999: error: huge", d));
}

TEST(CompileLog, NvrtcLinesAreSplit) {
  Diagnostic d;
  ASSERT_TRUE(parse_nvrtc_line("ws_student.cuh(12): error: identifier \"x\" is undefined", d));
  EXPECT_EQ(d.file, "ws_student.cuh");
  EXPECT_EQ(d.line, 12);
  EXPECT_EQ(d.message, "identifier \"x\" is undefined");
  ASSERT_TRUE(parse_nvrtc_line("f(3): catastrophic error: cannot open", d));
  EXPECT_EQ(d.message, "cannot open");
  ASSERT_TRUE(parse_nvrtc_line("g(1) h(4): error: later", d));
  EXPECT_EQ(d.file, "g(1) h");
  EXPECT_FALSE(parse_nvrtc_line("f(3): warning: only a warning", d));
}

// A 30,000-character identifier and a 200 KB line: linear, bounded, no stack.
TEST(CompileLog, HugeLinesAreReadAndMessagesBounded) {
  Diagnostic d;
  const std::string big = "k.cuh:7:3: error: '" + std::string(300000, 'x') + "' was not declared";
  ASSERT_TRUE(parse_gcc_line(big, d));
  EXPECT_EQ(d.line, 7);
  const std::string m = short_message(d.message);
  EXPECT_LE(m.size(), kMaxMessageBytes + 40);
  EXPECT_NE(m.find("more bytes]"), std::string::npos);
  // Many colons and digit runs that are no location.
  std::string colons;
  for (int i = 0; i < 100000; ++i) colons += "1:a";
  EXPECT_FALSE(parse_gcc_line(colons, d));
  std::string parens;
  for (int i = 0; i < 100000; ++i) parens += "(1)";
  EXPECT_FALSE(parse_nvrtc_line(parens, d));
}

}  // namespace
}  // namespace ws::user
