// The views drawn into a headless ImGui context with hand-built warp events: what each
// view draws (its draw description), without a window or GL.
#include <gtest/gtest.h>
#include <imgui.h>

#include <bit>
#include <cmath>
#include <set>

#include "tests/viz/headless.h"
#include "viz/bank_map.h"
#include "viz/chart_widget.h"
#include "viz/mask_strip.h"
#include "viz/metrics_table.h"
#include "viz/sector_map.h"
#include "viz/source_view.h"
#include "viz/stepper.h"

using namespace ws;
using namespace ws::viz;
using ws::test::Headless;

namespace {


// A warp reading column `col` of a rows x (32 + pad) float tile: lane l reads row l.
WarpEvent column_read(unsigned pad, unsigned col = 0, std::uint32_t base = 0) {
  WarpEvent e;
  e.kind = EventKind::SharedLoad;
  e.line = 50;
  e.array = 0x80;
  e.bytes = 4;
  e.mask = 0xFFFFFFFFu;
  for (unsigned l = 0; l < 32; ++l) e.offset[l] = base + (l * (32 + pad) + col) * 4;
  return e;
}

ArrayDesc tile(unsigned pad) {
  ArrayDesc a;
  a.id = 0x80;
  a.space = Space::Shared;
  a.name = "tile";
  a.elem_bytes = 4;
  a.count = 32 * (32 + pad);
  return a;
}

WarpEvent strided_store(unsigned n) {  // the naive transpose's store: lane l -> row l
  WarpEvent e;
  e.kind = EventKind::GlobalStore;
  e.line = 30;
  e.array = 1;
  e.bytes = 4;
  e.mask = 0xFFFFFFFFu;
  for (unsigned l = 0; l < 32; ++l) e.offset[l] = l * n * 4;
  return e;
}

WarpEvent row_load() {
  WarpEvent e = strided_store(0);
  e.kind = EventKind::GlobalLoad;
  for (unsigned l = 0; l < 32; ++l) e.offset[l] = l * 4;
  return e;
}

}  // namespace

TEST(Colours, BankHuesDistinctAndPeriodic) {
  std::set<std::uint32_t> seen;
  for (unsigned b = 0; b < 32; ++b) {
    seen.insert(bank_colour(b));
    EXPECT_EQ(bank_colour(b), bank_colour(b + 32));
  }
  EXPECT_EQ(seen.size(), 32u);
}

TEST(Colours, HeatWarmsWithDegree) {
  EXPECT_NE(heat_colour(0), heat_colour(1));
  const auto green = [](std::uint32_t c) { return (c >> 16) & 0xFF; };
  const auto red = [](std::uint32_t c) { return (c >> 24) & 0xFF; };
  EXPECT_GT(green(heat_colour(1)), red(heat_colour(1))) << "one word per bank reads green";
  for (unsigned w = 2; w < 32; ++w) EXPECT_GE(green(heat_colour(w)), green(heat_colour(w + 1)));
  EXPECT_GT(red(heat_colour(32)), 3 * green(heat_colour(32))) << "32-way reads red";
  EXPECT_EQ(heat_colour(40), heat_colour(32));
}

TEST(BankMap, ColumnReadWithoutPaddingIsOneHotBank) {
  Headless h;
  const WarpEvent e = column_read(0, 5);
  const ArrayDesc a = tile(0);
  BankMapDraw d;
  h.frame([&] { d = draw_bank_map({&e, &a, 32, {}, "column read", true}); });
  ASSERT_TRUE(d.drawn) << d.note;
  EXPECT_EQ(d.access.wavefronts, 32u);
  EXPECT_EQ(d.hot_banks, 1);
  EXPECT_EQ(d.bank_words[5], 32u);
  EXPECT_EQ(d.bank_fill[5], heat_colour(32));
  for (unsigned b = 0; b < 32; ++b)
    if (b != 5) { EXPECT_EQ(d.bank_fill[b], heat_colour(0)) << "bank " << b; }
  EXPECT_EQ(d.lines, 32);
  ASSERT_EQ(d.touched.size(), 32u);
  for (const GridCell& c : d.touched) {
    EXPECT_EQ(c.bank, 5u);
    EXPECT_EQ(c.col, 5u);
    EXPECT_EQ(c.row, unsigned(c.lane));
    EXPECT_EQ(c.colour, bank_colour(5)) << "a column of one bank is one colour";
  }
  EXPECT_EQ(d.grid_cols, 32u);
  EXPECT_EQ(d.grid_rows, 32u);
}

