#include "kernels/user/cache_dir.h"

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

}  // namespace ws::user
