// Where warpscope keeps what it builds for a student's kernel (the emulator's shared
// objects, the precompiled preludes of g++ and of the CUDA front end).
#pragma once

#include <string>

namespace ws::user {

// $XDG_CACHE_HOME/warpscope/kernels, else ~/.cache/warpscope/kernels, else a folder in the
// temporary directory.
std::string cache_dir();

// The name of a cache entry made from `inputs`: FNV-1a (64 bits) as 16 hex digits. Entries
// are named by what they were built from, so a changed input never finds a stale one.
std::string cache_key(const std::string& inputs);

}  // namespace ws::user
