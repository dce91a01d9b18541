#include "kernels/user/cache_dir.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace ws::user {

std::string cache_dir() {
  namespace fs = std::filesystem;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return (fs::path(x) / "warpscope" / "kernels").string();
  if (const char* h = std::getenv("HOME"); h && *h)
    return (fs::path(h) / ".cache" / "warpscope" / "kernels").string();
  return (fs::temp_directory_path() / "warpscope-kernels").string();
}

std::string cache_key(const std::string& inputs) {
  std::uint64_t h = 14695981039346656037ull;  // the FNV offset basis
  for (unsigned char c : inputs) h = (h ^ c) * 1099511628211ull;
  char b[20];
  std::snprintf(b, sizeof b, "%016llx", (unsigned long long)h);
  return b;
}

}  // namespace ws::user
