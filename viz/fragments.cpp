// The fragments view (viz/fragments.h): the mma tiles by lane, ldmatrix's rows by bank.
#include "viz/fragments.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/mma.h"
#include "viz/chart_widget.h"

namespace ws::viz {

FragmentEvent fragment_event(const WarpEvent& e, std::string_view line_text) {
  if (e.kind == EventKind::Mma) return FragmentEvent::Mma;
  if (e.kind == EventKind::SharedLoad && e.bytes == 16 && line_text.find("ldmatrix") != std::string_view::npos)
    return FragmentEvent::Ldmatrix;
  return FragmentEvent::None;
}

std::string_view to_string(Operand o) { return o == Operand::A ? "A" : o == Operand::B ? "B" : "C"; }

namespace {

constexpr float kMinCell = 6;

// A tile's cells from sim/mma.h's positions: every (lane, element) the instruction defines
// is put where the emulator reads or writes it.
FragTile make_tile(Operand op, float x, float y, float c) {
  FragTile t;
  t.op = op;
  t.rows = sim::kMmaM;
  t.cols = op == Operand::A ? sim::kMmaK : sim::kMmaN;
  t.cells.resize(std::size_t(t.rows * t.cols));
  auto put = [&](sim::FragPos p, unsigned lane, unsigned elem) {
    FragCell& cell = t.cells[std::size_t(p.row * t.cols + p.col)];
    cell.row = p.row;
    cell.col = p.col;
    cell.lane = lane;
    cell.elem = elem;
    cell.rect = Rect{x + p.col * c, y + p.row * c, x + (p.col + 1) * c, y + (p.row + 1) * c};
  };
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (op == Operand::A)
      for (unsigned r = 0; r < 4; ++r)
        for (unsigned h = 0; h < 2; ++h) put(sim::mma_a_pos(lane, r, h), lane, 2 * r + h);
    else if (op == Operand::B)
      for (unsigned r = 0; r < 2; ++r)
        for (unsigned h = 0; h < 2; ++h) put(sim::mma_b_pos(lane, r, h), lane, 2 * r + h);
    else
      for (unsigned i = 0; i < 4; ++i) put(sim::mma_c_pos(lane, i), lane, i);
  }
  t.rect = Rect{x, y, x + t.cols * c, y + t.rows * c};
  return t;
}

std::string elem_name(Operand o, unsigned elem) {
  const char* p = o == Operand::A ? "a" : o == Operand::B ? "b" : "c";
  return p + std::to_string(elem);
}

std::uint32_t dimmed(std::uint32_t c) { return (c & 0xFFFFFF00u) | 0x40u; }

}  // namespace

MmaLayout layout_mma(float x, float y, float w, float h, float f) {
  MmaLayout L;
  L.font = f;
  const float title = 1.6f * f, key = std::min(w / 32, 1.8f * f), extra = title + 0.6f * f + key;
  // Side by side: 16 + 1.5 + 8 + 1.5 + 8 cells across, 16 down. Stacked: A, then B and C
  // side by side (8 + 1 + 8 across), 32 cells and a second title down.
  const float side = std::floor(std::min(w / 35, (h - extra) / 16));
  const float stack = std::floor(std::min(w / 17, (h - extra - title) / 32));
  L.stacked = stack > side;
  const float c = std::max(kMinCell, L.stacked ? stack : side);
  L.cell = c;
  // Two digits at 0.6 of the cell: from 0.8 font, or 13 px under presenter mode's large type.
  L.numbers = c >= std::min(0.8f * f, 13.0f);
  const float top = y + title;
  float bottom;
  if (!L.stacked) {
    L.tiles[0] = make_tile(Operand::A, x, top, c);
    L.tiles[1] = make_tile(Operand::B, x + 17.5f * c, top, c);
    L.tiles[2] = make_tile(Operand::C, x + 27 * c, top, c);
    bottom = top + 16 * c;
  } else {
    L.tiles[0] = make_tile(Operand::A, x, top, c);
    const float y2 = top + 16 * c + title;
    L.tiles[1] = make_tile(Operand::B, x, y2, c);
    L.tiles[2] = make_tile(Operand::C, x + 9 * c, y2, c);
    bottom = y2 + 16 * c;
  }
  const float ky = bottom + 0.6f * f;
  for (unsigned l = 0; l < 32; ++l) L.lane_key[l] = Rect{x + l * key, ky, x + (l + 1) * key - 1, ky + key - 1};
  return L;
}