TEST(BankMap, PaddingSpreadsTheColumnOverAllBanks) {
  Headless h;
  const WarpEvent e = column_read(1, 0);
  const ArrayDesc a = tile(1);
  BankMapDraw d;
  h.frame([&] { d = draw_bank_map({&e, &a, 33, {}, "", true}); });
  ASSERT_TRUE(d.drawn);
  EXPECT_EQ(d.access.wavefronts, 1u);
  EXPECT_EQ(d.hot_banks, 0);
  for (unsigned b = 0; b < 32; ++b) {
    EXPECT_LE(d.bank_words[b], 1u);
    EXPECT_EQ(d.bank_fill[b], heat_colour(d.bank_words[b]));
  }
  std::set<unsigned> banks;
  for (const GridCell& c : d.touched) banks.insert(c.bank);
  EXPECT_EQ(banks.size(), 32u) << "the padded column is a diagonal through every bank";
  EXPECT_EQ(d.grid_cols, 33u);
}

TEST(BankMap, SharedBaseOffsetPlacesTheGrid) {
  // A second shared array starting at byte 4096: offsets are into the block's shared memory.
  Headless h;
  const WarpEvent e = column_read(0, 2, 4096);
  ArrayDesc a = tile(0);
  a.base_offset = 4096;
  BankMapDraw d;
  h.frame([&] { d = draw_bank_map({&e, &a, 32, {}, "", true}); });
  ASSERT_EQ(d.touched.size(), 32u);
  for (const GridCell& c : d.touched) EXPECT_EQ(c.col, 2u);
}

TEST(BankMap, OtherEventsGetANote) {
  Headless h;
  const WarpEvent e = strided_store(64);
  BankMapDraw d;
  h.frame([&] { d = draw_bank_map({&e, nullptr, 0, {}, "", true}); });
  EXPECT_FALSE(d.drawn);
  EXPECT_NE(d.note.find("not a shared-memory access"), std::string::npos) << d.note;
  h.frame([&] { d = draw_bank_map({nullptr, nullptr, 0, {}, "", true}); });
  EXPECT_FALSE(d.drawn);
  EXPECT_FALSE(d.note.empty());
}

TEST(SectorMap, StridedStoreTouchesThirtyTwoSectors) {
  Headless h;
  const WarpEvent e = strided_store(64);
  SectorMapDraw d;
  h.frame([&] { d = draw_sector_map({&e, nullptr, {}, ""}); });
  ASSERT_TRUE(d.drawn) << d.note;
  EXPECT_EQ(d.sectors_drawn, 32);
  EXPECT_EQ(d.lines_drawn, 32);
  EXPECT_EQ(d.idle_sectors_drawn, 32 * 3);
  EXPECT_GT(d.rows, 1);
  EXPECT_EQ(d.links, 0) << "over several rows, lane numbers replace the lines";
  EXPECT_EQ(d.access.ideal_sectors, 4u);
  EXPECT_EQ(d.access.bytes_moved, 32u * 32u);
  for (const SectorCell& c : d.cells)
    if (c.touched) { EXPECT_EQ(c.lanes, 1); }
}

