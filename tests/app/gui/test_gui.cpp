// The desktop app through a real GL window (run under xvfb-run): each view rendered for
// known kernels on the emulator, checked by its draw description and by pixels.
#include <gtest/gtest.h>
#include <imgui.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

#include "app/gui/export.h"
#include "app/gui/gui.h"
#include "app/gui/session.h"
#include "app/paths.h"
#include "kernels/hardware/recording.h"
#include "viz/fragments.h"
#include "viz/roofline.h"
#include "viz/sector_map.h"
#include "viz/view_common.h"

namespace fs = std::filesystem;
using namespace ws;
using namespace ws::gui;

namespace {

#define NEED_DISPLAY()                                                              \
  if (!ws::gui::display_available()) GTEST_SKIP() << "no display: run under xvfb-run"

std::unique_ptr<Session> open_session(const std::string& family, const std::string& variant,
                                      const Params& p, View view, GuiOptions o = {}) {
  o.backend = "emu";
  o.family = family;
  o.variant = variant;
  o.params = p;
  SessionOptions so;
  so.focus = false;  // keys pressed by tests beside this one stay theirs
  so.visible = true;
  so.vsync = false;
  so.idle_wait = false;
  so.backend = backend_factory("emu");
  std::string err;
  auto s = Session::open(o, so, err);
  EXPECT_TRUE(s) << err;
  if (!s) return s;
  s->state().single_view = view;
  EXPECT_TRUE(s->settle(120, err)) << err;
  return s;
}

Params tiled(long long pad) { return {{"n", 64}, {"tile", 32}, {"block_rows", 8}, {"pad", pad}}; }

bool near(std::uint32_t a, std::uint32_t b, int tol = 3) {
  for (int sh = 8; sh < 32; sh += 8) {
    const int x = int((a >> sh) & 0xFF), y = int((b >> sh) & 0xFF);
    if (std::abs(x - y) > tol) return false;
  }
  return true;
}

// Some pixel inside the rectangle (inset, so frames and rounded corners stay out) has the
// colour: labels drawn over cells cover their middle, never all of them.
bool rect_has(const platform::Pixels& px, const viz::Rect& r, std::uint32_t colour, int inset = 3) {
  for (int y = int(r.y0) + inset; y < int(r.y1) - inset; ++y)
    for (int x = int(r.x0) + inset; x < int(r.x1) - inset; ++x)
      if (near(px.at(x, y), colour)) return true;
  return false;
}

// Renders frames with the stepper at `pos` and returns the last, captured.
FrameDraw show(Session& s, std::size_t pos) {
  s.state().results.stepper.seek(pos);
  s.frame();
  s.frame();
  return s.frame(true);
}

std::string temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("ws_gui_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

}  // namespace

TEST(GuiBankMap, TiledTransposeWithoutPaddingHasOneBankAt32Words) {
  NEED_DISPLAY();
  auto s = open_session("transpose", "tiled", tiled(0), View::BankMap);
  ASSERT_TRUE(s && s->state().results.main.valid());
  ASSERT_TRUE(s->state().results.main.run->ok()) << s->state().results.main.run->error << s->state().results.main.run->verify_message;
  const FrameDraw fd = show(*s, s->state().results.interesting_pos(View::BankMap));
  ASSERT_TRUE(fd.bank.drawn) << fd.bank.note;
  EXPECT_EQ(fd.bank.hot_banks, 1);
  int at32 = -1;
  for (int b = 0; b < 32; ++b)
    if (fd.bank.bank_words[b] == 32) at32 = b;
  ASSERT_GE(at32, 0) << "the column read puts 32 words on one bank";
  for (int b = 0; b < 32; ++b) {
    EXPECT_EQ(fd.bank.bank_fill[b], viz::heat_colour(fd.bank.bank_words[b]));
    if (b != at32) { EXPECT_EQ(fd.bank.bank_words[b], 0u); }
  }
  const auto& px = s->pixels();
  EXPECT_TRUE(rect_has(px, fd.bank.bank_rect[at32], viz::heat_colour(32))) << "the hot bank is drawn red";
  EXPECT_TRUE(rect_has(px, fd.bank.bank_rect[(at32 + 1) % 32], viz::heat_colour(0)));
  EXPECT_FALSE(rect_has(px, fd.bank.bank_rect[(at32 + 1) % 32], viz::heat_colour(32)));
  // The grid: 32 x 32 words, the touched cells one column of one bank's colour.
  EXPECT_EQ(fd.bank.grid_cols, 32u);
  ASSERT_EQ(fd.bank.touched.size(), 32u);
  for (const viz::GridCell& c : fd.bank.touched) {
    EXPECT_EQ(c.bank, unsigned(at32));
    EXPECT_EQ(c.col, fd.bank.touched.front().col);
    EXPECT_TRUE(rect_has(px, c.rect, viz::bank_colour(c.bank))) << "row " << c.row;
  }
}

TEST(GuiBankMap, PaddingOneLeavesNoBankAboveOneWord) {
  NEED_DISPLAY();
  auto s = open_session("transpose", "tiled", tiled(1), View::BankMap);
  ASSERT_TRUE(s && s->state().results.main.valid());
  // The same step as the conflict without padding: the column read of the tile.
  const std::size_t pos = s->state().results.interesting_pos(View::BankMap);
  const FrameDraw fd = show(*s, pos);
  ASSERT_TRUE(fd.bank.drawn) << fd.bank.note;
  EXPECT_EQ(s->state().results.main.events()[s->state().results.main.order[pos]].kind, EventKind::SharedLoad);
  EXPECT_EQ(fd.bank.hot_banks, 0);
  int used = 0;
  for (int b = 0; b < 32; ++b) {
    EXPECT_LE(fd.bank.bank_words[b], 1u) << "bank " << b;
    used += fd.bank.bank_words[b] == 1;
    EXPECT_TRUE(rect_has(s->pixels(), fd.bank.bank_rect[b], viz::heat_colour(fd.bank.bank_words[b])));
  }
  EXPECT_EQ(used, 32);
  EXPECT_EQ(fd.bank.grid_cols, 33u) << "the grid shows the padded row";
  std::set<unsigned> banks;
  for (const viz::GridCell& c : fd.bank.touched) {
    banks.insert(c.bank);
    EXPECT_TRUE(rect_has(s->pixels(), c.rect, viz::bank_colour(c.bank)));
  }
  EXPECT_EQ(banks.size(), 32u);
}

TEST(GuiSectorMap, NaiveTransposeStoreShows32Sectors) {
  NEED_DISPLAY();
  auto s = open_session("transpose", "naive", {{"n", 64}, {"tile", 32}, {"block_rows", 32}}, View::SectorMap);
  ASSERT_TRUE(s && s->state().results.main.valid());
  const std::size_t pos = s->state().results.interesting_pos(View::SectorMap);
  const FrameDraw fd = show(*s, pos);
  ASSERT_TRUE(fd.sector.drawn) << fd.sector.note;
  EXPECT_EQ(s->state().results.main.events()[s->state().results.main.order[pos]].kind, EventKind::GlobalStore);
  EXPECT_EQ(fd.sector.sectors_drawn, 32);
  EXPECT_EQ(fd.sector.lines_drawn, 32);
  EXPECT_EQ(fd.sector.access.ideal_sectors, 4u);
  int checked = 0;
  for (const viz::SectorCell& c : fd.sector.cells) {
    if (!c.touched) continue;
    EXPECT_EQ(c.lanes, 1);
    EXPECT_EQ(c.colour, viz::use_colour(4.0 / 32));
    if (checked++ < 4) { EXPECT_TRUE(rect_has(s->pixels(), c.rect, c.colour)); }
  }
  // The load of the same kernel is coalesced: 4 sectors.
  const FrameDraw ld = show(*s, 0);
  ASSERT_TRUE(ld.sector.drawn);
  EXPECT_EQ(s->state().results.main.events()[s->state().results.main.order[0]].kind, EventKind::GlobalLoad);
  EXPECT_EQ(ld.sector.sectors_drawn, 4);
}

// A bulk store: each lane's 256-byte row is 8 sectors drawn (256 for warp 0's 32 rows), and
// the note says what the copy engine writes: 288, its pieces cut at the shared rows' lines.
TEST(GuiSectorMap, BulkStoreShowsRowsAndTheEnginesSectors) {
  NEED_DISPLAY();
  auto s = open_session("transpose", "bulk", {{"n", 64}, {"tile", 64}}, View::SectorMap);
  ASSERT_TRUE(s && s->state().results.main.valid());
  const std::size_t pos = s->state().results.interesting_pos(View::SectorMap);
  const FrameDraw fd = show(*s, pos);
  ASSERT_TRUE(fd.sector.drawn) << fd.sector.note;
  EXPECT_EQ(s->state().results.main.events()[s->state().results.main.order[pos]].kind, EventKind::BulkStore);
  EXPECT_EQ(fd.sector.sectors_drawn, 256);
  EXPECT_EQ(fd.sector.access.ideal_sectors, 256u);
  EXPECT_NE(fd.sector.engine_note.find("writes 288 sectors for these 256"), std::string::npos)
      << fd.sector.engine_note;
  EXPECT_EQ(fd.sector.distinct_bytes, 32u * 256u);
  // Useful against what the engine writes, not the rows' own sectors (a review read "100.0 %
  // of the traffic is useful" right above the engine's 288).
  EXPECT_NE(fd.sector.use_note.find("bytes used 8192 of 9216 the engine writes: 88.9 %"), std::string::npos)
      << fd.sector.use_note;
}

TEST(GuiDivergence, ModuloBranchShowsAlternateLanesOff) {
  NEED_DISPLAY();
  auto s = open_session("divergence", "odd_even", {}, View::Divergence);
  ASSERT_TRUE(s && s->state().results.main.valid());
  const FrameDraw fd = show(*s, s->state().results.interesting_pos(View::Divergence));
  ASSERT_TRUE(fd.mask.drawn) << fd.mask.note;
  const viz::MaskRow* taken = nullptr;
  const viz::MaskRow* other = nullptr;
  for (const viz::MaskRow& r : fd.mask.rows) {
    if (r.side == 1) taken = &r;
    if (r.side == 2) other = &r;
  }
  ASSERT_TRUE(taken && other) << "the branch's two sides are drawn";
  EXPECT_EQ(taken->mask, 0x55555555u) << "threadIdx.x % 2 == 0: even lanes";
  EXPECT_EQ(other->mask, 0xAAAAAAAAu);
  const viz::ViewStyle st;
  const auto& px = s->pixels();
  for (int l = 0; l < 32; ++l) {
    const viz::Rect cell{taken->rect.x0 + l * fd.mask.cell_w, taken->rect.y0,
                         taken->rect.x0 + (l + 1) * fd.mask.cell_w, taken->rect.y1};
    const std::uint32_t want = l % 2 == 0 ? viz::ballot_true_colour(st) : viz::lane_off_colour(st);
    EXPECT_TRUE(rect_has(px, cell, want, 2)) << "lane " << l;
  }
  EXPECT_LT(fd.mask.divergent_rows + fd.mask.display_rows, 1000);
}

TEST(GuiWindow, AllPanelsEmulatorNoticeAndLessonSlot) {
  NEED_DISPLAY();
  auto s = open_session("transpose", "tiled", tiled(0), View::Window);
  ASSERT_TRUE(s);
  const FrameDraw fd = show(*s, s->state().results.interesting_pos(View::BankMap));
  EXPECT_TRUE(fd.emulated_notice) << "runs on the emulator say their times are modelled";
  EXPECT_TRUE(fd.lesson_drawn);
  for (const char* p : {"Kernel", "Stepper", "Source", "Divergence", "Bank map", "Sector map", "Numbers", "Lesson"})
    EXPECT_TRUE(fd.panels.count(p)) << p;
  EXPECT_TRUE(fd.bank.drawn);
  EXPECT_EQ(fd.bank.hot_banks, 1);
  EXPECT_TRUE(fd.source.drawn);
  EXPECT_FALSE(fd.source.current_rect.empty()) << "the current line is highlighted";
  EXPECT_TRUE(fd.stepper.drawn);
  EXPECT_NE(fd.stepper.label.find("32-way bank conflict"), std::string::npos) << fd.stepper.label;
  EXPECT_TRUE(fd.bars.drawn);
  EXPECT_GE(fd.bars.geom.bars, 2);
  // The peak is far above lesson-size bars: annotated above the plot, not scaled into it.
  EXPECT_GE(fd.bars.geom.refs + int(fd.bars.geom.off_scale.size()), 1) << "the peak is shown";
  for (const viz::ChartMark& m : fd.bars.geom.marks)
    EXPECT_EQ(m.source, sim::Source::Modelled) << "emulated bars at n=64 are modelled (hollow)";
  EXPECT_EQ(viz::y_axis_title(fd.bars.spec), "GB/s (modelled)");
}

// The clipping check itself: a frame drawn by hand with a line longer than its window, a
// button laid out past the edge and a long list in a window that scrolls. The first two
// are cut, the list is not (its panel scrolls to it), and text inside is not.
TEST(GuiClipping, TheCheckFindsCutTextAndLetsScrollingTextBe) {
  NEED_DISPLAY();
  auto s = open_session("transpose", "tiled", tiled(0), View::BankMap);
  ASSERT_TRUE(s);
  auto& win = s->window();
  win.new_frame();
  const ImGuiWindowFlags f = ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoMove;
  ImGui::SetNextWindowPos(ImVec2(10, 10));
  ImGui::SetNextWindowSize(ImVec2(200, 120));
  ImGui::Begin("Narrow", nullptr, f | ImGuiWindowFlags_NoScrollbar);
  ImGui::TextUnformatted("fits");
  ImGui::TextUnformatted("this line is much longer than two hundred pixels");
  ImGui::Dummy(ImVec2(10, 1));
  ImGui::SameLine(400);
  ImGui::Button("far away");
  ImGui::End();
  ImGui::SetNextWindowPos(ImVec2(300, 10));
  ImGui::SetNextWindowSize(ImVec2(200, 120));
  ImGui::Begin("Scrolls", nullptr, f | ImGuiWindowFlags_AlwaysVerticalScrollbar);
  for (int i = 0; i < 40; ++i) ImGui::Text("row %d", i);
  ImGui::End();
  win.render();
  FrameDraw fd;
  check_text(fd);
  win.present();
  EXPECT_GE(fd.texts_checked, 3);
  bool long_line = false, far = false;
  for (const CutText& c : fd.cut_texts) {
    EXPECT_EQ(c.panel, "Narrow") << c.text;
    long_line |= c.text.rfind("this line is", 0) == 0;
    far |= c.text.empty() && c.rect.x1 > c.clip.x1;
    EXPECT_NE(c.text, "fits");
  }
  EXPECT_TRUE(long_line) << "the long line is cut at the window's edge";
  EXPECT_TRUE(far) << "the button laid out past the edge, not drawn at all, is found too";
}

TEST(GuiMetrics, NcuNamesAndModelledTime) {
  NEED_DISPLAY();
  auto s = open_session("transpose", "tiled", tiled(0), View::Metrics);
  ASSERT_TRUE(s);
  const FrameDraw fd = show(*s, 0);
  ASSERT_TRUE(fd.metrics.drawn) << fd.metrics.note;
  EXPECT_EQ(fd.metrics.time_label.rfind("modelled by warpscope's model (", 0), 0u) << fd.metrics.time_label;
  EXPECT_EQ(fd.metrics.time_label, sim::long_label(s->state().results.main.run->timing.source));
  EXPECT_EQ(fd.metrics.ncu_rows, int(s->state().results.main.run->totals.ncu().size()));
  bool conflicts = false;
  for (const auto& [k, v] : fd.metrics.cells)
    if (k == "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum") conflicts = v != "0";
  EXPECT_TRUE(conflicts) << "pad=0 counts shared load conflicts";
}

TEST(GuiCompare, SidesStepInSync) {
  NEED_DISPLAY();
  GuiOptions o;
  auto s = open_session("transpose", "tiled", tiled(0), View::Compare, o);
  ASSERT_TRUE(s);
  s->state().set_compare(true);  // the default partner: the same variant, padding flipped
  EXPECT_EQ(s->state().compare_label(), "tiled pad=1");
  std::string err;
  ASSERT_TRUE(s->settle(120, err)) << err;
  ASSERT_TRUE(s->state().results.cmp.valid());
  const std::size_t pos = s->state().results.interesting_pos(View::Compare);
  const FrameDraw fd = show(*s, pos);
  EXPECT_EQ(s->state().results.compare_pos(), pos);
  ASSERT_TRUE(fd.bank.drawn && fd.bank_b.drawn);
  EXPECT_EQ(fd.bank.hot_banks, 1);
  EXPECT_EQ(fd.bank_b.hot_banks, 0);
  EXPECT_EQ(fd.bank.grid_cols, 32u);
  EXPECT_EQ(fd.bank_b.grid_cols, 33u) << "each side's grid follows its own padding";
  EXPECT_TRUE(fd.panels.count("A: this variant") && fd.panels.count("B: compared with"));
  // Both sides name their source; at n=64 both are modelled: a plain ratio.
  EXPECT_EQ(fd.compare_a_source.rfind("modelled", 0), 0u) << fd.compare_a_source;
  EXPECT_EQ(fd.compare_b_source.rfind("modelled", 0), 0u) << fd.compare_b_source;
  EXPECT_EQ(fd.compare_ratio.rfind("B / A: ", 0), 0u) << fd.compare_ratio;
  EXPECT_EQ(fd.compare_ratio.find("mixed"), std::string::npos) << fd.compare_ratio;
}

// At n=1024 the shipped recording holds tiled pad=0 but not pad=1 (README's demo): side A
// is recorded, side B modelled, and their ratio says so.
TEST(GuiCompare, SidesOfTwoSourcesAreMarkedMixed) {
  NEED_DISPLAY();
  auto s = open_session("transpose", "tiled", {{"n", 1024}, {"tile", 32}, {"block_rows", 8}, {"pad", 0}},
                        View::Compare);
  ASSERT_TRUE(s);
  s->state().set_compare(true);
  std::string err;
  ASSERT_TRUE(s->settle(300, err)) << err;
  ASSERT_TRUE(s->state().results.cmp.valid());
  const sim::Provenance a = s->state().results.main.run->timing.source, b = s->state().results.cmp.run->timing.source;
  if (a.same_source(b)) GTEST_SKIP() << "both sides from one source: " << sim::to_string(a);
  const FrameDraw fd = show(*s, s->state().results.compare_pos());
  EXPECT_EQ(fd.compare_a_source, sim::to_string(a));
  EXPECT_EQ(fd.compare_b_source, sim::to_string(b));
  EXPECT_NE(fd.compare_ratio.find("(mixed: " + sim::short_label(b) + " / " + sim::short_label(a) + ")"),
            std::string::npos)
      << fd.compare_ratio;
}

// The default window's bars at a recorded size: the recorded bars are called recorded
// (drawn translucent with an outline), the axis never says "GB/s (modelled)" over them.
TEST(GuiCharts, RecordedBarsAreCalledRecorded) {
  NEED_DISPLAY();
  auto s = open_session("transpose", "tiled", {{"n", 1024}, {"tile", 32}, {"block_rows", 8}, {"pad", 0}},
                        View::Window);
  ASSERT_TRUE(s);
  std::string err;
  ASSERT_TRUE(s->settle(300, err)) << err;
  const FrameDraw fd = show(*s, 0);
  ASSERT_TRUE(fd.bars.drawn);
  ASSERT_FALSE(fd.bars.spec.series.empty());
  int recorded = 0;
  for (const viz::ChartMark& m : fd.bars.geom.marks) {
    const sim::Provenance& p = fd.bars.spec.series[std::size_t(m.series)].source_at(std::size_t(m.index));
    EXPECT_EQ(m.source, p.source);
    recorded += p.is(sim::Source::Recorded);
  }
  if (recorded == 0) GTEST_SKIP() << "no recorded bar at n=1024";
  const std::string axis = viz::y_axis_title(fd.bars.spec);
  EXPECT_NE(axis.find("recorded"), std::string::npos) << axis;
  EXPECT_NE(axis, "GB/s (modelled)");
}

// Free play times at the family's timing size: the history plots that time, not the
// counting run's, so its points and the bars tell one story.
TEST(GuiCharts, HistoryTakesTheTimedRunsTime) {
  NEED_DISPLAY();
  // n left at its default: a size the student sets is timed as set.
  auto s = open_session("transpose", "tiled", {{"pad", 1}}, View::Window);
  ASSERT_TRUE(s);
  std::string err;
  ASSERT_TRUE(s->settle(300, err)) << err;
  ASSERT_TRUE(s->settle(300, err)) << err;  // the timed run lands after the counting run
  const AppState& st = s->state();
  const RunResult* t = st.timed_run();
  if (!t) GTEST_SKIP() << "no timed run at the family's timing size (no recording)";
  ASSERT_FALSE(st.charts.history.empty());
  const HistoryPoint& h = st.charts.history.back();
  EXPECT_DOUBLE_EQ(h.throughput, t->timing.throughput);
  EXPECT_TRUE(h.source.is(sim::Source::Recorded));
  EXPECT_NE(h.label.find("n=8192"), std::string::npos) << h.label;
  EXPECT_NE(st.results.main.run->timing.throughput, h.throughput) << "the counting run's time differs";
}

TEST(GuiStepper, KeyboardOnlyStepping) {
  NEED_DISPLAY();
  GuiOptions o;
  o.presenter = true;
  auto s = open_session("transpose", "tiled", tiled(0), View::Window, o);
  ASSERT_TRUE(s);
  AppState& st = s->state();
  st.results.stepper.seek(0);
  auto press = [&](int key) {
    ImGui::GetIO().KeysDown[key] = true;
    s->frame();
    ImGui::GetIO().KeysDown[key] = false;
    s->frame();
  };
  press(platform::Keys::Right);
  EXPECT_EQ(st.results.stepper.pos, 1u);
  press(platform::Keys::Left);
  EXPECT_EQ(st.results.stepper.pos, 0u);
  press(platform::Keys::letter('n'));
  const WarpEvent& e = st.results.main.events()[st.results.stepper.current()];
  EXPECT_TRUE(viz::is_conflict(e)) << "n jumps to the next conflict";
  const std::size_t at = st.results.stepper.pos;
  press(platform::Keys::letter('b'));
  press(platform::Keys::letter('p'));
  EXPECT_LE(st.results.stepper.pos, at + 0) << "p goes back to a conflict at or before";
  press(platform::Keys::Space);
  EXPECT_TRUE(st.results.stepper.playing);
  press(platform::Keys::Space);
  EXPECT_FALSE(st.results.stepper.playing);
  const FrameDraw fd = s->frame(true);
  EXPECT_TRUE(fd.shortcuts_shown) << "presenter mode lists its keys";
  EXPECT_TRUE(st.presenter_on);
  // High contrast: the panels' background is black.
  const auto& src = fd.panels.at("Source");
  EXPECT_EQ(s->pixels().at(int(src.x1) - 4, int(src.y1) - 4) & 0xFFFFFF00u, 0u);
}

// A projector: at 1280x720 and 1920x1080 the presenter's strip shows the kernel, its
// parameters and the throughput on one line inside the window, the keys on one more (k
// folds them away), [ and ] step the chosen parameter, and F12 says where it saved.
// A time from the shipped H100 recording is a measurement, but not of this run: the strip
// says "recorded", never "measured", on the emulator.
TEST(GuiPresenter, ARecordedTimeIsCalledRecorded) {
  NEED_DISPLAY();
  auto s = open_session("transpose", "tiled", {{"n", 1024}, {"tile", 32}, {"block_rows", 8}, {"pad", 0}},
                        View::Window);
  ASSERT_TRUE(s);
  AppState& st = s->state();
  st.presenter_on = true;
  st.font_dirty = true;
  s->frame();
  const FrameDraw fd = s->frame();
  if (st.results.main.valid() && !st.results.main.run->timing.source.is(sim::Source::Recorded))
    GTEST_SKIP() << "no recording of n=1024";
  EXPECT_NE(fd.status_strip.find("GB/s (recorded)"), std::string::npos) << fd.status_strip;
  EXPECT_EQ(fd.status_strip.find("(measured)"), std::string::npos) << fd.status_strip;
}

TEST(GuiPresenter, FitsProjectorsAndStepsParameters) {
  NEED_DISPLAY();
  for (auto [w, h] : {std::pair{1280, 720}, std::pair{1920, 1080}}) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    GuiOptions o;
    o.width = w;  // a window of the projector's size (presenter from the start would go
    o.height = h;  // full screen on the test display, whatever its size)
    auto s = open_session("transpose", "tiled", tiled(0), View::Window, o);
    ASSERT_TRUE(s);
    AppState& st = s->state();
    st.presenter_on = true;  // as F5 does
    st.font_dirty = true;
    st.export_dir = fs::temp_directory_path().string();
    s->frame();
    FrameDraw fd = s->frame();
    ASSERT_NEAR(ImGui::GetIO().DisplaySize.x, float(w), 1.f);
    EXPECT_NE(fd.status_strip.find("transpose/tiled"), std::string::npos) << fd.status_strip;
    EXPECT_NE(fd.status_strip.find("pad=0"), std::string::npos) << fd.status_strip;
    EXPECT_NE(fd.status_strip.find("GB/s (modelled)"), std::string::npos) << fd.status_strip;
    EXPECT_LE(fd.status_width, fd.strip_width) << "the status line is not cut: " << fd.status_strip;
    ASSERT_TRUE(fd.panels.count("Keys"));
    const viz::Rect keys = fd.panels.at("Keys");
    EXPECT_LE(keys.y1 - keys.y0, 0.16f * float(h)) << "the strip is two lines, not a quarter of the screen";
    for (const auto& [name, r] : fd.panels) {
      EXPECT_GE(r.x0, -1.f) << name;
      EXPECT_LE(r.x1, float(w) + 1) << name;
      EXPECT_LE(r.y1, float(h) + 1) << name;
    }
    // Lane numbers stay legible: at least every second lane numbered, at 13 px or more
    // (inside the cells when two digits fit there, else above them at the full size).
    ASSERT_TRUE(fd.bank.drawn || fd.sector.drawn) << "presenter mode shows a map";
    const viz::RowNumbers lanes = fd.bank.drawn ? fd.bank.lane_numbers : fd.sector.lane_numbers;
    EXPECT_GE(lanes.shown, 16);
    EXPECT_GE(lanes.px, 13.f);
    // Pick pad (n, tile, block_rows, pad in the catalogue's order) and step it.
    auto press = [&](int key) {
      ImGui::GetIO().KeysDown[key] = true;
      s->frame();
      ImGui::GetIO().KeysDown[key] = false;
      return s->frame();
    };
    const auto& ps = st.variant_info()->params;
    std::size_t pad = 0;
    while (pad < ps.size() && ps[pad].name != "pad") ++pad;
    ASSERT_LT(pad, ps.size());
    while (st.param_cursor % ps.size() != pad) press(platform::Keys::Period);
    fd = press(platform::Keys::RightBracket);
    EXPECT_EQ(st.completed_params().at("pad"), 1);
    EXPECT_NE(fd.status_strip.find("[pad=1]"), std::string::npos) << fd.status_strip;
    press(platform::Keys::LeftBracket);
    EXPECT_EQ(st.completed_params().at("pad"), 0);
    // k folds the keys line away, and the views get its height.
    fd = press(platform::Keys::letter('k'));
    EXPECT_TRUE(st.keys_hidden);
    EXPECT_LT(fd.panels.at("Keys").y1 - fd.panels.at("Keys").y0, keys.y1 - keys.y0);
    press(platform::Keys::letter('k'));
    // F12: a toast says where the PNG went.
    ImGui::GetIO().KeysDown[platform::Keys::F12] = true;
    s->frame();
    ImGui::GetIO().KeysDown[platform::Keys::F12] = false;
    s->frame();
    fd = s->frame();
    EXPECT_EQ(fd.toast.rfind("saved to ", 0), 0u) << fd.toast << " / last export: " << st.last_export << " at " << st.last_export_at << " now " << ImGui::GetTime();
    ASSERT_FALSE(fd.toast.empty());
    const std::string png = fd.toast.substr(9);
    EXPECT_TRUE(fs::exists(png)) << png;
    fs::remove(png);
  }
}

