// The Fragments panel (viz/fragments.h): the selected warp's mma.sync by lane, or its
// ldmatrix by row address and bank. The event is the stepper's when it is one of the two,
// else the warp's next one after it, else the latest before it.
#include "app/gui/panels/panel.h"
#include "viz/fragments.h"

namespace ws::gui {

namespace {

std::string_view line_text(const Loaded& l, unsigned line) {
  const auto& lines = l.source.lines;
  return line >= 1 && line <= lines.size() ? std::string_view(lines[line - 1]) : std::string_view();
}

viz::FragmentEvent kind_of(const Loaded& l, const WarpEvent& e) { return viz::fragment_event(e, line_text(l, e.line)); }

// The event shown and where it is: the current one, else the next after it, else the latest.
MapPick pick_fragment_event(const Loaded& l, std::size_t pos) {
  MapPick p;
  const auto& ev = l.events();
  if (l.order.empty()) return p;
  pos = std::min(pos, l.order.size() - 1);
  auto fits = [&](std::size_t q) { return kind_of(l, ev[l.order[q]]) != viz::FragmentEvent::None; };
  for (std::size_t q = pos; q < l.order.size(); ++q)
    if (fits(q)) return MapPick{&ev[l.order[q]], q, q == pos ? 0 : 1};
  for (std::size_t q = pos; q-- > 0;)
    if (fits(q)) return MapPick{&ev[l.order[q]], q, -1};
  return p;
}

viz::FragmentsInput fragments_input(const AppState& s, const Loaded& l, std::size_t pos) {
  viz::FragmentsInput in;
  const MapPick p = pick_fragment_event(l, pos);
  in.covered = cover_of(s).views.shared;
  if (!p.e) {
    in.notice = l.sel.variant + ", block " + std::to_string(l.sel.block) + " warp " + std::to_string(l.sel.warp) +
                ": no mma.sync or ldmatrix here. Select the tensor family (any variant) to see its fragments.";
    return in;
  }
  in.event = p.e;
  in.kind = kind_of(l, *p.e);
  in.caption = map_caption(l, p, in.kind == viz::FragmentEvent::Mma ? "mma" : "ldmatrix.x4");
  if (const ArrayDesc* a = l.array_of(*p.e)) {
    in.array = a->name;
    in.array_base = a->base_offset;
    in.array_row_bytes = a->cols * a->elem_bytes;
  }
  return in;
}

}  // namespace

void draw_fragments(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::Fragments).c_str(), r)) {
    const Loaded& l = s.results.main;
    if (!l.valid()) no_result(s, l);
    else if (!waiting_for(s, l, Stage::Block))
      fd.drawn[std::size_t(View::Fragments)] = viz::draw_fragments(fragments_input(s, l, s.results.stepper.pos), style_of(s));
  }
  end_panel(r);
}

}  // namespace ws::gui