// A load with lanes 64 bytes apart uses one sector of each pair; DRAM fetches the pair
// (measured on the H100, docs/CALIBRATION.md), and the map says what that costs. A
// coalesced load and a store say nothing of fetches.
TEST(SectorMap, ALoneSectorCostsAPairFromDram) {
  Headless h;
  WarpEvent e = strided_store(16);
  e.kind = EventKind::GlobalLoad;
  SectorMapDraw d;
  h.frame([&] { d = draw_sector_map({&e, nullptr, {}, ""}); });
  ASSERT_TRUE(d.drawn);
  EXPECT_EQ(d.access.bytes_moved, 32u * 32u);
  EXPECT_EQ(d.access.fetch_bytes, 32u * 64u);
  EXPECT_NE(d.fetch_note.find("32 fetches of 64 B = 2048 B"), std::string::npos) << d.fetch_note;
  e.kind = EventKind::GlobalStore;
  h.frame([&] { d = draw_sector_map({&e, nullptr, {}, ""}); });
  EXPECT_EQ(d.fetch_note, "");
  const WarpEvent row = row_load();
  h.frame([&] { d = draw_sector_map({&row, nullptr, {}, ""}); });
  EXPECT_EQ(d.access.fetch_bytes, d.access.bytes_moved);
  EXPECT_EQ(d.fetch_note, "");
}

TEST(SectorMap, ABroadcastIsNotMoreThanAllUseful) {
  // The naive product's row of A: every lane reads one word. 128 bytes asked for, 4 B
  // distinct, in one 32 B sector: it once read "200% of the traffic is useful".
  Headless h;
  WarpEvent e = row_load();
  for (int l = 0; l < 32; ++l) e.offset[l] = 256;
  SectorMapDraw d;
  h.frame([&] { d = draw_sector_map({&e, nullptr, {}, ""}); });
  ASSERT_TRUE(d.drawn);
  EXPECT_EQ(d.access.bytes_requested, 128u);
  EXPECT_EQ(d.distinct_bytes, 4u);
  EXPECT_EQ(d.use_note.rfind("bytes used 4 of 32 moved: 12.5 % of the traffic is useful; "
                             "32 lanes share 4 B (a broadcast", 0), 0u) << d.use_note;
  // Two half-warps on two words overlapping by nothing: 8 B; half-overlapping wide lanes.
  for (int l = 0; l < 32; ++l) e.offset[l] = l < 16 ? 0 : 4096;
  h.frame([&] { d = draw_sector_map({&e, nullptr, {}, ""}); });
  EXPECT_EQ(d.distinct_bytes, 8u);
  e.bytes = 8;
  for (int l = 0; l < 32; ++l) e.offset[l] = 4 * l;  // 8 B lanes 4 B apart: 132 B in all
  h.frame([&] { d = draw_sector_map({&e, nullptr, {}, ""}); });
  EXPECT_EQ(d.distinct_bytes, 132u);
  e = row_load();
  h.frame([&] { d = draw_sector_map({&e, nullptr, {}, ""}); });
  EXPECT_EQ(d.use_note, "bytes used 128 of 128 moved: 100.0 % of the traffic is useful");
}

TEST(SectorMap, CoalescedLoadTouchesFour) {
  Headless h;
  const WarpEvent e = row_load();
  SectorMapDraw d;
  h.frame([&] { d = draw_sector_map({&e, nullptr, {}, ""}); });
  ASSERT_TRUE(d.drawn);
  EXPECT_EQ(d.sectors_drawn, 4);
  EXPECT_EQ(d.lines_drawn, 1);
  EXPECT_EQ(d.idle_sectors_drawn, 0);
  EXPECT_EQ(d.rows, 1);
  EXPECT_EQ(d.links, 32);
  for (const SectorCell& c : d.cells) {
    EXPECT_EQ(c.lanes, 8);
    EXPECT_EQ(c.colour, use_colour(1.0));
  }
}