TEST(GuiInput, ImpossibleTileIsExplainedNotRun) {
  NEED_DISPLAY();
  auto s = open_session("transpose", "tiled", {{"n", 64}, {"tile", 32}, {"block_rows", 8}}, View::Window);
  ASSERT_TRUE(s);
  const std::uint64_t gen = s->state().results.main.gen;
  s->state().set_param("n", 100);
  const FrameDraw fd = s->frame();
  EXPECT_NE(fd.refusal_shown.find("n=100"), std::string::npos) << fd.refusal_shown;
  EXPECT_NE(fd.refusal_shown.find("tile=32"), std::string::npos) << fd.refusal_shown;
  EXPECT_FALSE(s->state().main_pending()) << "nothing is run";
  std::string err;
  ASSERT_TRUE(s->settle(60, err)) << err;
  EXPECT_EQ(s->state().results.main.gen, gen) << "the last good result stays";
  s->state().set_param("n", 96);
  EXPECT_TRUE(s->state().refusal().empty());
  ASSERT_TRUE(s->settle(60, err)) << err;
  EXPECT_NE(s->state().results.main.gen, gen);
}

TEST(GuiInput, MissingFontIsANoticeNotAFailure) {
  NEED_DISPLAY();
  GuiOptions o;
  o.font = "/nonexistent/font.ttf";
  auto s = open_session("transpose", "naive", {{"n", 64}}, View::Window, o);
  ASSERT_TRUE(s);
  const FrameDraw fd = s->frame();
  bool shown = false;
  for (const auto& n : fd.notices_shown) shown |= n.find("/nonexistent/font.ttf") != std::string::npos;
  EXPECT_TRUE(shown);
}

