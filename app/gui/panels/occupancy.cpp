// The Occupancy panel: the recorded sweep of the selected variant over its block size
// (threads per block or rows per block), each point's time against the block, its
// registers and the occupancy they allow. Times are the recording's (labelled so by the
// chart); registers are the recorded fast build's; occupancy is the model's
// (sim::resident_blocks from the block, its shared memory and those registers).
#include "app/gui/panels/panel.h"
#include "app/gui/lesson_step.h"
#include <set>

#include "kernels/hardware/recording.h"

namespace ws::gui {

namespace {

// The parameters the family records sweeps of for this variant (FamilyInfo::recorded_sweeps)
// that change its first launch's block, found from the catalogue (an allowed value other
// than the default planned beside the default): a sweep over one is an occupancy sweep.
std::set<std::string> block_params(const VariantInfo& v) {
  std::set<std::string> out, swept;
  if (const FamilyInfo* f = find_family(v.family))
    for (const RecordedSweep& rs : f->recorded_sweeps)
      if (rs.variant == v.name) swept.insert(rs.x);
  Params base;
  if (!v.plan || !validate(v, {}, DeviceLimits{}, base).empty()) return out;
  const Plan p0 = v.plan(base);
  if (p0.launches.empty()) return out;
  for (const ParamSpec& ps : v.params) {
    if (!swept.count(ps.name)) continue;
    std::vector<long long> others = ps.choices;
    if (others.empty() && ps.max > ps.min) others = {ps.min, ps.max};
    for (long long x : others) {
      if (x == ps.def) continue;
      Params given = base, full;
      given[ps.name] = x;
      if (!validate(v, given, DeviceLimits{}, full).empty()) continue;
      const Plan p1 = v.plan(full);
      if (!p1.launches.empty() && (p1.launches[0].block.x != p0.launches[0].block.x ||
                                   p1.launches[0].block.y != p0.launches[0].block.y ||
                                   p1.launches[0].block.z != p0.launches[0].block.z))
        out.insert(ps.name);
      break;
    }
  }
  return out;
}

// Params without the block parameters: the runs of one sweep share them.
Params rest_of(const Params& p, const std::set<std::string>& block) {
  Params r = p;
  for (auto it = r.begin(); it != r.end();)
    it = block.count(it->first) ? r.erase(it) : std::next(it);
  return r;
}

struct OccupancyPoint {
  long long block_value = 0;  // the swept parameter's value
  unsigned threads = 0;       // threads per block of the first launch
  int regs = 0;               // recorded registers per thread (0 unknown)
  double occupancy = 0;       // resident warps over the SM's, modelled
  double us = 0;              // the recorded median
  sim::Provenance source;
};

struct OccupancySweep {
  std::string param;  // the swept parameter that changes the block
  Params at;          // the other parameters
  std::vector<OccupancyPoint> points;
};

// The recorded runs of a variant that differ only in the block parameter, grouped by the
// other parameters ("n=67108864" -> its runs).
std::map<std::string, std::vector<const RecordedRun*>> sweeps_of(const Recording& rec, const std::string& family,
                                                                const std::string& variant) {
  std::map<std::string, std::vector<const RecordedRun*>> groups;
  const VariantInfo* v = find_variant(family, variant);
  if (!v) return groups;
  const std::set<std::string> block = block_params(*v);
  for (const RecordedRun& r : rec.runs) {
    if (r.family != family || r.variant != variant || rec.is_stale(r)) continue;
    const Params rest = rest_of(r.params, block);
    if (rest.size() == r.params.size()) continue;  // no block parameter
    groups[ws::to_string(rest)].push_back(&r);
  }
  for (auto it = groups.begin(); it != groups.end();)
    it = it->second.size() < 3 ? groups.erase(it) : std::next(it);
  return groups;
}

// "reduce/vector_load, transpose/tiled": every variant with a recorded block sweep.
std::string recorded_sweeps(const Recording& rec) {
  std::set<std::string> seen;
  std::string out;
  for (const RecordedRun& r : rec.runs)
    if (seen.insert(r.family + "/" + r.variant).second && !sweeps_of(rec, r.family, r.variant).empty())
      out += (out.empty() ? "" : ", ") + r.family + "/" + r.variant;
  return out;
}

// The recorded sweep of the selected variant over its block parameter: the group at the
// selection's other parameters, else the largest; empty when there is none.
OccupancySweep find_sweep(const AppState& s) {
  OccupancySweep out;
  const Recording* rec = default_recording();
  const VariantInfo* v = s.variant_info();
  if (!rec || !v || !v->plan) return out;
  const auto groups = sweeps_of(*rec, v->family, v->name);
  const std::set<std::string> block = block_params(*v);
  const std::string want = ws::to_string(rest_of(s.timed_params(), block));
  const std::vector<const RecordedRun*>* pick = nullptr;
  for (const auto& [k, runs] : groups)
    if (k == want || !pick || (ws::to_string(rest_of(pick->front()->params, block)) != want && runs.size() > pick->size()))
      pick = &runs;
  if (!pick) return out;
  out.at = rest_of(pick->front()->params, block);
  const sim::DeviceModel m;
  for (const RecordedRun* r : *pick) {
    OccupancyPoint p;
    for (const auto& [k, val] : r->params)
      if (block.count(k)) {
        out.param = k;
        p.block_value = val;
      }
    const Plan plan = v->plan(r->params);
    if (plan.launches.empty()) continue;
    const sim::LaunchShape shape = launch_shape(plan, plan.launches.front(), r->regs_per_thread);
    p.threads = shape.threads_per_block;
    p.regs = r->regs_per_thread;
    const unsigned warps = (p.threads + m.warp_size - 1) / m.warp_size;
    p.occupancy = std::min(1.0, double(sim::resident_blocks(shape, m)) * warps / m.max_warps_per_sm);
    p.us = r->timing.median_ms * 1000;
    p.source = r->timing.source;
    out.points.push_back(p);
  }
  std::sort(out.points.begin(), out.points.end(),
            [](const OccupancyPoint& a, const OccupancyPoint& b) { return a.block_value < b.block_value; });
  return out;
}

viz::ChartSpec occupancy_chart(const AppState& s, const OccupancySweep& sw) {
  viz::ChartSpec c;
  const Selection& sel = s.selection();
  c.title = sel.family + "/" + sel.variant + " at " + ws::to_string(sw.at) + ": time against " + sw.param;
  c.x_label = sw.param + ": threads a block, the recorded build's registers a thread, the occupancy "
              "they give (modelled)";
  c.y_label = "us";
  viz::Series t;
  t.name = "median time";
  t.kind = viz::SeriesKind::Bars;
  for (std::size_t i = 0; i < sw.points.size(); ++i) {
    const OccupancyPoint& p = sw.points[i];
    char b[96];
    const std::string regs = p.regs > 0 ? std::to_string(p.regs) + " regs" : "regs unknown";
    if (sw.param == "block")  // the value is the threads
      std::snprintf(b, sizeof b, "%u threads, %s, occupancy %.0f%%", p.threads, regs.c_str(), p.occupancy * 100);
    else
      std::snprintf(b, sizeof b, "%s=%lld: %u threads, %s, occupancy %.0f%%", sw.param.c_str(), p.block_value,
                    p.threads, regs.c_str(), p.occupancy * 100);
    c.categories.push_back(b);
    t.x.push_back(double(i));
    t.y.push_back(p.us);
    t.source.push_back(p.source);
  }
  c.series.push_back(std::move(t));
  return c;
}

}  // namespace

void draw_occupancy(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::Occupancy).c_str(), r)) {
    const OccupancySweep sw = find_sweep(s);
    if (sw.points.empty()) {
      const Recording* rec = default_recording();
      const std::string with = rec ? recorded_sweeps(*rec) : "";
      wrapped_dim(s.selection().family + "/" + s.selection().variant +
                  ": the recording holds no sweep of its block size (three runs or more that differ only in "
                  "`block` or `block_rows`)" +
                  (with.empty() ? std::string(".") : "; these variants have one: " + with + ".") +
                  " No family has a register knob: registers change only with the block.");
    } else if (cover_of(s).views.time || cover_of(s).views.launch) {
      wrapped_dim(std::string(viz::kPredictFirst) + ": this chart would show the answer to " +
                  step::time_cover_reason(cover_of(s)));
    } else {
      fd.drawn[std::size_t(View::Occupancy)] = viz::DrawChart("occupancy", occupancy_chart(s, sw), ImVec2(0, 0), style_of(s));
    }
  }
  end_panel(r);
}

}  // namespace ws::gui