LdmatrixLayout layout_ldmatrix(const WarpEvent& e, unsigned matrices, float x, float y, float w,
                               float f, const sim::DeviceModel& m) {
  LdmatrixLayout L;
  L.matrices = matrices == 1 || matrices == 2 ? matrices : 4;
  L.font = f;
  L.x0 = x;
  L.bank_x0 = x;
  L.bank_w = w / 32;
  L.cell_h = std::min(L.bank_w, 1.2f * f);
  L.numbers = L.bank_w >= 0.95f * f;
  L.chip_label_w = std::min(9.0f * f, w / 4);
  L.access = sim::analyze_shared(e, m);
  L.header_y = y + 1.5f * f;  // under the summary line
  const unsigned bank_bytes = std::max(1u, m.bank_bytes), banks = std::max(1u, std::min(m.shared_banks, 32u));
  float py = L.header_y + 1.3f * f;
  for (unsigned mi = 0; mi < L.matrices; ++mi) {
    LdmPhase ph;
    ph.matrix = mi;
    WarpEvent sub = e;
    sub.mask = e.mask & (0xFFu << (8 * mi));  // this phase's lanes: the emulator's pass
    const sim::SharedAccess a = sim::analyze_shared(sub, m);
    ph.wavefronts = a.wavefronts;
    ph.max_degree = a.max_degree;
    ph.y0 = py;
    const float chip_y = py + 1.2f * f, stack_y = chip_y + 1.55f * f;
    std::array<unsigned, 32> count{};
    int levels = 1;
    for (unsigned r = 0; r < 8; ++r) {
      LdmRow row;
      row.matrix = mi;
      row.row = r;
      row.lane = sim::ldmatrix_row_lane(mi, r);
      row.offset = (e.mask >> row.lane & 1u) ? e.offset[row.lane] : 0;
      row.first_bank = (row.offset / bank_bytes) % banks;
      // The chips follow a label, so they never line up with the banks under them.
      const float cx0 = x + L.chip_label_w, cw = (w - L.chip_label_w) / 8;
      row.chip = Rect{cx0 + r * cw, chip_y, cx0 + (r + 1) * cw - 2, chip_y + 1.4f * f};
      unsigned lvl = 0;
      for (unsigned k = 0; k < 4; ++k) lvl = std::max(lvl, count[(row.first_bank + k) % banks]);
      row.level = int(lvl);
      for (unsigned k = 0; k < 4; ++k) {
        const unsigned b = (row.first_bank + k) % banks;
        ++count[b];
        ++ph.bank_rows[b];
        const float bx = L.bank_x0 + b * L.bank_w, by = stack_y + lvl * L.cell_h;
        row.rects[k] = Rect{bx, by, bx + L.bank_w - 1, by + L.cell_h - 1};
      }
      levels = std::max(levels, int(lvl) + 1);
      L.rows.push_back(row);
    }
    ph.y1 = stack_y + levels * L.cell_h + 0.6f * f;
    py = ph.y1;
    L.phases.push_back(ph);
  }
  return L;
}

std::string mma_lane_text(unsigned lane) {
  std::string s = "lane " + std::to_string(lane) + " (group " + std::to_string(lane / 4) + ", thread " +
                  std::to_string(lane % 4) + " in it)";
  char b[96];
  s += "\nA, 4 registers of two halves:";
  for (unsigned r = 0; r < 4; ++r) {
    const sim::FragPos p0 = sim::mma_a_pos(lane, r, 0), p1 = sim::mma_a_pos(lane, r, 1);
    std::snprintf(b, sizeof b, "%s a%u a%u = A[%d][%d..%d]", r == 2 ? "\n " : " ", 2 * r, 2 * r + 1, p0.row, p0.col, p1.col);
    s += b;
  }
  s += "\nB, 2 registers:";
  for (unsigned r = 0; r < 2; ++r) {
    const sim::FragPos p0 = sim::mma_b_pos(lane, r, 0), p1 = sim::mma_b_pos(lane, r, 1);
    std::snprintf(b, sizeof b, " b%u b%u = B[%d..%d][%d]", 2 * r, 2 * r + 1, p0.row, p1.row, p0.col);
    s += b;
  }
  s += "\nC and D, 4 floats:";
  for (unsigned i = 0; i < 4; i += 2) {
    const sim::FragPos p0 = sim::mma_c_pos(lane, i), p1 = sim::mma_c_pos(lane, i + 1);
    std::snprintf(b, sizeof b, " c%u c%u = C[%d][%d..%d]", i, i + 1, p0.row, p0.col, p1.col);
    s += b;
  }
  return s;
}