// Finding 3 of issue 10: a text file as the font aborted on an ImGui assertion and a
// truncated font crashed; both are a notice now, and the window draws in ImGui's font.
TEST(GuiInput, ATextOrTruncatedFontIsANoticeAndTheBuiltInFont) {
  NEED_DISPLAY();
  const std::string dir = temp_dir("fonts");
  const std::string text = dir + "/passwd", cut = dir + "/cut.ttf";
  std::ofstream(text) << "root:x:0:0:root:/root:/bin/bash\n";
  {
    std::ifstream in(paths::default_font(), std::ios::binary);
    std::string font((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(font.size(), 4096u);
    std::ofstream(cut, std::ios::binary) << font.substr(0, font.size() / 2);
  }
  for (const auto& [font, says] : std::vector<std::pair<std::string, std::string>>{
           {text, "is not a TrueType or OpenType font"}, {cut, "is truncated or damaged"}}) {
    SCOPED_TRACE(font);
    GuiOptions o;
    o.font = font;
    auto s = open_session("transpose", "naive", {{"n", 64}}, View::Window, o);
    ASSERT_TRUE(s);
    FrameDraw fd = s->frame();
    fd = s->frame();
    bool shown = false;
    for (const auto& n : fd.notices_shown)
      shown |= n.find("font " + font + " " + says) != std::string::npos &&
               n.find("built-in font") != std::string::npos;
    EXPECT_TRUE(shown);
  }
  fs::remove_all(dir);
}

TEST(GuiExport, WindowPngAndChartsNeverOverwrite) {
  NEED_DISPLAY();
  auto s = open_session("transpose", "tiled", tiled(1), View::Window);
  ASSERT_TRUE(s);
  const std::string dir = temp_dir("export");
  AppState& st = s->state();
  st.export_dir = dir;
  st.window_png_request = true;
  s->frame();
  ASSERT_FALSE(st.last_export_failed) << st.last_export;
  const std::string first = dir + "/window-transpose-tiled.png";
  ASSERT_TRUE(fs::exists(first)) << st.last_export;
  const auto size1 = fs::file_size(first);
  st.window_png_request = true;
  s->frame();
  EXPECT_TRUE(fs::exists(dir + "/window-transpose-tiled-1.png")) << st.last_export;
  EXPECT_EQ(fs::file_size(first), size1) << "the first file is untouched";
  // The PNG holds the window's size.
  std::ifstream f(first, std::ios::binary);
  unsigned char h[24];
  f.read(reinterpret_cast<char*>(h), 24);
  EXPECT_EQ((h[16] << 24 | h[17] << 16 | h[18] << 8 | h[19]), s->window().width());

  std::string err;
  const viz::ChartSpec c = st.bars_chart();
  for (const char* fmt : {"png", "svg", "csv"}) {
    const std::string a = export_chart(c, fmt, dir, "variants", err);
    const std::string b = export_chart(c, fmt, dir, "variants", err);
    ASSERT_FALSE(a.empty() || b.empty()) << err;
    EXPECT_NE(a, b);
  }
  st.export_dir = dir + "/missing/deeper";
  st.window_png_request = true;
  s->frame();
  EXPECT_TRUE(st.last_export_failed);
  EXPECT_NE(st.last_export.find("does not exist"), std::string::npos) << st.last_export;
  fs::remove_all(dir);
}

TEST(GuiScreenshot, WritesThePngOrSaysWhy) {
  NEED_DISPLAY();
  const std::string dir = temp_dir("shot");
  GuiOptions o;
  o.backend = "emu";
  o.family = "transpose";
  o.variant = "tiled";
  o.params = tiled(0);
  o.view = "bank-map";
  o.width = 900;
  o.height = 600;
  o.screenshot = dir + "/bank.png";
  EXPECT_EQ(run(o), 0);
  ASSERT_TRUE(fs::exists(o.screenshot));
  EXPECT_GT(fs::file_size(o.screenshot), 1000u);
  std::string msg;
  o.view = "nonsense";
  EXPECT_EQ(render_screenshot(o, msg), 2);  // bad input
  EXPECT_NE(msg.find("unknown view 'nonsense'"), std::string::npos) << msg;
  o.view = "bank-map";
  o.params["n"] = 100;
  EXPECT_EQ(render_screenshot(o, msg), 1);
  EXPECT_NE(msg.find("n=100"), std::string::npos) << msg;
  fs::remove_all(dir);
}

// The roofline (issue 25): every variant of the family a point named with its time's
// source, the selected one ringed, under ceilings that each say where their figure is from.
TEST(GuiRoofline, EveryVariantAPointUnderCeilingsThatNameTheirSources) {
  NEED_DISPLAY();
  auto s = open_session("matmul", "warptiled", {{"n", 4096}}, View::Roofline);
  ASSERT_TRUE(s);
  std::string err;
  ASSERT_TRUE(s->settle(300, err)) << err;
  const FrameDraw fd = show(*s, 0);
  const auto* d = fd.drawn_as<viz::RooflineDraw>(View::Roofline);
  ASSERT_TRUE(d) << "the panel stores what it drew under its row";
  ASSERT_TRUE(d->drawn);
  ASSERT_EQ(d->layout.ceilings.size(), 5u) << "DRAM, L2, shared, FP32, tensor";
  ASSERT_GE(d->geom.source_lines.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    const std::string& l = d->geom.source_lines[i];
    EXPECT_TRUE(l.find("H100") != std::string::npos || l.find("modelled") != std::string::npos) << l;
  }
  EXPECT_NE(d->geom.source_lines[4].find("tensor FP16 806 TFLOP/s: cuBLAS GemmEx"), std::string::npos)
      << d->geom.source_lines[4];
  const std::size_t ran = s->state().charts.bars.size();
  EXPECT_GE(ran, 5u);
  EXPECT_EQ(d->layout.marks.size(), ran) << "one point per variant";
  EXPECT_EQ(d->geom.selected_marks, 1);
  const std::string text = frame_text(fd);
  EXPECT_NE(text.find("warptiled ("), std::string::npos) << text;
  EXPECT_NE(text.find("FLOP per byte"), std::string::npos) << text;
  // Each point sits where its run puts it: FLOPs over the model's DRAM bytes, its GFLOP/s.
  for (const auto& m : d->layout.marks) {
    EXPECT_GE(m.cx, d->layout.plot_x0);
    EXPECT_LE(m.cx, d->layout.plot_x1);
    EXPECT_GE(m.cy, d->layout.plot_y0);
    EXPECT_LE(m.cy, d->layout.plot_y1);
  }
}

TEST(GuiRoofline, AFamilyWithoutFlopsSaysSoAndTheWindowHasTheTab) {
  NEED_DISPLAY();
  auto s = open_session("transpose", "tiled", tiled(0), View::Roofline);
  ASSERT_TRUE(s);
  std::string err;
  ASSERT_TRUE(s->settle(300, err)) << err;
  FrameDraw fd = show(*s, 0);
  const auto* d = fd.drawn_as<viz::RooflineDraw>(View::Roofline);
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->layout.marks.empty());
  EXPECT_NE(frame_text(fd).find("transpose counts no floating-point work"), std::string::npos) << frame_text(fd);
  s->state().single_view = View::Window;
  fd = show(*s, 0);
  EXPECT_TRUE(fd.panels.count("Numbers"));
  EXPECT_NE(frame_text(fd).find("Roofline"), std::string::npos) << "a tab of the Numbers panel";
}

// The fragments view (issue 25): the tensor family's mma by lane, every element in its
// lane's colour (the hovered lane is tested on the widget, tests/viz/test_views_fragments.cpp).
namespace {

// The first position of the warp's walk whose event the view shows as `kind`.
std::size_t first_of(const Loaded& l, viz::FragmentEvent kind) {
  for (std::size_t q = 0; q < l.order.size(); ++q) {
    const WarpEvent& e = l.events()[l.order[q]];
    const std::string_view text =
        e.line >= 1 && e.line <= l.source.lines.size() ? std::string_view(l.source.lines[e.line - 1]) : std::string_view();
    if (viz::fragment_event(e, text) == kind) return q;
  }
  return l.order.size();
}

}  // namespace

TEST(GuiFragments, TheTensorMmaByLaneAndTheHoveredLaneLitInEveryTile) {
  NEED_DISPLAY();
  auto s = open_session("tensor", "swizzled", {{"n", 128}}, View::Fragments);
  ASSERT_TRUE(s && s->state().results.main.valid());
  const Loaded& l = s->state().results.main;
  const std::size_t at = first_of(l, viz::FragmentEvent::Mma);
  ASSERT_LT(at, l.order.size()) << "warp 0 issues mma.sync";
  FrameDraw fd = show(*s, at);
  const auto* d = fd.drawn_as<viz::FragmentsDraw>(View::Fragments);
  ASSERT_TRUE(d && d->drawn);
  EXPECT_EQ(d->kind, viz::FragmentEvent::Mma);
  EXPECT_EQ(d->geom.cells, 512);
  EXPECT_NE(frame_text(fd).find("mma.sync.m16n8k16"), std::string::npos) << frame_text(fd);
  // Cells from the PTX ISA's figures, drawn in their lane's colour. Xvfb's pointer may rest
  // on the view: then its lane is lit and the others are dimmed (the widget's test moves it).
  const auto& px = s->pixels();
  const int lit = d->lit;
  EXPECT_EQ(d->geom.lit, lit < 0 ? 0 : 16);
  const struct { int tile, row, col; unsigned lane; } cells[] = {
      {0, 0, 0, 0}, {0, 15, 15, 31}, {0, 9, 5, 6}, {1, 9, 3, 12}, {2, 10, 7, 11}, {2, 5, 2, 21}};
  for (const auto& c : cells) {
    const viz::FragCell& cell = d->mma.tiles[std::size_t(c.tile)].at(c.row, c.col);
    EXPECT_EQ(cell.lane, c.lane);
    const bool on = lit < 0 || int(c.lane) == lit;
    EXPECT_EQ(rect_has(px, cell.rect, viz::lane_colour(c.lane), 1), on) << c.tile << " " << c.row << "," << c.col;
  }
  if (lit >= 0) EXPECT_NE(d->tooltip.find("lane " + std::to_string(lit) + " (group"), std::string::npos) << d->tooltip;
}

// ldmatrix: the rows' banks, and the wavefronts the view states are the emulator's, for
// the plain tile (a 4-way conflict in every phase) and the swizzled one (none).
TEST(GuiFragments, LdmatrixWavefrontsAreTheEmulatorsPlainAndSwizzled) {
  NEED_DISPLAY();
  for (const auto& [variant, wavefronts] : {std::pair<const char*, unsigned>{"ldmatrix", 16}, {"swizzled", 4}}) {
    auto s = open_session("tensor", variant, {{"n", 128}}, View::Fragments);
    ASSERT_TRUE(s && s->state().results.main.valid());
    const Loaded& l = s->state().results.main;
    const std::size_t at = first_of(l, viz::FragmentEvent::Ldmatrix);
    ASSERT_LT(at, l.order.size()) << variant;
    const WarpEvent& e = l.events()[l.order[at]];
    const FrameDraw fd = show(*s, at);
    const auto* d = fd.drawn_as<viz::FragmentsDraw>(View::Fragments);
    ASSERT_TRUE(d && d->drawn);
    ASSERT_EQ(d->kind, viz::FragmentEvent::Ldmatrix) << variant;
    EXPECT_EQ(d->ldm.access.wavefronts, wavefronts) << variant;
    EXPECT_EQ(d->ldm.access.conflicts, wavefronts - 4) << variant;
    unsigned sum = 0;
    for (const viz::LdmPhase& p : d->ldm.phases) sum += p.wavefronts;
    EXPECT_EQ(sum, wavefronts) << variant;
    // The emulator's whole-grid counters of this line: the same wavefronts per request.
    bool found = false;
    for (const sim::SiteTotals& st : l.run->launches.at(0).sites)
      if (st.line == e.line && st.kind == EventKind::SharedLoad && st.totals.shared_ld_requests > 0) {
        found = true;
        EXPECT_EQ(st.totals.shared_ld_wavefronts, wavefronts * st.totals.shared_ld_requests) << variant;
      }
    EXPECT_TRUE(found) << variant << ": line " << e.line;
    EXPECT_EQ(d->geom.cells, 128);
    if (d->lit < 0 || d->lit == 3) EXPECT_TRUE(rect_has(s->pixels(), d->ldm.rows[3].rects[0], viz::lane_colour(3), 1));
  }
}

// In the window the fragments take the bank map's place while the stepper is on an mma,
// and give it back on a shared access.
TEST(GuiFragments, TheWindowShowsThemInTheBankMapsPlaceOnAnMma) {
  NEED_DISPLAY();
  auto s = open_session("tensor", "mma_global", {{"n", 128}}, View::Window);
  ASSERT_TRUE(s && s->state().results.main.valid());
  const Loaded& l = s->state().results.main;
  const std::size_t at = first_of(l, viz::FragmentEvent::Mma);
  ASSERT_LT(at, l.order.size());
  FrameDraw fd = show(*s, at);
  EXPECT_TRUE(fd.panels.count("Fragments"));
  EXPECT_FALSE(fd.panels.count("Bank map"));
  const auto* d = fd.drawn_as<viz::FragmentsDraw>(View::Fragments);
  ASSERT_TRUE(d && d->drawn);
  EXPECT_EQ(d->kind, viz::FragmentEvent::Mma);
  EXPECT_TRUE(fd.cut_texts.empty()) << fd.cut_texts.size() << " cut";
  fd = show(*s, 0);  // a global load
  EXPECT_FALSE(fd.panels.count("Fragments"));
  EXPECT_TRUE(fd.panels.count("Bank map"));
}

TEST(GuiFragments, AKernelWithoutMmaSaysWhatToSelect) {
  NEED_DISPLAY();
  auto s = open_session("transpose", "tiled", tiled(0), View::Fragments);
  ASSERT_TRUE(s);
  const FrameDraw fd = show(*s, 0);
  const auto* d = fd.drawn_as<viz::FragmentsDraw>(View::Fragments);
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->drawn);
  EXPECT_NE(d->notice.find("no mma.sync or ldmatrix here. Select the tensor family"), std::string::npos) << d->notice;
  EXPECT_NE(frame_text(fd).find("Select the tensor family"), std::string::npos);
}

