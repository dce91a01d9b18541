#pragma once
// The source view: the kernel's family header with the current line highlighted, and a
// note beside each line that the trace touched (conflicts, sectors, active lanes).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "viz/view_common.h"

namespace ws::viz {

struct SourceFile {
  std::string path;                // where it was read from ("" when not found)
  std::vector<std::string> lines;  // lines[0] is line 1
  std::string error;               // why it could not be read ("" when read)
};

// Reads `rel` (VariantInfo::source_file, e.g. "kernels/transpose.cuh") from the first
// root that has it: the source tree, the install's share directory, ...
// @post error.empty() iff the file was read from some root + "/" + rel; then path names it.
SourceFile load_source(const std::string& rel, const std::vector<std::string>& roots);

struct SourceViewInput {
  const SourceFile* file = nullptr;
  int current_line = 0;  // 1-based; 0: none
  int focus_line = 0;    // scrolled to when there is no current line (the kernel's struct)
  std::map<int, std::string> notes;  // line -> short note drawn at the right
  std::map<int, std::uint32_t> marks;  // line -> colour of a dot in the gutter (red: a conflict)
  float height = 0;      // 0: the rest of the window
};

struct SourceViewDraw {
  bool drawn = false;
  std::string note;
  int lines_drawn = 0, first_line = 0;  // visible lines this frame
  int marks_drawn = 0;
  int current_line = 0;
  Rect current_rect;                    // the highlight bar (empty when off screen)
};

// @post drawn == (file has lines); current_rect is non-empty iff the current line is
//       among the lines drawn.
SourceViewDraw draw_source_view(const SourceViewInput& in, const ViewStyle& style = {});

// The 1-based line where `struct <entry>` is declared, 0 when absent.
int find_struct_line(const SourceFile& f, const std::string& entry);

}  // namespace ws::viz
