// Data lookup (see io/data_paths.h).
#include "io/data_paths.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace ws::paths {
namespace {

bool is_dir(const std::string& p) {
  std::error_code ec;
  return !p.empty() && fs::is_directory(p, ec);
}

}  // namespace

std::string exe_dir() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.parent_path().string();
}

std::vector<std::string> data_roots() {
  std::vector<std::string> roots;
  auto add = [&](const std::string& p) {
    if (!is_dir(p)) return;
    std::error_code ec;
    const std::string c = fs::weakly_canonical(p, ec).string();
    const std::string r = ec ? p : c;
    if (std::find(roots.begin(), roots.end(), r) == roots.end()) roots.push_back(r);
  };
  for (const char* env : {"WARPSCOPE_DATA_DIR", "WARPSCOPE_SOURCE_DIR"})
    if (const char* e = std::getenv(env); e && *e) add(e);
  if (const std::string d = exe_dir(); !d.empty()) add((fs::path(d) / "../share/warpscope").string());
#if defined(WS_SOURCE_DIR)
  add(WS_SOURCE_DIR);
#endif
  roots.push_back(".");
  return roots;
}

std::vector<std::string> header_roots() {
  std::vector<std::string> out;
  for (const std::string& r : data_roots()) {
    out.push_back(r);
    if (const std::string inc = (fs::path(r) / "include").string(); is_dir(inc)) out.push_back(inc);
  }
  return out;
}

std::string find_data(const std::string& rel) {
  for (const std::string& r : data_roots()) {
    std::error_code ec;
    const fs::path p = fs::path(r) / rel;
    if (fs::exists(p, ec)) return p.string();
  }
  return "";
}

std::string lessons_dir() {
  for (const std::string& r : data_roots()) {
    const fs::path d = fs::path(r) / "lessons";
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(d, ec))
      if (e.path().extension() == ".md" && e.path().filename() != "README.md") return d.string();
  }
  return "";
}

std::string dialect_include_dir() {
  if (const char* e = std::getenv("WARPSCOPE_INCLUDE"); e && *e) return e;
  for (const std::string& r : header_roots()) {
    std::error_code ec;
    if (fs::is_regular_file(fs::path(r) / "kernels" / "dialect" / "simt.h", ec)) return r;
  }
  return "";
}

}  // namespace ws::paths