// Issue 22, item 6: with nothing named the window opens on the start page, which lists
// every lesson (level, minutes) and every puzzle in view at a projector's 1280x720 and
// leads to lesson 1; opening a lesson or a puzzle from it leaves it.
std::size_t md_files(const std::string& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    n += e.path().extension() == ".md" && e.path().filename() != "README.md";
  return n;
}

TEST(GuiStart, OpensOnTheStartPageWithEveryLessonAndPuzzleInView) {
  NEED_DISPLAY();
  GuiOptions o;
  o.width = 1280;
  o.height = 720;
  auto s = open_session("", "", {}, View::Window, o);
  ASSERT_TRUE(s);
  AppState& st = s->state();
  ASSERT_TRUE(st.start_page) << "nothing named: the start page";
  const FrameDraw fd = show(*s, 0);
  const auto* d = fd.drawn_as<StartDraw>(View::Start);
  ASSERT_TRUE(d && d->drawn);
  EXPECT_FALSE(fd.panels.count("Bank map")) << "no empty bank map on the first screen";
  EXPECT_EQ(d->first_lesson.rfind("Start with lesson 1: ", 0), 0u) << d->first_lesson;
  const std::string lessons_dir = paths::lessons_dir();
  ASSERT_FALSE(lessons_dir.empty());
  ASSERT_EQ(d->lessons.size(), md_files(lessons_dir));
  EXPECT_GE(d->lessons.size(), 12u);
  for (const StartDraw::Row& r : d->lessons) {
    EXPECT_FALSE(r.level.empty()) << r.title;
    EXPECT_GT(r.minutes, 0) << r.title;
    EXPECT_GE(r.rect.y0, d->lessons_clip.y0) << r.title;
    EXPECT_LE(r.rect.y1, d->lessons_clip.y1) << r.title << ": below the list's visible part at 1280x720";
  }
  EXPECT_GE(d->puzzles.size(), 10u);
  for (const StartDraw::Row& r : d->puzzles) EXPECT_LE(r.rect.y1, d->puzzles_clip.y1) << r.title;
  const std::string text = frame_text(fd);
  EXPECT_NE(text.find("Start with lesson 1"), std::string::npos) << text;
  // Its title's start (a long title wraps in its column; the rows' rects say it is in view).
  EXPECT_NE(text.find(d->lessons.back().title.substr(0, 20)), std::string::npos) << "the last lesson is drawn: " << text;
  EXPECT_NE(text.find("beginner"), std::string::npos) << text;
  for (const CutText& c : fd.cut_texts) EXPECT_NE(c.panel, "Start") << "cut: " << c.text;

  // What lesson 1's button does: the lesson opens in the player, the start page goes.
  const std::vector<LessonEntry> lessons = st.lesson->lessons();
  ASSERT_FALSE(lessons.empty());
  ASSERT_TRUE(st.open_lesson(lessons.front().path));
  EXPECT_FALSE(st.start_page);
  const FrameDraw lesson = show(*s, 0);
  EXPECT_TRUE(lesson.lesson_drawn);
  EXPECT_EQ(lesson.lesson.lesson_title, lessons.front().title);
  EXPECT_FALSE(lesson.drawn_as<StartDraw>(View::Start));
}

