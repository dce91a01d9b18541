// The ImGui style for normal and presenter (high-contrast) mode.
#include "app/gui/panels/panel.h"

namespace ws::gui {

std::uint32_t apply_style(bool presenter) {
  ImGuiStyle& st = ImGui::GetStyle();
  st = ImGuiStyle();
  auto clear_from_window_bg = [&] {
    const ImVec4 bg = st.Colors[ImGuiCol_WindowBg];
    st.Colors[ImGuiCol_WindowBg].w = 0;
    return viz::rgba(unsigned(bg.x * 255 + 0.5f), unsigned(bg.y * 255 + 0.5f), unsigned(bg.z * 255 + 0.5f));
  };
  // The theme's colours over ImGui's dark style; 0 keeps the dark default.
  ImGui::StyleColorsDark(&st);
  const viz::Theme& t = viz::theme(presenter ? viz::ViewStyle::presenter() : viz::ViewStyle{});
  ImVec4* c = st.Colors;
  auto set = [](ImVec4& slot, std::uint32_t col) {
    if (col) slot = viz::to_imvec4(col);
  };
  set(c[ImGuiCol_WindowBg], t.window_bg);
  set(c[ImGuiCol_ChildBg], t.child_bg);
  set(c[ImGuiCol_Text], t.window_text);
  set(c[ImGuiCol_TextDisabled], t.text_disabled);
  set(c[ImGuiCol_TitleBg], t.title_bg);
  set(c[ImGuiCol_TitleBgActive], t.title_bg);
  set(c[ImGuiCol_Border], t.border);
  set(c[ImGuiCol_FrameBg], t.frame_bg);
  set(c[ImGuiCol_Button], t.button);
  if (!presenter) {
    st.WindowRounding = 0;
    st.FrameRounding = 2;
    return clear_from_window_bg();
  }
  st.WindowBorderSize = 2;
  st.WindowRounding = 0;
  return clear_from_window_bg();
}

}  // namespace ws::gui
