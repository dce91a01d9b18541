#pragma once
// Where warpscope finds its data (lessons, kernel sources, assets) and its fonts, so that
// an installed or moved binary works as well as one in its build tree. No GUI here: the
// CLI's `lesson --list` and the window read the same roots.
#include <string>
#include <vector>

#include "io/data_paths.h"  // data_roots, find_data, lessons_dir: the one resolver

namespace ws::paths {

// The font for the window: the first family of assets/fonts.txt that fontconfig resolves
// to a TrueType file (when built with fontconfig), else DejaVu Sans at its Debian path.
// @post "" only when no candidate file exists.
std::string default_font();

// Why the file at `path` cannot be given to the window's font loader (ImGui's
// stb_truetype, which trusts its input: a text file aborts it, a truncated font crashes
// it), as one sentence naming the path; "" when it is a usable TrueType/OpenType font:
// an sfnt (or the first font of a collection) whose table directory, tables, cmap
// subtable, hmtx and loca offsets all lie within the file, with the tables the loader needs.
// @post "" implies the file exists, is at most 64 MB and every offset the loader follows
//       from the directory, head, hhea, maxp, cmap and loca lies inside the file.
std::string font_problem(const std::string& path);

}  // namespace ws::paths
