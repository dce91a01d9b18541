// The text a frame drew, read back from its glyphs, and the check for cut text.
#include "app/gui/panels/panel.h"

namespace ws::gui {

void check_text(FrameDraw& fd) {
  const ImDrawData* dd = ImGui::GetDrawData();
  if (!dd || !dd->Valid) return;
  ImFontAtlas* atlas = ImGui::GetIO().Fonts;
  // A glyph is a quad of two triangles with the font atlas's texture on it: neither the
  // white pixel (filled shapes) nor the baked lines (anti-aliased strokes).
  const ImVec2 white = atlas->TexUvWhitePixel;
  ImRect lines(0, 0, 0, 0);
  if (atlas->PackIdLines >= 0 && atlas->PackIdLines < atlas->CustomRects.Size) {
    const ImFontAtlasCustomRect& r = atlas->CustomRects[atlas->PackIdLines];
    lines = ImRect(float(r.X) * atlas->TexUvScale.x, float(r.Y) * atlas->TexUvScale.y,
                   float(r.X + r.Width) * atlas->TexUvScale.x, float(r.Y + r.Height) * atlas->TexUvScale.y);
  }
  // A glyph's top-left UV -> the glyph and its font's size: its character, where its ink
  // sits in its line (so that a '.' or ',' joins the line it is on, not a line of its own),
  // and its bottom-right UV, which a glyph clipped on the CPU at its frame's edge (a combo's
  // preview, an input field) lacks.
  struct Glyph {
    const ImFontGlyph* g;
    float size;
  };
  std::map<std::pair<float, float>, Glyph> by_uv;
  for (const ImFont* f : atlas->Fonts)
    for (const ImFontGlyph& gl : f->Glyphs) by_uv[{gl.U0, gl.V0}] = {&gl, f->FontSize};
  const float tol = 1.5f;  // a glyph's quad has a pixel of padding around its ink
  for (int n = 0; n < dd->CmdListsCount; ++n) {
    const ImDrawList* dl = dd->CmdLists[n];
    const char* owner = dl->_OwnerName ? dl->_OwnerName : "";
    ImGuiWindow* w = ImGui::FindWindowByName(owner);
    // Only a scrollbar in view says that there is more (ScrollMax counts without one): the
    // window's own or that of a window it sits in.
    bool scrolls_x = false, scrolls_y = false;
    for (ImGuiWindow* a = w; a; a = (a->Flags & ImGuiWindowFlags_ChildWindow) ? a->ParentWindow : nullptr) {
      scrolls_x |= a->ScrollbarX;
      scrolls_y |= a->ScrollbarY;
    }
    // The panel's name as begin_panel gave it; a child window is named after its parent.
    std::string panel = owner;
    panel.resize(std::min(panel.size(), panel.find('/')));
    struct Run {
      std::string text;
      ImRect rect, clip;
      float top = 0, lh = 0;  // the line's top and height
      bool open = false;
      bool shortened = false;  // ImGui's ellipsis, or a glyph cut at its frame's edge
    } run;
    auto flush = [&] {
      if (!run.open) return;
      ++fd.texts_checked;
      const ImRect& r = run.rect;
      const ImRect& c = run.clip;
      const bool cut_x = !scrolls_x && (r.Min.x < c.Min.x - tol || r.Max.x > c.Max.x + tol);
      const bool cut_y = !scrolls_y && (r.Min.y < c.Min.y - tol || r.Max.y > c.Max.y + tol);
      if (r.Max.x > c.Min.x && r.Min.x < c.Max.x && r.Max.y > c.Min.y && r.Min.y < c.Max.y)
        fd.texts.push_back({panel, run.text, Rect{r.Min.x, r.Min.y, r.Max.x, r.Max.y},
                            Rect{c.Min.x, c.Min.y, c.Max.x, c.Max.y}, Rect{r.Min.x, run.top, r.Max.x, run.top + run.lh}});
      if (cut_x || cut_y || run.shortened)
        fd.cut_texts.push_back({panel, run.text, Rect{r.Min.x, r.Min.y, r.Max.x, r.Max.y},
                                Rect{c.Min.x, c.Min.y, c.Max.x, c.Max.y}});
      run = Run{};
    };
    for (const ImDrawCmd& cmd : dl->CmdBuffer) {
      if (cmd.UserCallback) continue;
      const ImRect clip(cmd.ClipRect.x, cmd.ClipRect.y, cmd.ClipRect.z, cmd.ClipRect.w);
      const ImDrawIdx* idx = dl->IdxBuffer.Data + cmd.IdxOffset;
      const ImDrawVert* vtx = dl->VtxBuffer.Data + cmd.VtxOffset;
      for (unsigned i = 0; i + 6 <= cmd.ElemCount; i += 3) {
        const unsigned a = idx[i];
        if (idx[i + 1] != a + 1 || idx[i + 2] != a + 2 || idx[i + 3] != a || idx[i + 4] != a + 2 ||
            idx[i + 5] != a + 3)
          continue;
        const ImDrawVert *v0 = vtx + a, *v2 = vtx + a + 2;
        const ImVec2 uv0 = v0->uv, uv2 = v2->uv;
        if ((uv0.x == white.x && uv0.y == white.y) || !(uv0.x < uv2.x && uv0.y < uv2.y) ||
            lines.Contains(ImVec2((uv0.x + uv2.x) / 2, (uv0.y + uv2.y) / 2)) || v0[1].pos.y != v0->pos.y ||
            v0[3].pos.x != v0->pos.x)
          continue;
        i += 3;  // the quad's second triangle
        const ImRect g(v0->pos, v2->pos);
        auto it = by_uv.find({uv0.x, uv0.y});
        const ImFontGlyph* gl = it == by_uv.end() ? nullptr : it->second.g;
        // The character as UTF-8 ("µs" reads as drawn); '?' for a glyph not in the atlas.
        std::string ch = "?";
        float top = g.Min.y, lh = g.GetHeight();
        if (gl) {
          char u[5] = {};
          ImTextCharToUtf8(u, gl->Codepoint);
          ch = u;
          const float scale = gl->Y1 > gl->Y0 ? g.GetHeight() / (gl->Y1 - gl->Y0) : 1.f;
          top = g.Min.y - gl->Y0 * scale;
          lh = it->second.size * scale;
        }
        // Cut at its frame's right edge by more than the glyph's padding (a small button's
        // frame trims a pixel of every glyph's quad: that is no cut).
        bool shortened = gl && gl->Codepoint == 0x2026;
        if (gl && !shortened && uv2.x < gl->U1 && gl->U1 > gl->U0) {
          const float kept = (uv2.x - gl->U0) / (gl->U1 - gl->U0);
          const float drawn = v2->pos.x - v0->pos.x;
          shortened = kept > 0 && drawn / kept - drawn > tol;
        }
        // A glyph continues the run on its line when it follows close after it, under the
        // same clip rectangle.
        const bool same = run.open && std::abs(top - run.top) < run.lh * 0.3f && g.Min.x >= run.rect.Max.x - 1 &&
                          g.Min.x - run.rect.Max.x < lh * 0.9f && clip.Min.x == run.clip.Min.x &&
                          clip.Max.x == run.clip.Max.x && clip.Min.y == run.clip.Min.y && clip.Max.y == run.clip.Max.y;
        if (!same) {
          flush();
          run.open = true;
          run.rect = g;
          run.clip = clip;
          run.top = top;
          run.lh = lh;
          run.shortened = shortened;
        } else {
          run.shortened |= shortened;
          if (g.Min.x - run.rect.Max.x > lh * 0.2f) run.text += ' ';
          run.rect.Add(g);
        }
        run.text += ch;
      }
    }
    flush();
    // Items laid out past the right edge (or below a panel without a scrollbar) are not
    // drawn at all, so no glyph shows them: the window's extent of laid-out items does.
    if (w && !(w->Flags & (ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_Popup))) {
      // A table reaches into the window's padding with its cell padding: what passes that
      // is a widget the panel does not show.
      const ImRect& vis = w->InnerClipRect;
      const ImVec2 pad = w->WindowPadding;
      const bool over_x = !scrolls_x && !(w->Flags & ImGuiWindowFlags_HorizontalScrollbar) &&
                          w->DC.CursorMaxPos.x > vis.Max.x + pad.x + 1;
      const bool over_y = !scrolls_y && (w->Flags & ImGuiWindowFlags_NoScrollbar) &&
                          w->DC.CursorMaxPos.y > vis.Max.y + pad.y + 1;
      if (over_x || over_y)
        fd.cut_texts.push_back({panel, "", Rect{vis.Min.x, vis.Min.y, w->DC.CursorMaxPos.x, w->DC.CursorMaxPos.y},
                                Rect{vis.Min.x, vis.Min.y, vis.Max.x, vis.Max.y}});
    }
  }
}

std::string frame_text(const FrameDraw& fd) {
  // Rows by the runs' vertical centres: a run joins the row whose centre is within half
  // its height; rows top to bottom, runs left to right.
  std::vector<const CutText*> runs;
  for (const CutText& t : fd.texts) runs.push_back(&t);
  std::stable_sort(runs.begin(), runs.end(), [](const CutText* a, const CutText* b) { return a->line.cy() < b->line.cy(); });
  std::vector<std::vector<const CutText*>> rows;
  float row_cy = 0;
  for (const CutText* t : runs) {
    if (rows.empty() || t->line.cy() - row_cy > std::max(2.f, t->line.h() * 0.5f)) {
      rows.emplace_back();
      row_cy = t->line.cy();
    }
    rows.back().push_back(t);
  }
  std::string out;
  for (auto& row : rows) {
    std::stable_sort(row.begin(), row.end(), [](const CutText* a, const CutText* b) { return a->rect.x0 < b->rect.x0; });
    for (std::size_t i = 0; i < row.size(); ++i) out += (i ? " " : "") + row[i]->text;
    out += "\n";
  }
  return out;
}

}  // namespace ws::gui
