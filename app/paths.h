#pragma once
// Where warpscope finds its data (lessons, kernel sources, assets) and its fonts, so that
// an installed or moved binary works as well as one in its build tree. No GUI here: the
// CLI's `lesson --list` and the window read the same roots.
#include <string>
#include <vector>

namespace ws::paths {

// The directory holding the running executable ("" when it cannot be read).
std::string exe_dir();

// Data roots, searched in this order:
//   $WARPSCOPE_DATA_DIR (and the older $WARPSCOPE_SOURCE_DIR),
//   <exe_dir>/../share/warpscope (an install, wherever its prefix was moved),
//   the source tree this binary was built from (when it still exists),
//   the working directory.
// @post no duplicates; every entry but the working directory is an existing directory.
std::vector<std::string> data_roots();

// The first root holding `rel` (a file or directory), as a full path; "" when none does.
std::string find_data(const std::string& rel);

// The lessons folder: the first root whose lessons/ holds a *.md file ("" when none).
std::string lessons_dir();

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