TEST(GuiStart, APuzzleOpensInTheEditorWithLinesOfCodeAt1280x720) {
  NEED_DISPLAY();
  GuiOptions o;
  o.width = 1280;
  o.height = 720;
  auto s = open_session("", "", {}, View::Window, o);
  ASSERT_TRUE(s);
  AppState& st = s->state();
  EXPECT_FALSE(st.open_puzzle("/nonexistent/puzzle.md")) << "a bad file stays on the start page";
  EXPECT_TRUE(st.start_page);
  EXPECT_FALSE(st.notices.empty());
  const fs::path puzzle = fs::path(WS_SOURCE_DIR) / "puzzles" / "03-pad-a-tile.md";
  ASSERT_TRUE(st.open_puzzle(puzzle.string()));
  EXPECT_FALSE(st.start_page);
  std::string err;
  ASSERT_TRUE(s->settle(300, err)) << err;
  const FrameDraw fd = show(*s, 0);
  ASSERT_TRUE(fd.editor.drawn);
  EXPECT_GT(fd.editor.lines_visible, 2) << "more than two lines of the kernel at 1280x720";
  st.start_page = true;  // the toolbar's "start"
  const FrameDraw back = show(*s, 0);
  EXPECT_TRUE(back.drawn_as<StartDraw>(View::Start));
}

