#pragma once
// The one resolver of warpscope's data (lessons, kernel sources, assets, recordings,
// recorded SASS, the student dialect's headers), so an installed or moved binary finds what
// a build tree does and $WARPSCOPE_DATA_DIR comes first everywhere. In io/ because
// kernels/ (recordings, SASS) and app/ (lessons, fonts, the window) both use it; no CUDA,
// no GUI.
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

// The data roots each followed by its include/ where one exists (an install keeps the
// kernel headers under share/warpscope/include/kernels): where kernels/*.cuh are looked for.
// @post every data root appears, in data_roots() order.
std::vector<std::string> header_roots();

// The first root holding `rel` (a file or directory), as a full path; "" when none does.
std::string find_data(const std::string& rel);

// The lessons folder: the first root whose lessons/ holds a *.md file ("" when none).
std::string lessons_dir();

// The folder holding kernels/dialect/simt.h for student kernels: $WARPSCOPE_INCLUDE (an older,
// narrower override) when set, else the first of header_roots() that holds it; "" when none.
std::string dialect_include_dir();

}  // namespace ws::paths
