#pragma once
// Test helper: a headless ImGui context (no window, no GL) whose frames draw one window
// filling the display; the views' tests draw into it and read their draw descriptions.
#include <imgui.h>

namespace ws::test {

class Headless {
 public:
  Headless() {
    ctx_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(1400, 1000);
    io.IniFilename = nullptr;
    unsigned char* px;
    int w, h;
    io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
  }
  ~Headless() { ImGui::DestroyContext(ctx_); }
  template <class F>
  void frame(F&& f) {
    ImGuiIO& io = ImGui::GetIO();
    io.DeltaTime = 1.0f / 60;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::Begin("view", nullptr, ImGuiWindowFlags_NoDecoration);
    f();
    ImGui::End();
    ImGui::Render();
  }

 private:
  ImGuiContext* ctx_;
};

}  // namespace ws::test
