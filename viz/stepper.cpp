// The stepper over a warp's events.
#include "viz/stepper.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viz/imgui_util.h"

namespace ws::viz {

std::string_view to_string(StepAction a) {
  switch (a) {
    case StepAction::None: return "none";
    case StepAction::First: return "first";
    case StepAction::Back: return "back";
    case StepAction::Forward: return "forward";
    case StepAction::Last: return "last";
    case StepAction::Play: return "play";
    case StepAction::Pause: return "pause";
    case StepAction::Scrub: return "scrub";
    case StepAction::NextBarrier: return "next barrier";
    case StepAction::NextConflict: return "next conflict";
    case StepAction::PrevConflict: return "previous conflict";
  }
  return "unknown";
}

bool StepperState::seek(std::size_t p) {
  if (order.empty()) {
    pos = 0;
    return false;
  }
  p = std::min(p, order.size() - 1);
  const bool moved = p != pos;
  pos = p;
  return moved;
}

bool StepperState::next_barrier(const std::vector<WarpEvent>& events) {
  for (std::size_t p = pos + 1; p < order.size(); ++p)
    if (order[p] < events.size() && events[order[p]].kind == EventKind::Barrier) return seek(p);
  return false;
}

bool StepperState::next_conflict(const std::vector<WarpEvent>& events, const sim::DeviceModel& m) {
  for (std::size_t p = pos + 1; p < order.size(); ++p)
    if (order[p] < events.size() && is_conflict(events[order[p]], m)) return seek(p);
  return false;
}

bool StepperState::prev_conflict(const std::vector<WarpEvent>& events, const sim::DeviceModel& m) {
  for (std::size_t p = pos; p-- > 0;)
    if (order[p] < events.size() && is_conflict(events[order[p]], m)) return seek(p);
  return false;
}

bool StepperState::tick(double dt) {
  if (!playing || order.empty()) return false;
  accum += dt * steps_per_second;
  bool moved = false;
  while (accum >= 1.0) {
    accum -= 1.0;
    if (pos + 1 >= order.size()) {
      playing = false;
      accum = 0;
      break;
    }
    moved |= forward();
  }
  return moved;
}

void StepperState::apply(StepAction a, const std::vector<WarpEvent>& events, const sim::DeviceModel& m) {
  switch (a) {
    case StepAction::First: seek(0); break;
    case StepAction::Back: back(); break;
    case StepAction::Forward: forward(); break;
    case StepAction::Last: seek(order.empty() ? 0 : order.size() - 1); break;
    case StepAction::Play:
      if (!order.empty() && pos + 1 >= order.size()) seek(0);  // replay from the start
      playing = true;
      accum = 0;
      break;
    case StepAction::Pause: playing = false; break;
    case StepAction::NextBarrier: next_barrier(events); break;
    case StepAction::NextConflict: next_conflict(events, m); break;
    case StepAction::PrevConflict: prev_conflict(events, m); break;
    case StepAction::Scrub:
    case StepAction::None: break;
  }
  // Stepping by hand takes over from play.
  if (a != StepAction::Play && a != StepAction::None) playing = false;
}

std::string describe_event(const WarpEvent& e, const sim::DeviceModel& m) {
  char b[256];
  const int active = e.active_lanes();
  if (is_shared(e.kind)) {
    const sim::SharedAccess s = sim::analyze_shared(e, m);
    std::snprintf(b, sizeof b, "%s, line %u, %d lanes, %u B each: %u wavefront%s%s",
                  std::string(to_string(e.kind)).c_str(), unsigned(e.line), active, unsigned(e.bytes),
                  s.wavefronts, s.wavefronts == 1 ? "" : "s",
                  s.conflicts ? (" - " + std::to_string(s.max_degree) + "-way bank conflict").c_str() : "");
  } else if (e.kind == EventKind::BulkStore) {
    const sim::GlobalAccess g = sim::analyze_global(e, m);
    const auto pieces = sim::bulk_store_sectors(e, m.access());
    std::snprintf(b, sizeof b,
                  "bulk_store, line %u, %d lanes hand the copy engine %u B each: %u sectors; it "
                  "writes %llu (pieces cut at the shared rows' 128-byte lines)",
                  unsigned(e.line), active, unsigned(lane_bytes(e)), g.sectors,
                  (unsigned long long)pieces);
  } else if (is_global(e.kind)) {
    const sim::GlobalAccess g = sim::analyze_global(e, m);
    std::snprintf(b, sizeof b, "%s, line %u, %d lanes, %u B each: %u sector%s (ideal %u)",
                  std::string(to_string(e.kind)).c_str(), unsigned(e.line), active, unsigned(e.bytes),
                  g.sectors, g.sectors == 1 ? "" : "s", g.ideal_sectors);
  } else if (e.kind == EventKind::Branch) {
    std::snprintf(b, sizeof b, "branch, line %u: condition true on %d of %d active lanes%s",
                  unsigned(e.line), __builtin_popcount(e.ballot & e.mask), active,
                  diverged(e) ? " - the warp diverges" : "");
  } else {
    std::snprintf(b, sizeof b, "%s, line %u, %d lanes", std::string(to_string(e.kind)).c_str(),
                  unsigned(e.line), active);
  }
  return b;
}

bool covers(const Covered& c, const WarpEvent& e) {
  if (c.lanes) return true;  // every description counts the active lanes
  if (is_shared(e.kind)) return c.shared;
  if (is_global(e.kind)) return c.global;
  if (e.kind == EventKind::Branch) return c.branch;
  return false;
}

std::string describe_event_covered(const WarpEvent& e) {
  return std::string(to_string(e.kind)) + ", line " + std::to_string(e.line) + ": " + kPredictFirst;
}

namespace {

constexpr const char* kButtons[] = {"|<", "< step", "pause", "step >", ">|", "next barrier", "prev conflict",
                                    "next conflict"};
// The description of a conflicting shared access, the longest kind.
constexpr const char* kLongLabel =
    "event 000 of 000: shared_load, line 000, 32 lanes, 4 B each: 32 wavefronts - 32-way bank conflict";

float button_width(const char* label) {
  return ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2;
}

// The next button on the row when it fits in the content width, else on a new row.
void flow_next(const char* label) {
  ImGui::SameLine();
  if (ImGui::GetCursorPosX() + button_width(label) > ImGui::GetWindowContentRegionMax().x) ImGui::NewLine();
}

}  // namespace

float stepper_content_height(float width) {
  const ImGuiStyle& st = ImGui::GetStyle();
  int rows = 1;
  float x = 0;
  for (const char* b : kButtons) {
    const float w = button_width(b);
    if (x > 0 && x + st.ItemSpacing.x + w > width) {
      ++rows;
      x = 0;
    }
    x += (x > 0 ? st.ItemSpacing.x : 0) + w;
  }
  const float text_w = ImGui::CalcTextSize(kLongLabel).x;
  const int lines = std::max(2, int(std::ceil(text_w / std::max(width, 1.0f) * 1.1f)));
  return ImGui::GetFrameHeightWithSpacing() * float(rows + 1) + ImGui::GetTextLineHeightWithSpacing() * float(lines);
}

StepperDraw draw_stepper(StepperState& s, const std::vector<WarpEvent>& events,
                         const sim::DeviceModel& m, const ViewStyle& style, const Covered& covered) {
  StepperDraw d;
  if (s.empty()) {
    d.label = "No events kept for this warp.";
    ImGui::TextDisabled("%s", d.label.c_str());
    return d;
  }
  d.drawn = true;
  StepAction act = StepAction::None;
  if (ImGui::Button("|<")) act = StepAction::First;
  flow_next("< step");
  if (ImGui::Button("< step")) act = StepAction::Back;
  flow_next("pause");
  if (s.playing) {
    if (ImGui::Button("pause")) act = StepAction::Pause;
  } else if (ImGui::Button("play")) {
    act = StepAction::Play;
  }
  flow_next("step >");
  if (ImGui::Button("step >")) act = StepAction::Forward;
  flow_next(">|");
  if (ImGui::Button(">|")) act = StepAction::Last;
  flow_next("next barrier");
  if (ImGui::Button("next barrier")) act = StepAction::NextBarrier;
  flow_next("prev conflict");
  if (ImGui::Button("prev conflict")) act = StepAction::PrevConflict;
  flow_next("next conflict");
  if (ImGui::Button("next conflict")) act = StepAction::NextConflict;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("a shared access with a bank conflict, or a global access with more sectors than ideal");

  // The scrub bar counts events from 1, like the label under it.
  int p = int(s.pos) + 1;
  const float speed_w = ImGui::GetFontSize() * 9;
  ImGui::SetNextItemWidth(std::max(60.0f, ImGui::GetContentRegionAvail().x - speed_w));
  if (ImGui::SliderInt("##scrub", &p, 1, int(s.size()), "event %d") && act == StepAction::None) {
    s.seek(std::size_t(std::max(1, p) - 1));
    act = StepAction::Scrub;
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
  ImGui::SliderFloat("steps/s", &s.steps_per_second, 0.5f, 30.0f, "%.1f", ImGuiSliderFlags_Logarithmic);
  if (act != StepAction::None && act != StepAction::Scrub) s.apply(act, events, m);
  if (act == StepAction::Scrub) s.playing = false;
  d.action = act;
  const WarpEvent& e = events.at(s.current());
  const bool hide = covers(covered, e);
  d.label = "event " + std::to_string(s.pos + 1) + " of " + std::to_string(s.size()) + ": " +
            (hide ? describe_event_covered(e) : describe_event(e, m));
  ImGui::PushStyleColor(ImGuiCol_Text,
                        to_imgui(!hide && is_conflict(e, m) ? heat_colour(8) : text_colour(style)));
  ImGui::TextWrapped("%s", d.label.c_str());
  ImGui::PopStyleColor();
  return d;
}

}  // namespace ws::viz