FragmentsGeometry paint_mma(const FragmentsInput&, const MmaLayout& L, int lit, Canvas& cv,
                            const ViewStyle& style) {
  FragmentsGeometry g;
  const Theme& th = theme(style);
  const float f = L.font, nf = std::min(0.72f * f, 0.6f * L.cell);
  auto text = [&](double x, double y, const std::string& s, double size, std::uint32_t col, Anchor a,
                  bool bold = false) {
    cv.text(x, y, s, size, col, a, bold);
    g.texts.push_back(s);
  };
  // Each title over its tile: in full where it fits, smaller, else the operand's name.
  static constexpr const char* kTitles[3] = {"A  16 x 16  (a0..a7)", "B  16 x 8  (b0..b3)", "C, D  16 x 8  (c0..c3)"};
  static constexpr const char* kMid[3] = {"A 16x16 (a0..a7)", "B 16x8 (b0..b3)", "C,D 16x8 (c0..c3)"};
  static constexpr const char* kShort[3] = {"A", "B", "C, D"};
  for (std::size_t ti = 0; ti < 3; ++ti) {
    const FragTile& t = L.tiles[ti];
    const double room = t.rect.w() + 0.5f * L.cell;
    double tf = 0.9 * f;
    std::string title = kTitles[ti];
    if (cv.text_width(title, tf) > room) title = kMid[ti];
    if (cv.text_width(title, tf) > room) tf = 0.75 * f;
    if (cv.text_width(title, tf) > room) title = kShort[ti];
    text(t.rect.x0, t.rect.y0 - 0.75f * f, title, tf, th.text, Anchor::Left, true);
    for (const FragCell& c : t.cells) {
      const std::uint32_t col = lane_colour(c.lane);
      const bool on = lit < 0 || int(c.lane) == lit;
      cv.rect(c.rect.x0, c.rect.y0, c.rect.x1 - 1, c.rect.y1 - 1, on ? col : dimmed(col), 0, 0);
      ++g.cells;
      if (L.numbers) {
        text(c.rect.cx() - 0.5, c.rect.cy(), std::to_string(c.lane), nf, on ? ink_on(col) : th.dim_text,
             Anchor::Center);
        ++g.numbered;
      }
    }
    // The 8 x 8 blocks a register pair covers: one line between them.
    const double mx = t.cols > 8 ? t.rect.x0 + 8 * L.cell : -1, my = t.rect.y0 + 8 * L.cell;
    cv.line(t.rect.x0, my - 0.5, t.rect.x1, my - 0.5, th.text, 1.5 * style.line);
    if (mx > 0) cv.line(mx - 0.5, t.rect.y0, mx - 0.5, t.rect.y1, th.text, 1.5 * style.line);
    cv.rect(t.rect.x0 - 1, t.rect.y0 - 1, t.rect.x1, t.rect.y1, 0, th.dim_text, 1);
    if (lit >= 0)
      for (const FragCell& c : t.cells)
        if (int(c.lane) == lit) {
          cv.rect(c.rect.x0 - 1, c.rect.y0 - 1, c.rect.x1, c.rect.y1, 0, th.highlight, 2 * style.line);
          ++g.lit;
        }
  }
  // The key: one cell per lane, lit like the tiles.
  const float kf = std::min(nf, (L.lane_key[0].w() + 1) * 0.55f);
  for (unsigned l = 0; l < 32; ++l) {
    const Rect& r = L.lane_key[l];
    const std::uint32_t col = lane_colour(l);
    const bool on = lit < 0 || int(l) == lit;
    cv.rect(r.x0, r.y0, r.x1, r.y1, on ? col : dimmed(col), int(l) == lit ? th.highlight : 0, 2);
    if (r.w() >= 0.9f * kf * 2) text(r.cx(), r.cy(), std::to_string(l), kf, on ? ink_on(col) : th.dim_text, Anchor::Center);
  }
  return g;
}

