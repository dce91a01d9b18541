// The Roofline panel (viz/roofline.h): every variant of the family at the bars' parameters
// as a point (FLOPs over the model's DRAM bytes, against its throughput), under the H100's
// ceilings, each named with where its figure comes from.
#include "app/gui/panels/panel.h"
#include "viz/roofline.h"

namespace ws::gui {

namespace {

// cuBLAS GemmEx, FP16 in and FP32 accumulate, n = 4096, median of 20 on the H100
// (shared/reference/h100-h200-2026-11-26.md). No probe of ours reaches the tensor cores yet,
// so the library's figure is the ceiling; the data sheet's dense FP16 peak is 989 TFLOP/s.
constexpr double kTensorFp16Gflops = 806000;
constexpr const char* kTensorSource =
    "cuBLAS GemmEx FP16 in, FP32 accumulate, n=4096, recorded on NVIDIA H100 80GB HBM3, 2026-11-26";

// The H100's ceilings, each with its source. DRAM is the copy peer on screen when there is
// one (measured here or recorded), else the model's streaming rate.
std::vector<viz::RooflineCeiling> ceilings(const AppState& s) {
  using K = viz::RooflineCeiling::Kind;
  const sim::DeviceModel m;
  std::vector<viz::RooflineCeiling> c;
  if (const double cp = s.charts.copy_gbps(); cp > 0)
    c.push_back({K::Bandwidth, "DRAM", cp, "cudaMemcpy device to device, " + sim::long_label(s.charts.copy_source())});
  else
    c.push_back({K::Bandwidth, "DRAM", m.stream_gbps,
                 "cudaMemcpy device to device, recorded on " + std::string(sim::h100::kProduct) +
                     " (the model's streaming rate, sim/model.h)"});
  c.push_back({K::Bandwidth, "L2", m.l2_read_gbps,
               "a probe's float4 reads of 16 MB, recorded on " + std::string(sim::h100::kProduct) +
                   " (the model's L2 rate, docs/CALIBRATION.md)"});
  // 128 bytes a wavefront, one wavefront an SM clock (the model's shared-memory pipe).
  const double shared = 128.0 * m.sm_count * m.sm_clock_ghz;
  char b[160];
  std::snprintf(b, sizeof b, "modelled: one 128-byte wavefront a clock on each of %u SMs at %.4g GHz (sim/model.h)",
                m.sm_count, m.sm_clock_ghz);
  c.push_back({K::Bandwidth, "shared", shared, b});
  c.push_back({K::Compute, "FP32", m.fp32_gflops,
               "theoretical peak, the " + std::string(sim::h100::kProduct) + " data sheet (sim/model.h)"});
  c.push_back({K::Compute, "tensor FP16", kTensorFp16Gflops, kTensorSource});
  return c;
}

// A run as a point: its FLOPs over the DRAM bytes the model counts for it.
viz::RooflinePoint point_of(const std::string& variant, const RunResult& r, bool selected) {
  viz::RooflinePoint p;
  p.label = variant;
  p.selected = selected;
  p.source = r.timing.source;
  const std::uint64_t bytes = modelled_run(r.plan, r.launches, r.regs_per_thread).dram_bytes;
  if (r.plan.flops > 0 && bytes > 0) p.intensity = r.plan.flops / double(bytes);
  if (r.timing.unit == "GFLOP/s") p.gflops = r.timing.throughput;
  return p;
}

viz::RooflineInput roofline_input(const AppState& s) {
  viz::RooflineInput in;
  in.ceilings = ceilings(s);
  in.bytes_note = "the DRAM bytes the model counts (every L1 miss of arrays larger than the L2)";
  in.covered = cover_of(s).views.time || cover_of(s).views.flops;
  const Selection& sel = s.selection();
  const bool bars_here = !s.charts.bars.empty() && s.charts.bars_family == sel.family;
  if (bars_here) {
    in.caption = sel.family + " at " + ws::to_string(s.charts.bars_at) + ": every variant";
    for (const BarPoint& b : s.charts.bars)
      if (b.skipped.empty() && b.result.error.empty())
        in.points.push_back(point_of(b.variant, b.result, b.variant == sel.variant));
  } else if (const Loaded& l = s.results.main; l.valid()) {
    in.caption = sel.family + "/" + sel.variant + " at " + ws::to_string(l.run->params);
    in.points.push_back(point_of(sel.variant, *l.run, true));
  }
  bool any_flops = false;
  for (const viz::RooflinePoint& p : in.points) any_flops |= p.intensity > 0 && p.gflops > 0;
  if (in.points.empty())
    in.empty_note = s.any_pending() ? "running the variants..." : "no run yet";
  else if (!any_flops)
    in.empty_note = sel.family + " counts no floating-point work: its runs are not on a roofline";
  return in;
}

}  // namespace

void draw_roofline(AppState& s, FrameDraw& fd, const Rect& r) {
  if (begin_panel(fd, title_of(View::Roofline).c_str(), r))
    fd.drawn[std::size_t(View::Roofline)] = viz::draw_roofline(roofline_input(s), style_of(s));
  end_panel(r);
}

}  // namespace ws::gui