// Issue 25: the occupancy sweep, from the recording: each block size's recorded time with
// its registers and the occupancy they give; a variant without a recorded sweep says which
// variants have one.
TEST(GuiOccupancy, TheRecordedBlockSweepWithRegistersAndOccupancy) {
  NEED_DISPLAY();
  const Recording* rec = default_recording();
  if (!rec) GTEST_SKIP() << "no shipped recording";
  auto s = open_session("transpose", "tiled", {{"n", 8192}, {"tile", 32}, {"block_rows", 8}, {"pad", 1}},
                        View::Occupancy);
  ASSERT_TRUE(s);
  std::string err;
  ASSERT_TRUE(s->settle(300, err)) << err;
  const FrameDraw fd = show(*s, 0);
  const auto* d = fd.drawn_as<viz::ChartDraw>(View::Occupancy);
  ASSERT_TRUE(d && d->drawn) << frame_text(fd);
  // One bar per recorded run of the variant at n=8192 pad=1 tile=32, whatever its block_rows.
  std::size_t runs = 0;
  for (const RecordedRun& r : rec->runs)
    if (r.family == "transpose" && r.variant == "tiled" && r.params.at("n") == 8192 && r.params.at("pad") == 1 &&
        !rec->is_stale(r))
      ++runs;
  ASSERT_GE(runs, 3u);
  ASSERT_EQ(d->spec.categories.size(), runs);
  ASSERT_EQ(d->spec.series.size(), 1u);
  EXPECT_EQ(d->geom.bars, int(runs));
  for (std::size_t i = 0; i < runs; ++i) {
    const std::string& c = d->spec.categories[i];
    EXPECT_NE(c.find(" threads, "), std::string::npos) << c;
    EXPECT_NE(c.find(" regs, occupancy "), std::string::npos) << c;
    // The bar is the recorded median of that block_rows, in microseconds.
    const long long rows = std::stoll(c.substr(c.find('=') + 1));
    const RecordedRun* r =
        rec->find("transpose", "tiled", {{"n", 8192}, {"tile", 32}, {"block_rows", rows}, {"pad", 1}});
    ASSERT_TRUE(r) << c;
    EXPECT_DOUBLE_EQ(d->spec.series[0].y[i], r->timing.median_ms * 1000) << c;
    EXPECT_EQ(d->spec.series[0].source_at(i).source, sim::Source::Recorded);
  }
  EXPECT_NE(viz::y_axis_title(d->spec).find("recorded"), std::string::npos);

  s->state().select("matmul", "warptiled");
  ASSERT_TRUE(s->settle(300, err)) << err;
  const FrameDraw none = show(*s, 0);
  EXPECT_FALSE(none.drawn_as<viz::ChartDraw>(View::Occupancy));
  const std::string text = frame_text(none);
  EXPECT_NE(text.find("holds no sweep of its block size"), std::string::npos) << text;
  EXPECT_NE(text.find("transpose/tiled"), std::string::npos) << text;
}