TEST(MaskStrip, ModuloBranchShowsAlternateLanes) {
  sim::MaskHistory hist;
  hist.masks = {0xFFFFFFFFu, 0xFFFFFFFFu, 0x55555555u, 0xAAAAAAAAu, 0xFFFFFFFFu};
  hist.kinds = {EventKind::GlobalLoad, EventKind::Branch, EventKind::GlobalStore,
                EventKind::GlobalStore, EventKind::Barrier};
  hist.lines = {10, 11, 12, 14, 16};
  hist.ballots = {0, 0x55555555u, 0, 0, 0};
  Headless h;
  MaskStripDraw d;
  h.frame([&] { d = draw_mask_strip({&hist, 2, true, 400}); });
  ASSERT_TRUE(d.drawn);
  EXPECT_EQ(d.rows_total, 5);
  EXPECT_EQ(d.display_rows, 7) << "the divergent branch gets its two sides";
  ASSERT_EQ(d.rows.size(), 7u);
  EXPECT_EQ(d.rows[1].kind, EventKind::Branch);
  EXPECT_EQ(d.rows[2].side, 1);
  EXPECT_EQ(d.rows[2].mask, 0x55555555u) << "taken side: even lanes";
  EXPECT_EQ(d.rows[3].side, 2);
  EXPECT_EQ(d.rows[3].mask, 0xAAAAAAAAu) << "other side: odd lanes";
  EXPECT_EQ(d.rows[4].index, 2);
  EXPECT_EQ(d.rows[4].mask, 0x55555555u);
  EXPECT_EQ(d.cells_on, 32 + 32 + 16 + 16 + 16 + 16 + 32);
  EXPECT_EQ(d.cells_on + d.cells_off, 32 * 7);
  EXPECT_DOUBLE_EQ(d.simd_efficiency, hist.simd_efficiency());
  EXPECT_EQ(d.divergent_rows, 2);
  const ViewStyle s;
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(mask_cell_colour(hist.masks[2], 0, EventKind::GlobalStore, l, s),
              l % 2 == 0 ? lane_on_colour(s) : lane_off_colour(s));
    EXPECT_EQ(mask_cell_colour(hist.masks[1], hist.ballots[1], EventKind::Branch, l, s),
              l % 2 == 0 ? ballot_true_colour(s) : ballot_false_colour(s));
  }
}

TEST(Stepper, WarpEventsAndNavigation) {
  std::vector<WarpEvent> ev;
  auto add = [&](std::uint32_t block, std::uint16_t warp, EventKind k) {
    WarpEvent e = row_load();
    e.block = block;
    e.warp = warp;
    e.kind = k;
    ev.push_back(e);
  };
  add(0, 0, EventKind::GlobalLoad);   // 0
  add(0, 1, EventKind::GlobalLoad);   // 1 (other warp)
  add(0, 0, EventKind::SharedStore);  // 2
  add(0, 0, EventKind::Barrier);      // 3
  ev.push_back(column_read(0));       // 4: block 0 warp 0, 32-way conflict
  add(1, 0, EventKind::GlobalLoad);   // 5 (other block)
  ev.push_back(strided_store(64));    // 6: extra sectors
  const auto order = warp_events(ev, 0, 0);
  ASSERT_EQ(order, (std::vector<std::size_t>{0, 2, 3, 4, 6}));

  StepperState s;
  s.order = order;
  EXPECT_TRUE(s.next_barrier(ev));
  EXPECT_EQ(s.current(), 3u);
  EXPECT_FALSE(s.next_barrier(ev));
  EXPECT_EQ(s.current(), 3u) << "no later barrier: stays";
  EXPECT_TRUE(s.next_conflict(ev));
  EXPECT_EQ(s.current(), 4u);
  EXPECT_TRUE(s.next_conflict(ev));
  EXPECT_EQ(s.current(), 6u) << "a store over 32 sectors counts as a conflict";
  EXPECT_TRUE(s.prev_conflict(ev));
  EXPECT_EQ(s.current(), 4u);
  EXPECT_FALSE(s.seek(100) && s.pos != 4);
  EXPECT_EQ(s.pos, 4u) << "seek clamps to the last event";
  s.apply(StepAction::First, ev);
  EXPECT_EQ(s.pos, 0u);
  s.apply(StepAction::Play, ev);
  EXPECT_TRUE(s.playing);
  s.steps_per_second = 2;
  EXPECT_TRUE(s.tick(1.0));
  EXPECT_EQ(s.pos, 2u);
  s.tick(10.0);
  EXPECT_EQ(s.pos, 4u);
  EXPECT_FALSE(s.playing) << "play stops at the end";
  s.apply(StepAction::Back, ev);
  EXPECT_EQ(s.pos, 3u);
  EXPECT_EQ(to_string(StepAction::NextConflict), "next conflict");
}

