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

// Reads `rel` (VariantInfo::source_file, e.g. "kernels/families/transpose.cuh") from the first
// root that has it: the source tree, the install's share directory, ...
// @post error.empty() iff the file was read from some root + "/" + rel; then path names it.
SourceFile load_source(const std::string& rel, const std::vector<std::string>& roots);

// One SASS instruction shown under its source line (from the recorded SASS).
enum class SassMem { None, Global, Shared, Local, Barrier };
struct SassRow {
  std::string text;      // "0290  @P0 STS.128 [R14], R5"
  SassMem mem = SassMem::None;
  bool wide = false;     // .64 / .128: several elements per lane
  bool predicated = false;
};

struct SourceViewInput {
  const SourceFile* file = nullptr;
  int current_line = 0;  // 1-based; 0: none
  int focus_line = 0;    // scrolled to when there is no current line (the kernel's struct)
  std::map<int, std::string> notes;  // line -> short note drawn at the right
  // line -> the whole grid's counters of its accesses, drawn right of the code before the
  // note (requests, sectors against ideal, wavefronts against ideal, conflicts, SIMD)
  std::map<int, std::string> counters;
  std::map<int, std::uint32_t> marks;  // line -> colour of a dot in the gutter (red: a conflict)
  float height = 0;      // 0: the rest of the window
  // The fast build's SASS per source line: a line with SASS gets a fold marker and
  // unfolds (click it) to its instructions; `sass_diffs` marks lines whose SASS is not
  // what the model assumes, with the sentence shown under the instructions.
  std::map<int, std::vector<SassRow>> sass;
  std::map<int, std::string> sass_diffs;
  bool fit_current = false;        // scale the text down (to 0.6) so the current line fits
  bool unfold_all = false;         // every line with SASS unfolded
  bool memory_only = true;         // unfolded lines list memory instructions and barriers only
};

struct SourceViewDraw {
  bool drawn = false;
  std::string note;
  int lines_drawn = 0, first_line = 0;  // visible lines this frame
  int marks_drawn = 0;
  int counters_drawn = 0;               // lines with their counters drawn this frame
  int current_line = 0;
  Rect current_rect;                    // the highlight bar (empty when off screen)
  int sass_rows_drawn = 0;              // SASS instructions drawn under unfolded lines
  int diff_marks_drawn = 0;             // lines marked as differing from the model
  int toggled_line = 0;                 // the line whose fold was clicked this frame
};

// @post drawn == (file has lines); current_rect is non-empty iff the current line is
//       among the lines drawn; sass_rows_drawn counts only rows of unfolded lines.
SourceViewDraw draw_source_view(const SourceViewInput& in, const ViewStyle& style = {});

// The 1-based line where `struct <entry>` is declared, 0 when absent.
int find_struct_line(const SourceFile& f, const std::string& entry);

}  // namespace ws::viz
