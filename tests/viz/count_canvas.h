#pragma once
// Test helper: a Canvas that counts what a painter draws and keeps its strings, measuring
// text at 0.6 em per character (the rule the chart tests assume).
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "viz/chart_paint.h"

namespace ws::test {

using viz::Anchor;

class CountCanvas : public viz::Canvas {
 public:
  int rects = 0, texts = 0, lines = 0;
  std::vector<std::string> strings;
  void line(double, double, double, double, std::uint32_t, double, bool) override { ++lines; }
  void polyline(const std::vector<std::pair<double, double>>&, std::uint32_t, double) override {}
  void rect(double, double, double, double, std::uint32_t, std::uint32_t, double) override {
    ++rects;
  }
  void circle(double, double, double, std::uint32_t, std::uint32_t, double) override {}
  void text(double, double, std::string_view s, double, std::uint32_t, Anchor, bool,
            bool) override {
    ++texts;
    strings.emplace_back(s);
  }
  double text_width(std::string_view s, double size) override { return 0.6 * size * s.size(); }
  int drawn() const { return rects + texts + lines; }
};

}  // namespace ws::test