TEST(GuiFrameTime, AllPanelsWithKernelsRunningInTheBackground) {
  NEED_DISPLAY();
  auto s = open_session("transpose", "tiled", {{"n", 256}, {"tile", 32}, {"block_rows", 8}, {"pad", 0}}, View::Window);
  ASSERT_TRUE(s);
  AppState& st = s->state();
  st.results.stepper.seek(st.results.interesting_pos(View::BankMap));
  for (int i = 0; i < 20; ++i) s->frame();  // warm-up: fonts, tables, first layouts
  // First with the worker idle, for comparison.
  std::size_t skip = s->frame_ms().size();
  for (int i = 0; i < 150; ++i) {
    if (i % 20 == 0) st.results.stepper.forward();
    s->frame();
  }
  const FrameStats quiet =
      frame_stats(std::vector<double>(s->frame_ms().begin() + long(skip), s->frame_ms().end()));
  std::printf("frame time, all panels, worker idle, %dx%d: median %.2f ms, p99 %.2f ms (%d frames)\n",
              s->window().width(), s->window().height(), quiet.median_ms, quiet.p99_ms, quiet.frames);
  skip = s->frame_ms().size();
  int busy_frames = 0;
  const int frames = 300;
  for (int i = 0; i < frames; ++i) {
    // Keep the worker busy: a new run of every variant whenever the last one finished.
    if (!st.worker().running()) {
      st.worker().forget_results();  // else the cache answers at once and nothing runs
      st.request_bars();
      st.request_sweep();
    }
    if (i % 20 == 0) st.results.stepper.forward();
    s->frame();
    busy_frames += st.worker().running().has_value();
  }
  std::vector<double> ms(s->frame_ms().begin() + long(skip), s->frame_ms().end());
  const FrameStats fs = frame_stats(ms);
  std::printf("frame time, all panels, %d of %d frames with a run in the background, %dx%d: "
              "median %.2f ms, p99 %.2f ms, max %.2f ms\n",
              busy_frames, fs.frames, s->window().width(), s->window().height(), fs.median_ms, fs.p99_ms,
              fs.max_ms);
  double load[3] = {0, 0, 0};
  std::ifstream("/proc/loadavg") >> load[0] >> load[1] >> load[2];
  std::printf("machine: %u CPUs, load average %.2f\n", std::thread::hardware_concurrency(), load[0]);
  std::ofstream(std::string(WS_BINARY_DIR) + "/gui-frame-time.txt")
      << "window " << s->window().width() << "x" << s->window().height() << "\nrenderer "
      << s->window().gl_renderer() << "\ncpus " << std::thread::hardware_concurrency() << "\nload "
      << load[0] << "\nidle_median_ms " << quiet.median_ms << "\nidle_p99_ms " << quiet.p99_ms
      << "\nbusy_median_ms " << fs.median_ms << "\nbusy_p99_ms " << fs.p99_ms << "\nbusy_max_ms "
      << fs.max_ms << "\nframes " << fs.frames << "\nbusy_frames " << busy_frames << "\n";
  EXPECT_EQ(fs.frames, frames);
  EXPECT_GT(busy_frames, frames / 2) << "the frames were measured while kernels ran";
  EXPECT_LE(fs.median_ms, fs.p99_ms);
  // A loose ceiling: a regression to blocking on the worker would show as seconds.
  EXPECT_LT(fs.median_ms, 250.0);
}

TEST(GuiFrameStats, QuantilesOrdered) {
  const FrameStats f = frame_stats({5, 1, 3, 2, 4, 100});
  EXPECT_EQ(f.frames, 6);
  EXPECT_DOUBLE_EQ(f.median_ms, 3);
  EXPECT_DOUBLE_EQ(f.p99_ms, 100);
  EXPECT_DOUBLE_EQ(f.max_ms, 100);
  EXPECT_EQ(frame_stats({}).frames, 0);
}
