// The app's state on the UI thread.
//
// Index (search for "[SECTION] <name>"):
//   Construction, notices, the backend
//   Selection: variant, parameters, sizes, block, warp, launch
//   Compare mode
//   Requests to the worker: run, bars, peers, sweep
//   Installing what came back, and what the views derive
//   Charts: peak, export metadata, context
//   Student runs and the lesson host
#include "app/gui/app_state.h"

#include "app/paths.h"
#include "kernels/backends/run_meta.h"
#include "sim/event_at.h"
#include "sim/provenance.h"
#include "viz/view_common.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <set>

namespace ws::gui {

namespace {

constexpr std::size_t kHistoryMax = 60;

std::string params_text(const Params& p) { return ws::to_string(p); }

}  // namespace


std::vector<std::string> source_roots() { return paths::data_roots(); }

// [SECTION] Construction, notices, the backend

namespace {

// A family's timing sizes (FamilyInfo::timing) less the parameters already given: the
// default view times where the clock sees the family's point (beyond L2), not its
// counting size (where a matmul at n=128 ranks naive fastest).
Params family_timing(const std::string& family, const Params& given) {
  Params t;
  if (const FamilyInfo* f = find_family(family))
    for (const auto& [k, v] : f->timing)
      if (!given.count(k)) t[k] = v;
  return t;
}
}  // namespace

AppState::AppState(const GuiOptions& opt, Worker& worker) : opt_(opt), worker_(worker) {
  presenter_on = opt.presenter;
  collect_hardware = opt.hardware || !opt.hardware_from.empty();
  sass_unfold_all = opt.sass;
  const auto& cat = catalogue();
  if (!opt.family.empty() || !opt.variant.empty()) {
    const VariantInfo* v = nullptr;
    if (!opt.variant.empty()) v = find_variant(opt.family, opt.variant);
    if (!v)  // a family alone opens its first variant
      for (const auto& c : cat)
        if (c.family == opt.family && opt.variant.empty()) {
          v = &c;
          break;
        }
    if (v) {
      selection_.sel.family = v->family;
      selection_.sel.variant = v->name;
    } else {
      add_notice("unknown kernel " + opt.family + (opt.variant.empty() ? "" : "/" + opt.variant) +
                     ": showing the first in the catalogue",
                 true);
    }
  }
  if (selection_.sel.family.empty() && !cat.empty()) {
    selection_.sel.family = cat.front().family;
    selection_.sel.variant = cat.front().name;
  }
  selection_.sel.params = opt.params;
  selection_.timing = family_timing(selection_.sel.family, opt.params);
  lesson = make_lesson_panel();
  if (!opt.lesson.empty()) {
    std::string err;
    if (!lesson->open(opt.lesson, err)) add_notice(err, true);
    else if (opt.step > 0 && !lesson->go_step(std::size_t(opt.step - 1)))
      add_notice("the lesson has no step " + std::to_string(opt.step), true);
  }
  if (!opt.puzzle.empty()) {
    editor = std::make_unique<EditorPanel>(opt.puzzle, opt.edit);
    for (const auto& e : editor->puzzle_errors()) add_notice(e.text(), true);
    if (editor->puzzle_errors().empty())  // the job's reference until the first check
      open_lab(editor->puzzle().family, editor->puzzle().variant, editor->puzzle().params, {});
  }
  // Nothing named: the window opens on the start page (lesson 1, the lessons, the puzzles).
  start_page = opt.family.empty() && opt.variant.empty() && opt.params.empty() && opt.lesson.empty() &&
               opt.puzzle.empty();
  default_sweep_params();
  request_run();
}

bool AppState::open_lesson(const std::string& path) {
  std::string err;
  if (!lesson || !lesson->open(path, err)) {
    add_notice(err.empty() ? "cannot open " + path : err, true);
    return false;
  }
  panels[View::Lesson] = true;
  start_page = false;
  return true;
}

bool AppState::open_puzzle(const std::string& path) {
  auto e = std::make_unique<EditorPanel>(path, "");
  if (!e->puzzle_errors().empty()) {
    for (const auto& err : e->puzzle_errors()) add_notice(err.text(), true);
    return false;
  }
  editor = std::move(e);
  user_pinned_ = false;
  open_lab(editor->puzzle().family, editor->puzzle().variant, editor->puzzle().params, {});
  start_page = false;
  return true;
}

void AppState::add_notice(const std::string& text, bool error) {
  for (const Notice& n : notices)
    if (n.text == text) return;
  notices.push_back({text, error});
  if (notices.size() > 8) notices.erase(notices.begin());
}

const VariantInfo* AppState::variant_info() const { return find_variant(selection_.sel.family, selection_.sel.variant); }

DeviceLimits AppState::limits() const {
  return worker_.ready() ? worker_.device().limits : DeviceLimits{};
}

bool AppState::emulated() const { return worker_.ready() && worker_.backend_kind() == BackendKind::Emu; }

std::string AppState::backend_line() const {
  if (!worker_.ready()) return "starting the backend...";
  const DeviceInfo d = worker_.device();
  if (worker_.backend_kind() == BackendKind::Emu) return "SIMT emulator (no GPU)";
  return d.name + (d.driver.empty() ? "" : ", driver " + d.driver);
}

// [SECTION] Selection: variant, parameters, sizes, block, warp, launch
void AppState::select(const std::string& family, const std::string& variant) {
  user_pinned_ = false;
  results.main.user_source.clear();
  const VariantInfo* v = find_variant(family, variant);
  if (!v) {
    add_notice("unknown kernel " + family + "/" + variant, true);
    return;
  }
  const bool same_family = family == selection_.sel.family;
  selection_.sel.family = family;
  selection_.sel.variant = variant;
  // A sweep of another variant is not this one's: its lines would be relabelled.
  if (charts.sweep_for != family + "/" + variant) {
    charts.sweep.clear();
    charts.sweep_for.clear();
  }
  // Keep the values the new variant also has, so switching naive -> tiled keeps n.
  Params kept;
  for (const ParamSpec& ps : v->params)
    if (auto it = selection_.sel.params.find(ps.name); it != selection_.sel.params.end()) kept[ps.name] = it->second;
  selection_.sel.params = kept;
  selection_.sel.launch = 0;
  if (!same_family) {
    selection_.sel.block = 0;
    selection_.sel.warp = 0;
    selection_.timing = family_timing(family, selection_.sel.params);
  }
  default_sweep_params();
  request_run();
}

void AppState::set_param(const std::string& name, long long value) {
  user_pinned_ = false;
  results.main.user_source.clear();
  selection_.sel.params[name] = value;
  selection_.timing.erase(name);  // a size the student sets is timed as set
  request_run();
}

void AppState::set_params(const Params& p) {
  for (const auto& [k, v] : p) {
    selection_.sel.params[k] = v;
    selection_.timing.erase(k);
  }
  request_run();
}

Params AppState::timed_params() const {
  const VariantInfo* v = variant_info();
  if (!v || selection_.timing.empty() || !selection_.refusal.empty()) return selection_.completed;
  Params given = selection_.completed, full;
  for (const auto& [k, val] : selection_.timing)
    if (given.count(k)) given[k] = val;
  if (!validate(*v, given, limits(), full).empty()) return selection_.completed;
  return full;
}

const RunResult* AppState::timed_run() const {
  // The student's kernel on screen: the bars are the catalogue's, not a time of it.
  if (user_pinned_) return nullptr;
  if (charts.bars_at.empty() || charts.bars_at == selection_.completed || !results.main.valid()) return nullptr;
  if (charts.bars_family != selection_.sel.family) return nullptr;
  for (const BarPoint& b : charts.bars)
    if (b.variant == selection_.sel.variant && b.skipped.empty() && b.result.error.empty() &&
        b.result.params == timed_params())
      return &b.result;
  return nullptr;
}

std::string AppState::sizes_line() const {
  const RunResult* t = timed_run();
  if (!t) return "";
  // Only the parameters that differ: "counts at n=1024 · times at n=8192".
  Params c, m;
  for (const auto& [k, v] : t->params)
    if (auto it = selection_.completed.find(k); it == selection_.completed.end() || it->second != v) {
      m[k] = v;
      if (it != selection_.completed.end()) c[k] = it->second;
    }
  const Timing& tm = t->timing;
  const std::string src = sim::long_label(tm.source);
  return "counts at " + ws::to_string(c) + " \xc2\xb7 times at " + ws::to_string(m) + ", " + src;
}

void AppState::set_block(std::uint32_t block) {
  selection_.sel.block = block;
  request_run();
}

void AppState::set_warp(std::uint16_t warp) {
  selection_.sel.warp = warp;
  results.main.sel.warp = warp;
  derive(results.main, false);
  if (results.cmp.valid()) {
    results.cmp.sel.warp = warp;
    derive(results.cmp, true);
  }
  results.stepper.order = results.main.order;
  results.stepper.seek(0);
}

void AppState::set_launch(std::size_t launch) {
  selection_.sel.launch = launch;
  results.main.sel.launch = launch;
  derive(results.main, false);
  results.stepper.order = results.main.order;
  results.stepper.seek(0);
}

// [SECTION] Compare mode
void AppState::set_compare(bool on, const std::string& variant, const Params& overrides) {
  results.compare_mode = on;
  if (!variant.empty()) {
    results.compare_variant = variant;
    results.compare_overrides = overrides;
  }
  if (on && results.compare_variant.empty()) {
    const VariantInfo* v = variant_info();
    const FamilyInfo* f = find_family(selection_.sel.family);
    const std::string flip = f ? f->compare_flip : std::string();
    if (v && !flip.empty() && find_param(*v, flip)) {
      results.compare_variant = selection_.sel.variant;
      const auto it = selection_.completed.find(flip);
      results.compare_overrides = {{flip, it != selection_.completed.end() && it->second != 0 ? 0 : 1}};
    } else {
      std::vector<std::string> names;
      for (const auto& c : catalogue())
        if (c.family == selection_.sel.family) names.push_back(c.name);
      auto it = std::find(names.begin(), names.end(), selection_.sel.variant);
      if (it != names.end() && it != names.begin()) results.compare_variant = *(it - 1);
      else if (it != names.end() && it + 1 != names.end()) results.compare_variant = *(it + 1);
      else results.compare_variant = selection_.sel.variant;
      results.compare_overrides.clear();
    }
  }
  if (!on) results.cmp = Loaded{};
  if (on) request_run();
}

std::string AppState::compare_label() const {
  std::string s = results.compare_variant;
  for (const auto& [k, v] : results.compare_overrides) s += " " + k + "=" + std::to_string(v);
  return s;
}

// [SECTION] Requests to the worker: run, bars, peers, sweep
Job AppState::make_job(JobKind k, const std::string& variant, const Params& p) const {
  Job j;
  j.kind = k;
  j.family = selection_.sel.family;
  j.variant = variant;
  j.params = p;
  j.opt.timing = true;
  j.opt.totals = true;
  j.opt.keep_blocks = (k == JobKind::Main || k == JobKind::Compare)
                          ? std::vector<std::uint32_t>{selection_.sel.block}
                          : std::vector<std::uint32_t>{};
  if (k == JobKind::Main && collect_hardware) {
    j.opt.hardware_runs = 3;  // three profiled runs: the spread shows what is noise
    j.opt.hardware_lines = true;
  }
  return j;
}

void AppState::request_run() {
  const VariantInfo* v = variant_info();
  if (!v) {
    selection_.refusal = "unknown kernel " + selection_.sel.family + "/" + selection_.sel.variant;
    return;
  }
  Params full;
  selection_.refusal = validate(*v, selection_.sel.params, limits(), full);
  if (!selection_.refusal.empty()) return;
  selection_.completed = full;
  // A block outside the new grid falls back to block 0.
  const Plan plan = v->plan(full);
  if (!plan.launches.empty()) {
    const std::size_t li = std::min(selection_.sel.launch, plan.launches.size() - 1);
    if (selection_.sel.block >= plan.launches[li].grid.count()) selection_.sel.block = 0;
    const unsigned warps = unsigned((plan.launches[li].block.count() + 31) / 32);
    if (selection_.sel.warp >= warps) selection_.sel.warp = 0;
  }
  Job j = make_job(JobKind::Main, selection_.sel.variant, full);
  j.gen = next_gen_++;
  main_pending_gen_ = j.gen;
  worker_.submit(j);
  if (results.compare_mode) {
    const VariantInfo* cv = find_variant(selection_.sel.family, results.compare_variant);
    if (cv) {
      Params given, cfull;
      for (const ParamSpec& ps : cv->params) {
        if (auto it = full.find(ps.name); it != full.end()) given[ps.name] = it->second;
        if (auto it = results.compare_overrides.find(ps.name); it != results.compare_overrides.end()) given[ps.name] = it->second;
      }
      const std::string why = validate(*cv, given, limits(), cfull);
      if (why.empty()) {
        Job c = make_job(JobKind::Compare, results.compare_variant, cfull);
        c.gen = next_gen_++;
        cmp_pending_gen_ = c.gen;
        worker_.submit(c);
      } else {
        add_notice("comparison " + compare_label() + " cannot run with these parameters: " + why, true);
      }
    }
  }
  if (charts.live_charts) request_bars();
  const std::string peers_key = selection_.sel.family + " " + std::to_string(v->plan(timed_params()).logical_bytes);
  if (peers_key != peers_for_) {
    peers_for_ = peers_key;
    request_peers();
  }
}

void AppState::request_bars() {
  const Params full = timed_params();
  Job j = make_job(JobKind::Bars, selection_.sel.variant, full);
  if (full != selection_.completed) j.counting = selection_.completed;
  j.gen = next_gen_++;
  bars_pending_gen_ = j.gen;
  worker_.submit(j);
}

void AppState::request_peers() { request_peers_at(timed_params()); }

void AppState::request_peers_at(const Params& p) {
  Job j = make_job(JobKind::Peers, selection_.sel.variant, p);
  j.opt.timing = true;
  j.gen = next_gen_++;
  peers_pending_gen_ = j.gen;
  worker_.submit(j);
}

std::vector<long long> AppState::sweep_values(const std::string& param) const {
  const VariantInfo* v = variant_info();
  if (!v) return {};
  for (const ParamSpec& ps : v->params) {
    if (ps.name != param) continue;
    if (!ps.choices.empty()) return ps.choices;
    if (ps.max - ps.min + 1 <= 9) {
      std::vector<long long> out;
      for (long long x = ps.min; x <= ps.max; ++x) out.push_back(x);
      return out;
    }
    // Wide ranges go in powers of two: a problem size around its current value (the
    // emulator would take minutes at the top of the range), anything else over its range.
    const auto cur_it = selection_.completed.find(param);
    const long long cur = cur_it != selection_.completed.end() ? cur_it->second : ps.def;
    const FamilyInfo* f = find_family(selection_.sel.family);
    const bool size = f && std::find(f->size_params.begin(), f->size_params.end(), param) !=
                               f->size_params.end();
    std::vector<long long> out;
    if (!size && ps.min == 0) out.push_back(0);
    for (long long x = 1; x <= ps.max && x > 0 && out.size() < 9; x *= 2)
      if (x >= ps.min && (!size || (x >= cur / 8 && x <= cur * 4))) out.push_back(x);
    if (out.empty()) out.push_back(cur);
    return out;
  }
  return {};
}

void AppState::default_sweep_params() {
  const VariantInfo* v = variant_info();
  const FamilyInfo* f = find_family(selection_.sel.family);
  charts.sweep_x.clear();
  charts.sweep_series.clear();
  if (!v || !f) return;
  // The family says which question its sweep asks first (the transpose: tile x padding).
  const SweepAxes a = default_sweep(*f, *v);
  charts.sweep_x = a.x;
  charts.sweep_series = a.series;
}

void AppState::request_sweep() {
  if (!selection_.refusal.empty()) {
    add_notice("sweep not started: " + selection_.refusal, true);
    return;
  }
  Job j = make_job(JobKind::Sweep, selection_.sel.variant, selection_.completed);
  j.sweep_x = charts.sweep_x;
  j.sweep_series = charts.sweep_series;
  j.xs = sweep_values(charts.sweep_x);
  if (!charts.sweep_series.empty()) j.ss = sweep_values(charts.sweep_series);
  j.gen = next_gen_++;
  sweep_pending_gen_ = j.gen;
  charts.sweep.clear();
  charts.sweep_for = selection_.sel.family + "/" + selection_.sel.variant;
  worker_.submit(j);
}

// [SECTION] Installing what came back, and what the views derive
bool AppState::any_pending() const {
  return main_pending_gen_ || cmp_pending_gen_ || bars_pending_gen_ || sweep_pending_gen_ ||
         peers_pending_gen_ || lesson_pending_gen_;
}

void AppState::poll() {
  if (editor) editor->poll(*this);
  if (!worker_ready_seen_ && worker_.ready()) {
    worker_ready_seen_ = true;
    if (const std::string e = worker_.error(); !e.empty()) add_notice(e, true);
    // Validation before the backend was up used default limits; check again with its own.
    const std::string before = selection_.refusal;
    Params full;
    if (const VariantInfo* v = variant_info()) {
      const std::string now = validate(*v, selection_.sel.params, limits(), full);
      if (now != before) {
        selection_.refusal = now;
        if (now.empty()) request_run();
      }
    }
  }
  for (JobResult& r : worker_.take()) install(r);
}

void AppState::install(JobResult& r) {
  switch (r.kind) {
    case JobKind::Main: {
      if (r.gen != main_pending_gen_) return;  // an older run finished after a newer request
      if (r.final) main_pending_gen_ = 0;
      if (user_pinned_) return;  // the student's kernel stays on screen
      if (!r.run) return;
      const bool first_of_gen = results.main.gen != r.gen;
      const bool keep = results.main.valid() && results.main.sel.family == r.job.family &&
                        results.main.sel.variant == r.job.variant && results.main.sel.block == selection_.sel.block &&
                        results.main.sel.warp == selection_.sel.warp;
      results.main.run = r.run;
      results.main.gen = r.gen;
      results.main.seconds = r.seconds;
      results.main.stages = r.stages;
      results.main.final = r.final;
      results.main.times = r.times;
      if (r.times.measured >= 0) results.last_latency.measured = r.times.measured;
      if (r.times.counters >= 0) results.last_latency.counters = r.times.counters;
      if (first_of_gen) results.last_latency = r.times;
      results.main.sel = selection_.sel;
      results.main.sel.variant = r.job.variant;
      results.main.sel.params = r.job.params;
      if (!r.job.opt.keep_blocks.empty()) results.main.sel.block = r.job.opt.keep_blocks.front();
      derive(results.main, keep);
      const std::size_t pos = results.stepper.pos;
      results.stepper.order = results.main.order;
      results.stepper.seek(keep ? pos : 0);
      if (!results.stepper.order.empty() && !keep) results.stepper.playing = false;
      note_history();
      break;
    }
    case JobKind::Compare:
      if (r.gen != cmp_pending_gen_) return;
      if (r.final) cmp_pending_gen_ = 0;
      if (!r.run) return;
      results.cmp.run = r.run;
      results.cmp.gen = r.gen;
      results.cmp.seconds = r.seconds;
      results.cmp.stages = r.stages;
      results.cmp.final = r.final;
      results.cmp.times = r.times;
      results.cmp.sel = selection_.sel;
      results.cmp.sel.variant = r.job.variant;
      results.cmp.sel.params = r.job.params;
      derive(results.cmp, false);
      break;
    case JobKind::Bars:
      if (r.gen != bars_pending_gen_) return;
      if (r.final) bars_pending_gen_ = 0;
      charts.bars = std::move(r.bars);
      charts.bars_family = r.job.family;
      charts.bars_at = r.bars_at;
      charts.bars_why = r.bars_why;
      charts.bars_cancelled = r.cancelled;
      // Bars modelled at the counting size instead: the peers beside them at that size too.
      if (r.final && !r.cancelled && !charts.bars_at.empty() && charts.bars_at != peers_at_) request_peers_at(charts.bars_at);
      note_history();
      break;
    case JobKind::Sweep:
      if (r.gen != sweep_pending_gen_) return;
      if (r.final) sweep_pending_gen_ = 0;
      charts.sweep = std::move(r.sweep);
      break;
    case JobKind::Editor:
      break;  // the editor's task hands its verdict to the editor itself
    case JobKind::Lesson:
      lesson_done_gen_ = std::max(lesson_done_gen_, r.gen);
      if (r.gen == lesson_pending_gen_) lesson_pending_gen_ = 0;
      break;
    case JobKind::Peers:
      if (r.gen != peers_pending_gen_) return;
      peers_pending_gen_ = 0;
      charts.peers = std::move(r.peers);
      peers_at_ = r.job.params;
      break;
  }
}

// One history point per change, at the size the bars time at when that is not the counting
// size (the timed run), so the history never plots a counting run's time beside timed ones.
void AppState::note_history() {
  if (!results.main.valid() || !results.main.has(Stage::Measured) || history_gen_ == results.main.gen) return;
  const RunResult* rr = timed_run();
  if (!rr) {
    // No timed run: the counting run's time, unless the bars (at the timing size) are still coming.
    const bool timed_elsewhere = timed_params() != selection_.completed;
    if (timed_elsewhere && bars_pending_gen_ != 0) return;
    rr = results.main.run.get();
  }
  history_gen_ = results.main.gen;
  if (!rr->error.empty() || rr->timing.throughput <= 0) return;
  HistoryPoint h;
  h.run = ++charts.runs_done;
  h.series = results.main.sel.variant;
  h.label = results.main.sel.variant + " " + params_text(rr->params);
  h.throughput = rr->timing.throughput;
  h.unit = rr->timing.unit;
  h.wrong = !rr->ok();
  h.source = rr->timing.source;
  charts.history.push_back(h);
  while (charts.history.size() > kHistoryMax) charts.history.pop_front();
}

void AppState::derive(Loaded& l, bool) {
  l.info = find_variant(l.sel.family, l.sel.variant);
  if (!l.user_source.empty()) {
    const std::filesystem::path f = std::filesystem::absolute(l.user_source);
    l.source = viz::load_source(f.filename().string(), {f.parent_path().string()});
  } else if (l.info && (l.source.path.empty() || l.source.path.find(l.info->source_file) == std::string::npos)) {
    l.source = viz::load_source(l.info->source_file, source_roots());
  }
  l.struct_line = !l.user_source.empty() ? viz::find_struct_line(l.source, l.user_struct)
                  : l.info              ? viz::find_struct_line(l.source, l.info->entry)
                                        : 0;
  const auto& ev = l.events();
  l.recorded_hw.reset();
  // A student's kernel has no recorded SASS or counters of its own.
  if (l.info && l.run && l.user_source.empty() && !opt_.hardware_from.empty() && !l.run->hardware.ok()) {
    HardwareCounters h;
    std::string err;
    if (load_recorded_hardware(opt_.hardware_from, l.info->family, l.info->name, l.run->params, h, err))
      l.recorded_hw = std::make_shared<const HardwareCounters>(std::move(h));
    else if (&l == &results.main)
      add_notice(err, false);
  }
  l.sass.reset();
  if (l.info && l.run && l.user_source.empty())
    l.sass = sass_for(*l.info, l.run->params.empty() ? l.sel.params : l.run->params, l.sel.launch, ev,
                      &l.hardware(), source_roots());
  l.order = sim::warp_events(ev, l.sel.block, l.sel.warp);
  l.mask = sim::mask_history(ev, l.sel.block, l.sel.warp);
  // What the trace did on each source line, for the source view's margin.
  l.notes.clear();
  l.marks.clear();
  for (const auto& [line, s] : sim::summarize_lines(ev, l.order)) {
    const std::string n = s.note();
    if (n.empty()) continue;
    l.notes[line] = n;
    l.marks[line] = s.conflict() ? viz::heat_colour(32) : s.divergent ? viz::ballot_false_colour({}) : viz::heat_colour(1);
  }
  // The whole grid's counters per line (the model's, from the device or the emulator),
  // for the launch shown: what Nsight Compute's Source page shows for hardware counters.
  l.counters.clear();
  if (l.run && !l.run->launches.empty()) {
    const std::size_t li = std::min(l.sel.launch, l.run->launches.size() - 1);
    l.counters = sim::line_counters(l.run->launches[li].sites);
  }
}

// [SECTION] Charts: peak, export metadata, context
double AppState::peak() const {
  const std::string unit = results.main.valid() ? results.main.run->timing.unit : "GB/s";
  if (!worker_.ready()) return 0;
  const DeviceInfo d = worker_.device();
  const sim::DeviceModel m;
  if (unit == "GB/s") return d.peak_gbps > 0 ? d.peak_gbps : (emulated() ? m.dram_gbps : 0);
  if (unit == "GFLOP/s" && emulated()) return m.fp32_gflops;
  return 0;
}

bool AppState::tensor_run() const {
  return results.main.valid() && results.main.run->plan.mma_flops > 0;
}

// The same keys and words as the command line's exports (kernels/backends/run_meta.h).
std::map<std::string, std::string> AppState::export_meta() const {
  const DeviceInfo d = worker_.device();
  const int repeats = results.main.valid() ? std::max<int>(1, int(results.main.run->timing.samples_ms.size())) : 10;
  std::vector<sim::Provenance> sources;
  if (results.main.valid()) sources.push_back(results.main.run->timing.source);
  for (const auto& b : charts.bars) sources.push_back(b.result.timing.source);
  for (const auto& p : charts.sweep) sources.push_back(p.source);
  // Counts and times may be at two sizes (a lesson's timing size): the file says both, or
  // its footer named the counting run's n under bars of the timed one.
  std::string params = ws::to_string(selection_.completed);
  if (!charts.bars_at.empty() && charts.bars_at != selection_.completed)
    params = "counts at " + params + ", times at " + ws::to_string(charts.bars_at);
  return ws::export_meta(d, emulated() ? BackendKind::Emu : BackendKind::Cuda, sources, repeats,
                         selection_.sel.family + "/" + selection_.sel.variant, params, utc_now_iso8601());
}

ChartContext AppState::chart_context() const {
  ChartContext c;
  c.peak = peak();
  const std::string unit = results.main.valid() ? results.main.run->timing.unit : "GB/s";
  // A tensor-core run passes the FP32 line (lesson 13 says so): it is named for what it is.
  if (unit == "GFLOP/s") c.peak_name = tensor_run() ? "FP32 peak (FMA units, not the tensor cores)" : "FP32 peak";
  c.peak_source = worker_.ready() ? peak_source(worker_.device(), worker_.backend_kind())
                                  : sim::Provenance::spec(sim::h100::kProduct);
  c.family = selection_.sel.family;
  c.completed = selection_.completed;
  c.meta = export_meta();
  return c;
}

// [SECTION] Student runs and the lesson host
void AppState::show_user_run(std::shared_ptr<const RunResult> run, const std::string& family,
                             const std::string& variant, const std::string& source_file,
                             const std::string& struct_name) {
  user_pinned_ = true;
  selection_.sel.family = family;
  selection_.sel.variant = variant;
  selection_.sel.params = run->params;
  selection_.completed = run->params;
  selection_.refusal.clear();
  results.main.run = std::move(run);
  results.main.gen = next_gen_++;
  results.main.sel = selection_.sel;
  results.main.user_source = source_file;
  results.main.user_struct = struct_name;
  results.main.source = {};
  derive(results.main, false);
  results.stepper.order = results.main.order;
  results.stepper.seek(0);
  results.stepper.playing = false;
  if (results.compare_mode) request_run();  // the catalogue's side at the same parameters
}

std::uint64_t AppState::run_on_worker(std::function<void(Backend&)> task) {
  Job j;
  j.kind = JobKind::Lesson;
  j.family = selection_.sel.family;
  j.variant = selection_.sel.variant;
  j.task = std::move(task);
  j.gen = next_gen_++;
  lesson_pending_gen_ = j.gen;
  worker_.submit(std::move(j));
  return lesson_pending_gen_;
}

void AppState::run_editor_task(std::function<void(Backend&)> task) {
  Job j;
  j.kind = JobKind::Editor;
  j.task = std::move(task);
  j.gen = next_gen_++;
  worker_.submit(std::move(j));
}

bool AppState::seek_to(const std::string& at) {
  if (!results.main.valid()) return false;
  auto here = [&] {
    const auto pos = sim::find_at(at, results.main.events(), results.stepper.order);
    if (!pos) return false;
    results.stepper.playing = false;
    results.stepper.seek(*pos);
    return true;
  };
  if (here()) return true;
  // A multi-launch variant (a histogram's zeroing launch before its atomics): the launch
  // that has the event is the one to show.
  const std::size_t shown = results.main.sel.launch, n = results.main.run->kept.size();
  for (std::size_t l = 0; l < n; ++l) {
    if (l == shown) continue;
    set_launch(l);
    if (here()) return true;
  }
  if (n > 1) set_launch(shown);
  return false;
}

void AppState::open_lab(const std::string& family, const std::string& variant, const Params& params,
                        const Params& timing) {
  if (!find_variant(family, variant)) {
    add_notice("the lesson names an unknown kernel " + family + "/" + variant, true);
    return;
  }
  selection_.sel.family = family;
  selection_.sel.variant = variant;
  selection_.sel.params = params;
  // A step that only counts still times where its family times (the recording's or the
  // GPU's size), so its chart never argues from a launch too small to measure memory.
  selection_.timing = timing.empty() ? family_timing(family, {}) : timing;
  selection_.sel.launch = 0;
  default_sweep_params();
  request_run();
}

}  // namespace ws::gui