TEST(Stepper, DescribesEventsWithTheModel) {
  EXPECT_NE(describe_event(column_read(0)).find("32-way bank conflict"), std::string::npos);
  EXPECT_EQ(describe_event(column_read(1)).find("conflict"), std::string::npos);
  EXPECT_NE(describe_event(strided_store(64)).find("32 sectors (ideal 4)"), std::string::npos);
}

TEST(SourceView, LoadsHighlightsAndExplainsMissingFiles) {
  SourceFile f = load_source("kernels/families/transpose.cuh", {"/nonexistent", WS_SOURCE_DIR});
  ASSERT_TRUE(f.error.empty()) << f.error;
  EXPECT_EQ(f.path, std::string(WS_SOURCE_DIR) + "/kernels/families/transpose.cuh");
  const int line = find_struct_line(f, "TransposeTiled");
  ASSERT_GT(line, 0);
  EXPECT_NE(f.lines[std::size_t(line - 1)].find("struct TransposeTiled"), std::string::npos);
  EXPECT_EQ(find_struct_line(f, "NoSuchKernel"), 0);
  Headless h;
  SourceViewDraw d;
  for (int i = 0; i < 2; ++i)  // the scroll set in frame 1 applies in frame 2
    h.frame([&] {
      viz::SourceViewInput in;
      in.file = &f;
      in.current_line = line + 3;
      in.notes = {{line + 3, "32 sectors"}};
      in.marks = {{line + 3, heat_colour(32)}};
      in.height = 600;
      d = draw_source_view(in);
    });
  ASSERT_TRUE(d.drawn);
  EXPECT_FALSE(d.current_rect.empty());
  EXPECT_GT(d.lines_drawn, 10);
  EXPECT_LE(d.first_line, line + 3);
  EXPECT_EQ(d.marks_drawn, 1);

  SourceFile missing = load_source("kernels/nope.cuh", {WS_SOURCE_DIR});
  EXPECT_NE(missing.error.find("kernels/nope.cuh"), std::string::npos);
  h.frame([&] {
    viz::SourceViewInput in;
    in.file = &missing;
    in.current_line = 3;
    d = draw_source_view(in);
  });
  EXPECT_FALSE(d.drawn);
  EXPECT_EQ(d.note, missing.error);
}

TEST(MetricsTable, NcuNamesPlainWordsAndModelledTime) {
  sim::Totals t;
  t.add(strided_store(64));
  t.add(row_load());
  t.add(column_read(0));
  MetricsInput in;
  in.totals = &t;
  in.ran = true;
  in.verified = true;
  in.median_ms = 0.25;
  in.throughput = 812;
  in.unit = "GB/s";
  in.peak = 3352;
  in.source = ws::sim::Provenance::modelled("dram");
  in.copy_gbps = 2500;
  in.copy_source = ws::sim::Provenance::recorded("NVIDIA H100 80GB HBM3", "2026-11-23");
  Headless h;
  MetricsDraw d;
  h.frame([&] { d = draw_metrics_table(in); });
  ASSERT_TRUE(d.drawn);
  EXPECT_EQ(d.time_label, "modelled by warpscope's model (dram-bound)");
  EXPECT_EQ(d.ncu_rows, int(t.ncu().size()));
  EXPECT_EQ(d.plain_rows, int(t.plain().size()));
  bool has_st_sectors = false, has_modelled = false;
  for (auto& [k, v] : d.cells) {
    if (k == "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum") {
      has_st_sectors = true;
      EXPECT_EQ(v, "32");
    }
    has_modelled |= v.find("(modelled by warpscope's model") != std::string::npos;
    // A modelled time against a recorded copy: a share across two sources, marked.
    if (k == "of device copy bandwidth")
      EXPECT_NE(v.find("(mixed: modelled / recorded)"), std::string::npos) << v;
    // The peak is the data sheet's.
    if (k == "of theoretical peak") {
      EXPECT_NE(v.find("(spec sheet)"), std::string::npos) << v;
      EXPECT_EQ(v.find("modelled"), std::string::npos) << v;
    }
  }
  EXPECT_TRUE(has_st_sectors);
  EXPECT_TRUE(has_modelled);
  EXPECT_FALSE(d.wrong_shown);
  in.verified = false;
  in.verify_message = "out[1][0] = 0";
  h.frame([&] { d = draw_metrics_table(in); });
  EXPECT_TRUE(d.wrong_shown);
  in.error = "tile=32 must divide n=100";
  h.frame([&] { d = draw_metrics_table(in); });
  EXPECT_FALSE(d.drawn);
  EXPECT_EQ(d.note, in.error);
}

