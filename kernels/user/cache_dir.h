// Where warpscope keeps what it builds for a student's kernel (the emulator's shared
// objects, the precompiled preludes of g++ and of the CUDA front end).
#pragma once

#include <string>

namespace ws::user {

// $XDG_CACHE_HOME/warpscope/kernels, else ~/.cache/warpscope/kernels, else a folder in the
// temporary directory.
std::string cache_dir();

}  // namespace ws::user
