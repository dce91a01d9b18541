// The kernel editor's panel (app/gui/editor_panel.h).
#include "app/gui/panels/panel.h"

namespace ws::gui {

void draw_editor(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::Editor).c_str(), r) && s.editor) fd.editor = s.editor->draw(s);
  ImGui::End();
}

}  // namespace ws::gui