// Counts this machine did not count say who did; counts a recording lacks are not drawn
// as zeros.
TEST(MetricsTable, RecordedCountsSayWhoCountedThem) {
  sim::Totals t;
  t.add(row_load());
  MetricsInput in;
  in.totals = &t;
  in.ran = true;
  in.verified = true;
  in.source = sim::Provenance::recorded("NVIDIA H100 80GB HBM3", "2026-11-25");
  in.median_ms = 0.25;
  Headless h;
  MetricsDraw d;
  h.frame([&] { d = draw_metrics_table(in); });
  EXPECT_EQ(d.counts_line, "");  // counted by this run: nothing to add
  in.counts_source = "model counts recorded on NVIDIA H100 80GB HBM3, 2026-11-25";
  h.frame([&] { d = draw_metrics_table(in); });
  EXPECT_EQ(d.counts_line, "counts: " + in.counts_source);
  EXPECT_EQ(d.ncu_rows, int(t.ncu().size()));
  sim::Totals none;
  in.totals = &none;
  in.counts_source = "counts not recorded: old.json predates them";
  in.counts_missing = true;
  h.frame([&] { d = draw_metrics_table(in); });
  EXPECT_EQ(d.counts_line, in.counts_source);
  EXPECT_EQ(d.ncu_rows, 0);
  EXPECT_EQ(d.plain_rows, 0);
  EXPECT_EQ(d.time_label, sim::long_label(in.source));  // the time is still shown
}

TEST(ChartWidget, BeginPlotEndBuildsTheSpecAndPaintsIt) {
  Headless h;
  ChartDraw d;
  const double xs[] = {0, 1, 2}, ys[] = {472, 1582, 2720};
  const std::vector<bool> wrong = {false, true, false};
  const std::vector<ws::sim::Provenance> modelled(3, ws::sim::Provenance::modelled());
  h.frame([&] {
    if (BeginChart("bars", "Variants", "variant", "GB/s", ImVec2(600, 300))) {
      ChartCategories({"naive", "tiled", "padded"});
      PlotBars("throughput", xs, ys, 3, &wrong, &modelled);
      PlotRefLine("peak", 3352);
      d = EndChart();
    }
  });
  ASSERT_TRUE(d.drawn);
  ASSERT_EQ(d.spec.series.size(), 1u);
  EXPECT_EQ(d.spec.series[0].kind, SeriesKind::Bars);
  EXPECT_EQ(d.spec.refs.size(), 1u);
  EXPECT_EQ(d.geom.bars, 2);
  EXPECT_EQ(d.geom.wrong, 1);
  EXPECT_EQ(d.geom.refs, 1);
  EXPECT_NEAR(d.rect.w(), 600, 0.5);
  EXPECT_GE(d.geom.plot_x0, d.rect.x0);
  EXPECT_LE(d.geom.plot_x1, d.rect.x1);
}

