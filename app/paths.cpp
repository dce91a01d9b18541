// Data and font lookup (see app/paths.h).
#include "app/paths.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#if defined(WS_HAVE_FONTCONFIG)
#include <fontconfig/fontconfig.h>
#endif

namespace fs = std::filesystem;

namespace ws::paths {
namespace {

// Debian's fonts-dejavu-core: the fallback when fontconfig finds nothing.
constexpr const char* kDejaVuSans = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

bool is_dir(const std::string& p) {
  std::error_code ec;
  return !p.empty() && fs::is_directory(p, ec);
}

#if defined(WS_HAVE_FONTCONFIG)
// The file fontconfig picks for a family name; "" when it picks none or not a TrueType.
std::string fontconfig_file(const std::string& family) {
  if (!FcInit()) return "";
  std::string out;
  FcPattern* pat = FcNameParse(reinterpret_cast<const FcChar8*>(family.c_str()));
  if (!pat) return "";
  FcConfigSubstitute(nullptr, pat, FcMatchPattern);
  FcDefaultSubstitute(pat);
  FcResult res = FcResultNoMatch;
  if (FcPattern* m = FcFontMatch(nullptr, pat, &res)) {
    FcChar8* file = nullptr;
    if (FcPatternGetString(m, FC_FILE, 0, &file) == FcResultMatch && file) {
      const std::string f = reinterpret_cast<const char*>(file);
      const std::string ext = fs::path(f).extension().string();
      if (ext == ".ttf" || ext == ".TTF") out = f;  // what ImGui (stb_truetype) loads
    }
    FcPatternDestroy(m);
  }
  FcPatternDestroy(pat);
  return out;
}
#endif

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

std::string default_font() {
  std::vector<std::string> families;
  if (const std::string list = find_data("assets/fonts.txt"); !list.empty()) {
    std::ifstream in(list);
    for (std::string line; std::getline(in, line);) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      if (!line.empty() && line[0] != '#') families.push_back(line);
    }
  }
  if (families.empty()) families = {"DejaVu Sans"};
#if defined(WS_HAVE_FONTCONFIG)
  for (const std::string& f : families)
    if (std::string file = fontconfig_file(f); !file.empty()) return file;
#endif
  std::error_code ec;
  return fs::exists(kDejaVuSans, ec) ? kDejaVuSans : "";
}

}  // namespace ws::paths
