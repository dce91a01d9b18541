// Data and font lookup (see app/paths.h).
#include "app/paths.h"

#include "io/read_file.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>

#if defined(WS_HAVE_FONTCONFIG)
#include <fontconfig/fontconfig.h>
#endif

namespace fs = std::filesystem;

namespace ws::paths {
namespace {

// Debian's fonts-dejavu-core: the fallback when fontconfig finds nothing.
constexpr const char* kDejaVuSans = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

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
  // A machine without fontconfig's configuration (the GPU machine's bundle) names a folder.
  if (const char* dir = std::getenv("WARPSCOPE_FONT_DIR"); dir && *dir)
    if (const fs::path f = fs::path(dir) / "DejaVuSans.ttf"; fs::is_regular_file(f, ec)) return f.string();
  return fs::exists(kDejaVuSans, ec) ? kDejaVuSans : "";
}

namespace {

// Big-endian reads that say whether [at, at + n) is inside the buffer.
struct Bytes {
  const std::string& b;
  bool has(std::uint64_t at, std::uint64_t n) const { return at <= b.size() && n <= b.size() - at; }
  std::uint32_t u16(std::uint64_t at) const {
    return std::uint32_t(std::uint8_t(b[at])) << 8 | std::uint8_t(b[at + 1]);
  }
  std::uint32_t u32(std::uint64_t at) const { return u16(at) << 16 | u16(at + 2); }
};

std::string tag_name(std::uint32_t t) {
  std::string s;
  for (int i = 3; i >= 0; --i) s += char((t >> (8 * i)) & 0xFF);
  return s;
}

constexpr std::uint32_t tag(const char* s) {
  return std::uint32_t(std::uint8_t(s[0])) << 24 | std::uint32_t(std::uint8_t(s[1])) << 16 |
         std::uint32_t(std::uint8_t(s[2])) << 8 | std::uint8_t(s[3]);
}

// The checks of font_problem on the file's bytes; `name` starts every sentence.
std::string sfnt_problem(const std::string& data, const std::string& name) {
  const Bytes f{data};
  std::uint64_t font = 0;  // offset of the sfnt (the first font of a collection)
  auto sfnt = [](std::uint32_t v) {
    return v == 0x00010000u || v == tag("true") || v == tag("OTTO") || v == tag("ttcf");
  };
  if (!f.has(0, 12))
    return name + (f.has(0, 4) && sfnt(f.u32(0)) ? " is truncated or damaged: " : " is not a TrueType or OpenType font: ") +
           std::to_string(data.size()) + " bytes, shorter than a font header";
  std::uint32_t version = f.u32(0);
  if (version == tag("ttcf")) {
    if (f.u32(8) == 0) return name + " is a font collection with no fonts";
    font = f.u32(12);
    if (!f.has(font, 12))
      return name + " is truncated or damaged: its first font starts past the end of the file";
    version = f.u32(font);
  }
  if (!sfnt(version) || version == tag("ttcf"))
    return name + " is not a TrueType or OpenType font (no sfnt header)";
  const std::uint32_t tables = f.u16(font + 4);
  if (!f.has(font + 12, 16ull * tables))
    return name + " is truncated or damaged: its table directory (" + std::to_string(tables) +
           " tables) runs past the end of the file (" + std::to_string(data.size()) + " bytes)";
  struct Table {
    std::uint64_t at = 0, len = 0;
    bool found = false;
  };
  auto find = [&](std::uint32_t t) {
    Table r;
    for (std::uint32_t i = 0; i < tables; ++i) {
      const std::uint64_t e = font + 12 + 16ull * i;
      if (f.u32(e) == t) return Table{f.u32(e + 8), f.u32(e + 12), true};
    }
    return r;
  };
  for (std::uint32_t i = 0; i < tables; ++i) {
    const std::uint64_t e = font + 12 + 16ull * i;
    if (!f.has(f.u32(e + 8), f.u32(e + 12)))
      return name + " is truncated or damaged: table '" + tag_name(f.u32(e)) + "' ends at byte " +
             std::to_string(std::uint64_t(f.u32(e + 8)) + f.u32(e + 12)) + " of a " +
             std::to_string(data.size()) + "-byte file";
  }
  const bool cff = find(tag("CFF ")).found;
  // What stb_truetype reads without a bounds check, with the least size it reads of each.
  const std::pair<const char*, std::uint64_t> need[] = {
      {"cmap", 4}, {"head", 54}, {"hhea", 36}, {"hmtx", 0}, {"maxp", 6},
      {cff ? "CFF " : "loca", 0}, {cff ? "CFF " : "glyf", 0}};
  for (const auto& [t, least] : need) {
    const Table x = find(tag(t));
    if (!x.found) return name + " has no '" + t + "' table: not a font the window can use";
    if (x.len < least)
      return name + " is damaged: its '" + t + "' table is " + std::to_string(x.len) +
             " bytes, shorter than its header";
  }
  const Table cmap = find(tag("cmap")), head = find(tag("head")), hhea = find(tag("hhea")),
              hmtx = find(tag("hmtx")), maxp = find(tag("maxp"));
  const std::uint64_t glyphs = f.u16(maxp.at + 4);
  // The Unicode subtable the loader picks (Windows Unicode BMP/full, or a Unicode platform).
  const std::uint32_t subtables = f.u16(cmap.at + 2);
  if (!f.has(cmap.at + 4, 8ull * subtables) || 4 + 8ull * subtables > cmap.len)
    return name + " is damaged: its 'cmap' directory runs past the table";
  bool unicode = false;
  for (std::uint32_t i = 0; i < subtables; ++i) {
    const std::uint64_t e = cmap.at + 4 + 8ull * i;
    const std::uint32_t platform = f.u16(e), encoding = f.u16(e + 2);
    if (!(platform == 0 || (platform == 3 && (encoding == 1 || encoding == 10)))) continue;
    const std::uint64_t sub = cmap.at + f.u32(e + 4);
    if (f.u32(e + 4) + 8ull > cmap.len)
      return name + " is damaged: a 'cmap' subtable starts past the table";
    const std::uint32_t format = f.u16(sub);
    const std::uint64_t len = format >= 8 ? f.u32(sub + 4) : f.u16(sub + 2);
    if (f.u32(e + 4) + len > cmap.len)
      return name + " is damaged: its 'cmap' subtable (format " + std::to_string(format) +
             ") runs past the table";
    unicode = true;
  }
  if (!unicode) return name + " has no Unicode character map: not a font the window can use";
  if (hmtx.len < 4ull * f.u16(hhea.at + 34))
    return name + " is damaged: its 'hmtx' table is shorter than 'hhea' says";
  if (!cff) {
    const Table loca = find(tag("loca")), glyf = find(tag("glyf"));
    const bool wide = f.u16(head.at + 50) != 0;
    if (loca.len < (glyphs + 1) * (wide ? 4 : 2))
      return name + " is damaged: its 'loca' table is shorter than its " +
             std::to_string(glyphs) + " glyphs need";
    for (std::uint64_t g = 0; g <= glyphs; ++g) {
      const std::uint64_t at = wide ? f.u32(loca.at + 4 * g) : 2ull * f.u16(loca.at + 2 * g);
      if (at > glyf.len)
        return name + " is damaged: glyph " + std::to_string(g) + " lies past its 'glyf' table";
    }
  }
  return "";
}

}  // namespace

std::string font_problem(const std::string& path) {
  const std::string name = "font " + path;
  // The one reader: a FIFO, device or directory is refused before a byte is read.
  const io::ReadResult r = io::read_file(path, std::size_t(64) << 20, "font");
  if (!r.ok) return r.error;
  const std::string& data = r.text;
  return sfnt_problem(data, name);
}

}  // namespace ws::paths