TEST(MetricsTable, HardwareColumnsBesideTheModel) {
  sim::Totals t;
  t.add(column_read(0));
  MetricsInput in;
  in.totals = &t;
  in.ran = true;
  in.verified = true;
  bool collect = true;
  in.collect_hardware = &collect;
  Headless h;
  MetricsDraw d;
  // Asked for, but none: the model stays, and one line says why.
  in.hardware_note = "no hardware counters: the run was on the emulator, there is no usable GPU";
  h.frame([&] { d = draw_metrics_table(in); });
  EXPECT_TRUE(d.hardware_note_shown);
  EXPECT_EQ(d.hardware_rows, 0);
  EXPECT_EQ(d.ncu_rows, int(t.ncu().size()));
  // With counters: model | hardware | difference for each metric.
  const double waves = t.ncu().at("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum");
  HardwareRow eq;
  eq.metric = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
  eq.modelled = true;
  eq.model = eq.hardware = eq.hw_min = eq.hw_max = waves;
  HardwareRow noisy;
  noisy.metric = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
  noisy.modelled = true;
  noisy.model = 0;
  noisy.hardware = 5;
  noisy.hw_min = 3;
  noisy.hw_max = 9;
  noisy.diff = 5;
  noisy.colour = DiffColour::Noise;
  noisy.summary = "arbitration with other warps; varies run to run; 3 runs: 3..9";
  noisy.explain = "other warps";
  HardwareRow dram;
  dram.metric = "dram__bytes_read.sum";
  dram.hardware = 4096;
  dram.colour = DiffColour::HardwareOnly;
  in.hardware = {eq, noisy, dram};
  in.hardware_note.clear();
  h.frame([&] { d = draw_metrics_table(in); });
  EXPECT_FALSE(d.hardware_note_shown);
  EXPECT_EQ(d.hardware_rows, 3);
  EXPECT_EQ(d.differing_rows, 1);
  EXPECT_EQ(d.ncu_rows, int(t.ncu().size()));
  std::map<std::string, std::string> cells(d.cells.begin(), d.cells.end());
  EXPECT_EQ(cells.at(eq.metric), format_value(waves) + " | " + format_value(waves) + " | 0");
  EXPECT_EQ(cells.at(noisy.metric), "0 | 5 ~ | +5");
  EXPECT_EQ(cells.at("dram__bytes_read.sum"), "- | 4,096 | hardware only");
}

TEST(SourceView, UnfoldsSassAndMarksLinesThatDiffer) {
  SourceFile f;
  for (int i = 0; i < 20; ++i) f.lines.push_back("line " + std::to_string(i + 1));
  Headless h;
  SourceViewDraw d;
  viz::SourceViewInput in;
  in.file = &f;
  in.height = 600;
  in.sass[5] = {{"0010  LDS.128 R4, [R2]", SassMem::Shared, true, false},
                {"0020  IMAD R1, R2, R3, R4", SassMem::None, false, false},
                {"0030  @P0 STG.E [R2.64], R4", SassMem::Global, false, true}};
  in.sass_diffs[5] = "LDS.128 moves 16 bytes per lane where the source's shared load is 4";
  h.frame([&] { d = draw_source_view(in); });
  EXPECT_EQ(d.sass_rows_drawn, 0) << "folded by default";
  EXPECT_EQ(d.diff_marks_drawn, 1);
  in.unfold_all = true;
  h.frame([&] { d = draw_source_view(in); });
  EXPECT_EQ(d.sass_rows_drawn, 2) << "memory instructions only";
  in.memory_only = false;
  h.frame([&] { d = draw_source_view(in); });
  EXPECT_EQ(d.sass_rows_drawn, 3);
  EXPECT_EQ(d.lines_drawn, 20);
}

TEST(Baseline, RowsHoldBothValuesTheirDifferenceAndRatio) {
  sim::Totals a, b;
  a.global_ld_sectors = 100;
  b.global_ld_sectors = 400;
  b.shared_ld_wavefronts = 8;  // zero on A: no ratio
  const auto rows = viz::baseline_rows(a, b);
  EXPECT_EQ(rows.size(), a.ncu().size());
  int seen = 0;
  for (const auto& r : rows) {
    EXPECT_DOUBLE_EQ(r.diff, r.b - r.a) << r.metric;
    if (r.metric == "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") {
      EXPECT_DOUBLE_EQ(r.a, 100);
      EXPECT_DOUBLE_EQ(r.b, 400);
      EXPECT_DOUBLE_EQ(r.ratio, 4);
      ++seen;
    }
    if (r.metric == "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum") {
      EXPECT_DOUBLE_EQ(r.b, 8);
      EXPECT_TRUE(std::isnan(r.ratio));
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2);
}