FragmentsGeometry paint_ldmatrix(const FragmentsInput& in, const LdmatrixLayout& L, int lit, Canvas& cv,
                                 const ViewStyle& style) {
  FragmentsGeometry g;
  const Theme& th = theme(style);
  const float f = L.font;
  auto text = [&](double x, double y, const std::string& s, double size, std::uint32_t col, Anchor a,
                  bool bold = false) {
    cv.text(x, y, s, size, col, a, bold);
    g.texts.push_back(s);
  };
  char b[200];
  const sim::SharedAccess& a = L.access;
  if (in.covered)
    std::snprintf(b, sizeof b, "ldmatrix.x%u: how many passes the banks need: %s", L.matrices, kPredictFirst);
  else
    std::snprintf(b, sizeof b, "ldmatrix.x%u: %u wavefronts (ideal %u), %u bank conflicts: the emulator's count for this event",
                  L.matrices, a.wavefronts, a.ideal_wavefronts, a.conflicts);
  text(L.x0, L.header_y - 0.8f * f, b, f, a.conflicts && !in.covered ? th.bad : th.text, Anchor::Left, true);
  // Bank numbers: every bank where they fit, else every fourth.
  const float bf = std::min(0.75f * f, L.bank_w * 0.6f);
  for (unsigned k = 0; k < 32; ++k)
    if (L.bank_w >= 1.1f * bf || k % 4 == 0)
      text(L.bank_x0 + (k + 0.5f) * L.bank_w, L.header_y, std::to_string(k), bf, th.dim_text, Anchor::Center);
  for (const LdmPhase& ph : L.phases) {
    const unsigned l0 = 8 * ph.matrix;
    if (in.covered)
      std::snprintf(b, sizeof b, "matrix %u: lanes %u-%u give its 8 row addresses; their banks:", ph.matrix, l0, l0 + 7);
    else if (ph.max_degree > 1)
      std::snprintf(b, sizeof b, "matrix %u: lanes %u-%u give its 8 row addresses: %u wavefronts, %u-way conflict",
                    ph.matrix, l0, l0 + 7, ph.wavefronts, ph.max_degree);
    else
      std::snprintf(b, sizeof b, "matrix %u: lanes %u-%u give its 8 row addresses: %u wavefront, no conflict",
                    ph.matrix, l0, l0 + 7, ph.wavefronts);
    text(L.x0, ph.y0 + 0.65f * f, b, 0.9f * f, th.text, Anchor::Left);
    const LdmRow& first = L.rows[8 * (&ph - L.phases.data())];
    text(L.x0, first.chip.cy(), L.chip_label_w >= 8.5f * f ? "rows (lane: byte)" : "lane: byte", 0.8f * f,
         th.dim_text, Anchor::Left);
    cv.line(L.x0, ph.y1 - 0.3f * f, L.x0 + 32 * L.bank_w, ph.y1 - 0.3f * f, th.dim_text, 1);
  }
  for (const LdmRow& r : L.rows) {
    const std::uint32_t col = lane_colour(r.lane);
    const bool on = lit < 0 || int(r.lane) == lit;
    const std::uint32_t fill = on ? col : dimmed(col), ink = on ? ink_on(col) : th.dim_text;
    // The chip: the lane and the byte its row starts at.
    cv.rect(r.chip.x0, r.chip.y0, r.chip.x1, r.chip.y1, fill, int(r.lane) == lit ? th.highlight : 0, 2);
    const std::string chip = "lane " + std::to_string(r.lane) + ": " + std::to_string(r.offset);
    const std::string small = std::to_string(r.lane) + ": " + std::to_string(r.offset);
    const float cf = 0.8f * f;
    const std::string& s = cv.text_width(chip, cf) <= r.chip.w() - 4 ? chip : small;
    if (cv.text_width(s, cf) <= r.chip.w() - 2) text(r.chip.cx(), r.chip.cy(), s, cf, ink, Anchor::Center);
    else text(r.chip.cx(), r.chip.cy(), std::to_string(r.lane), cf, ink, Anchor::Center);
    for (const Rect& c : r.rects) {
      cv.rect(c.x0, c.y0, c.x1, c.y1, fill, int(r.lane) == lit ? th.highlight : 0, 2);
      ++g.cells;
      if (L.numbers) {
        text(c.cx(), c.cy(), std::to_string(r.lane), 0.7f * f, ink, Anchor::Center);
        ++g.numbered;
      }
      if (int(r.lane) == lit) ++g.lit;
    }
  }
  return g;
}

namespace {

// The lane under the mouse: a tile's cell or a key's (mma), a bank cell or a chip (ldmatrix).
int lane_under(const FragmentsDraw& d, float mx, float my) {
  auto in = [&](const Rect& r) { return mx >= r.x0 && mx < r.x1 && my >= r.y0 && my < r.y1; };
  if (d.kind == FragmentEvent::Mma) {
    for (const FragTile& t : d.mma.tiles)
      if (in(t.rect))
        for (const FragCell& c : t.cells)
          if (in(c.rect)) return int(c.lane);
    for (unsigned l = 0; l < 32; ++l)
      if (in(d.mma.lane_key[l])) return int(l);
  } else {
    for (const LdmRow& r : d.ldm.rows) {
      if (in(r.chip)) return int(r.lane);
      for (const Rect& c : r.rects)
        if (in(c)) return int(r.lane);
    }
  }
  return -1;
}

std::string ldmatrix_lane_text(const FragmentsInput& in, const LdmatrixLayout& L, unsigned lane) {
  char b[320];
  for (const LdmRow& r : L.rows)
    if (r.lane == lane) {
      std::string where;
      if (in.array_row_bytes > 0 && r.offset >= in.array_base) {
        const unsigned rel = r.offset - in.array_base;
        where = " (row " + std::to_string(rel / in.array_row_bytes) + " of " + in.array + ", byte " +
                std::to_string(rel % in.array_row_bytes) + " of it)";
      }
      std::snprintf(b, sizeof b,
                    "lane %u supplies the address of row %u of matrix %u:\nshared byte %u%s, banks %u-%u.\n"
                    "It receives, in register m, row %u of matrix m, halves %u and %u.",
                    lane, r.row, r.matrix, r.offset, where.c_str(), r.first_bank, (r.first_bank + 3) % 32, lane / 4,
                    2 * (lane % 4), 2 * (lane % 4) + 1);
      return b;
    }
  std::snprintf(b, sizeof b, "lane %u supplies no row address in ldmatrix.x%u; it receives row %u of each matrix",
                lane, L.matrices, lane / 4);
  return b;
}

}  // namespace

FragmentsDraw draw_fragments(const FragmentsInput& in, const ViewStyle& style) {
  FragmentsDraw d;
  d.kind = in.event ? in.kind : FragmentEvent::None;
  const Theme& th = theme(style);
  if (!in.caption.empty()) {  // wrapped: a narrow lesson column keeps all of it
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", in.caption.c_str());
    ImGui::PopStyleColor();
  }
  if (d.kind == FragmentEvent::None) {
    d.notice = in.notice.empty() ? "Select an mma.sync or ldmatrix event of a tensor-core kernel." : in.notice;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(to_imgui(th.notice)));
    ImGui::TextWrapped("%s", d.notice.c_str());
    ImGui::PopStyleColor();
    return d;
  }
  if (d.kind == FragmentEvent::Mma)
    ImGui::TextWrapped(
        "mma.sync.m16n8k16, D = A B + C: each element in the colour of the lane holding it "
        "(lane = 4 group + thread). Point at a cell for its lane's registers.");
  else
    ImGui::TextWrapped(
        "ldmatrix: in each phase 8 lanes give the addresses of an 8 x 8 matrix's rows, 16 bytes each "
        "(a chip: the lane and the shared byte its row starts at). Each row covers 4 of the banks "
        "numbered across the top; rows stacked on a bank are the wavefronts that phase needs.");
  const float f = ImGui::GetFontSize();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float w = std::max(avail.x - f * 0.5f, f * 12), h = std::max(avail.y, f * 10);
  float used;
  if (d.kind == FragmentEvent::Mma) {
    d.mma = layout_mma(p.x, p.y, w, h, f);
    used = d.mma.lane_key[0].y1 - p.y + 0.4f * f;
  } else {
    d.ldm = layout_ldmatrix(*in.event, 4, p.x, p.y, w, f, in.model);
    used = (d.ldm.phases.empty() ? p.y : d.ldm.phases.back().y1) - p.y;
  }
  d.lit = in.hover_lane;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const int under = ImGui::IsWindowHovered() ? lane_under(d, mouse.x, mouse.y) : -1;
  if (under >= 0) d.lit = under;
  ImDrawCanvas cv(ImGui::GetWindowDrawList());
  d.geom = d.kind == FragmentEvent::Mma ? paint_mma(in, d.mma, d.lit, cv, style)
                                        : paint_ldmatrix(in, d.ldm, d.lit, cv, style);
  if (d.lit >= 0)
    d.tooltip = d.kind == FragmentEvent::Mma ? mma_lane_text(unsigned(d.lit)) : ldmatrix_lane_text(in, d.ldm, unsigned(d.lit));
  if (under >= 0) ImGui::SetTooltip("%s", d.tooltip.c_str());
  d.rect = Rect{p.x, p.y, p.x + w, p.y + used};
  d.drawn = true;
  ImGui::Dummy(ImVec2(w, used));
  return d;
}

}  // namespace ws::viz
