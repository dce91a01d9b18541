#include "sim/model.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace ws::sim {

namespace {

using access_detail::Divider;
using access_detail::Span;

double ratio(std::uint64_t num, std::uint64_t den) {
  return den == 0 ? 0.0 : double(num) / double(den);
}

}  // namespace

GlobalAccess analyze_global(const WarpEvent& e, const DeviceModel& m) {
  GlobalAccess g;
  g.lane_sector.fill(-1);
  Span sec[32];
  const GlobalCore c = global_core(e, m.access(), sec);
  g.requests = c.requests;
  g.sectors = c.sectors;
  g.lines = c.lines;
  g.ideal_sectors = c.ideal;
  g.bytes_requested = c.bytes_requested;
  g.bytes_moved = c.bytes_moved;
  g.fetches = c.fetches;
  g.fetch_bytes = std::uint64_t(c.fetches) * m.access().fetch_unit();
  g.sector_ids.reserve(c.sectors);
  for (int r = 0; r < c.sector_spans; ++r)
    for (std::uint64_t s = sec[r].lo; s <= sec[r].hi; ++s) g.sector_ids.push_back(s);
  const Divider sb(m.sector_bytes);
  for (int l = 0; l < 32; ++l) {
    if (!(e.mask >> l & 1u)) continue;
    const auto it = std::lower_bound(g.sector_ids.begin(), g.sector_ids.end(), sb.div(lane_offset(e, unsigned(l))));
    g.lane_sector[l] = std::int32_t(it - g.sector_ids.begin());
  }
  return g;
}

SharedAccess analyze_shared(const WarpEvent& e, const DeviceModel& m) {
  SharedAccess s;
  s.lane_bank.fill(-1);
  s.bank_words.fill(0);
  const SharedDetail detail{s.lane_bank.data(), s.bank_words.data()};
  const SharedCore c = shared_core(e, m.access(), &detail);
  s.wavefronts = c.wavefronts;
  s.ideal_wavefronts = c.ideal;
  s.conflicts = c.wavefronts - c.ideal;
  s.max_degree = c.max_degree;
  s.broadcast = c.broadcast;
  return s;
}

void Totals::add(const WarpEvent& e, const DeviceModel& m) { count_event(e, m.access(), *this); }

void Totals::merge(const Totals& o) { add_counters(*this, o); }

double Totals::simd_efficiency() const {
  return warp_instructions == 0 ? 1.0
                                : double(lane_instructions) / (32.0 * double(warp_instructions));
}

std::map<std::string, double> Totals::ncu() const {
  // Nsight Compute counts a cp.async's global read (LDGSTS) under op_ld as well as under
  // op_ldgsts (measured on the H100: docs/HARDWARE.md 9a); the model's fields keep them apart.
  return {
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
       double(global_ld_requests + global_ldgsts_requests)},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", double(global_st_requests)},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
       double(global_ld_sectors + global_ldgsts_sectors)},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", double(global_st_sectors)},
      // Every atomic of the dialect is a reduction (REDG): none is an ATOMG.
      {"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", double(global_red_requests)},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum", double(global_red_sectors)},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", 0.0},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", 0.0},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", double(shared_ld_wavefronts)},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", double(shared_st_wavefronts)},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", double(shared_ld_conflicts())},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", double(shared_st_conflicts())},
      {"smsp__sass_inst_executed_op_shared_ld.sum", double(shared_ld_requests)},
      {"smsp__sass_inst_executed_op_shared_st.sum", double(shared_st_requests)},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", double(shared_atom_wavefronts)},
      {"smsp__sass_inst_executed_op_shared_atom.sum", double(shared_atom_requests)},
      // cp.async and mma.sync (kernels/families/tensor.cuh, kernels/families/async_copy.cuh)
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum", double(global_ldgsts_requests)},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum", double(global_ldgsts_sectors)},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum", double(shared_ldgsts_wavefronts)},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
       double(shared_ldgsts_wavefronts - shared_ldgsts_ideal)},
      {"smsp__inst_executed_pipe_tensor_op_hmma.sum", double(tensor_instructions)},
      // Bulk stores (cp.async.bulk): the copy engine's sectors, not the LSU's
      {"l1tex__m_l1tex2xbar_write_sectors_mem_global_op_tma_st.sum", double(global_bulk_st_sectors)},
  };
}

std::vector<std::pair<std::string, double>> Totals::plain() const {
  // Ratios with nothing to divide by read 0, except the two efficiencies: with nothing
  // moved or issued, nothing was wasted.
  const double efficiency =
      global_bytes_moved == 0 ? 1.0 : double(global_bytes_requested) / double(global_bytes_moved);
  return {
      {"sectors per request (loads)", ratio(global_ld_sectors, global_ld_requests)},
      {"sectors per request (stores)", ratio(global_st_sectors, global_st_requests)},
      {"ideal sectors per request (loads)", ratio(global_ld_ideal_sectors, global_ld_requests)},
      {"ideal sectors per request (stores)", ratio(global_st_ideal_sectors, global_st_requests)},
      {"sectors per bulk copy (the copy engine's stores)", ratio(global_bulk_st_sectors, global_bulk_st_copies)},
      {"global efficiency (bytes requested / bytes moved)", efficiency},
      {"wavefronts per request (shared loads)", ratio(shared_ld_wavefronts, shared_ld_requests)},
      {"wavefronts per request (shared stores)", ratio(shared_st_wavefronts, shared_st_requests)},
      {"shared conflicts (loads)", double(shared_ld_conflicts())},
      {"shared conflicts (stores)", double(shared_st_conflicts())},
      {"SIMD efficiency", simd_efficiency()},
      {"divergent branches", double(divergent_branches)},
      {"barriers", double(barriers)},
  };
}

void AtomicHeatSink::on_event(const WarpEvent& e) {
  if (e.mask == 0 || e.kind != EventKind::GlobalAtomic) return;
  // A request whose lanes name distinct words of one 128-byte line is the probe's
  // coalesced pattern, charged per request of each word; only the others are scattered
  // updates, charged at the rate the probe measured for hashed words.
  bool coalesced = true;
  std::uint64_t line = 0;
  bool first = true;
  for (int l = 0; l < 32 && coalesced; ++l) {
    if (!(e.mask >> l & 1u)) continue;
    const std::uint64_t ln = e.offset[l] / 128;
    if (!first && ln != line) coalesced = false;
    line = ln;
    first = false;
    for (int k = 0; k < l; ++k)
      if ((e.mask >> k & 1u) && e.offset[k] == e.offset[l]) coalesced = false;
  }
  // A word is (array, byte offset / 4); the lanes of one request on one word are one
  // request of that word.
  std::uint64_t seen[32];
  int n = 0;
  for (int l = 0; l < 32; ++l) {
    if (!(e.mask >> l & 1u)) continue;
    const std::uint64_t key = (std::uint64_t(e.array) << 40) | (e.offset[l] / 4);
    Word& w = words_[key];
    ++w.lanes;
    w.scattered += !coalesced;
    if (std::find(seen, seen + n, key) != seen + n) continue;
    seen[n++] = key;
    ++w.requests;
  }
}

AtomicHeat AtomicHeatSink::heat() const {
  AtomicHeat h;
  h.known = true;
  for (const auto& [k, w] : words_) {
    h.global_updates += w.scattered;
    h.global_words += w.scattered > 0;
    if (w.lanes > h.hot_lanes) {
      h.hot_lanes = w.lanes;
      h.hot_lanes_requests = w.requests;
    }
    if (w.requests > h.hot_requests) {
      h.hot_requests = w.requests;
      h.hot_requests_lanes = w.lanes;
    }
  }
  return h;
}

void AtomicHeatSink::merge(const AtomicHeatSink& o) {
  for (const auto& [k, w] : o.words_) {
    Word& d = words_[k];
    d.requests += w.requests;
    d.lanes += w.lanes;
    d.scattered += w.scattered;
  }
}

double MaskHistory::simd_efficiency() const {
  std::uint64_t lanes = 0, issued = 0;
  for (std::size_t i = 0; i < masks.size(); ++i) {
    const std::uint64_t c = i < counts.size() ? counts[i] : 1;
    lanes += c * unsigned(std::popcount(masks[i]));
    issued += c;
  }
  return issued == 0 ? 1.0 : double(lanes) / (32.0 * double(issued));
}

MaskHistory mask_history(const std::vector<WarpEvent>& events, std::uint32_t block,
                         std::uint16_t warp) {
  MaskHistory h;
  h.block = block;
  h.warp = warp;
  for (const WarpEvent& e : events) {
    if (e.block != block || e.warp != warp) continue;
    h.masks.push_back(e.mask);
    h.lines.push_back(e.line);
    h.kinds.push_back(e.kind);
    h.ballots.push_back(e.kind == EventKind::Branch ? e.ballot : 0u);
    h.counts.push_back(std::uint32_t(std::min<std::uint64_t>(event_warp_instructions(e), ~0u)));
  }
  return h;
}

void SiteSink::on_event(const WarpEvent& e) {
  count_event(e, model_, by_key_[site_key(e.line, e.array, e.kind)]);
}

SiteList SiteSink::sites() const {
  SiteList out;
  out.reserve(by_key_.size());
  for (const auto& [key, t] : by_key_)
    out.push_back({std::uint16_t(key >> 16), std::uint8_t(key >> 8), EventKind(key & 0xFFu), t});
  return out;
}

void SiteSink::merge(const SiteList& o) {
  for (const SiteTotals& s : o) by_key_[site_key(s.line, s.array, s.kind)].merge(s.totals);
}

void merge_sites(SiteList& into, const SiteList& o) {
  SiteSink sink;
  sink.merge(into);
  sink.merge(o);
  into = sink.sites();
}

std::vector<std::pair<std::uint16_t, Totals>> by_line(const SiteList& sites) {
  std::vector<std::pair<std::uint16_t, Totals>> out;
  for (const SiteTotals& s : sites) {
    if (out.empty() || out.back().first != s.line) out.push_back({s.line, Totals{}});
    out.back().second.merge(s.totals);
  }
  // Sites come sorted by key, whose high half is the line: lines are already in order.
  return out;
}

double TimeParts::total_us() const {
  return std::max({dram_us, compute_us, l1_us, issue_us, l2_us, latency_us, atomic_us}) + launch_us;
}

const char* TimeParts::bound() const {
  const double most = std::max({dram_us, compute_us, l1_us, issue_us, l2_us, latency_us, atomic_us});
  if (most == dram_us) return "dram";
  if (most == l1_us) return "l1";
  if (most == issue_us) return "issue";
  if (most == l2_us) return "l2";
  if (most == latency_us) return "latency";
  if (most == atomic_us) return "atomic";
  return "compute";
}

unsigned resident_blocks(const LaunchShape& s, const DeviceModel& m) {
  if (s.threads_per_block == 0) return 0;
  const std::uint64_t warps = (s.threads_per_block + 31) / 32;
  std::uint64_t n = std::min<std::uint64_t>(m.max_warps_per_sm / warps, m.max_blocks_per_sm);
  n = std::min<std::uint64_t>(n, m.shared_per_sm / (std::uint64_t(s.shared_bytes) + m.shared_reserved_per_block));
  if (s.regs_per_thread > 0 && m.reg_alloc_unit > 0) {
    const std::uint64_t unit = m.reg_alloc_unit;
    const std::uint64_t per_warp = (std::uint64_t(s.regs_per_thread) * 32 + unit - 1) / unit * unit;
    n = std::min<std::uint64_t>(n, m.regs_per_sm / per_warp / warps);
  }
  return unsigned(n);
}

namespace {
bool fits_l2(const LaunchShape& s, const DeviceModel& m) {
  return s.footprint_bytes > 0 && s.footprint_bytes <= m.l2_bytes;
}

// The loads' share of dram_bytes, before the L2 cap.
std::uint64_t load_dram_bytes(const Totals& t, const DeviceModel& m) {
  return t.global_ld_fetches > 0 || t.global_ld_sectors == 0
             ? std::uint64_t(m.access().fetch_unit()) * t.global_ld_fetches
             : std::uint64_t(m.sector_bytes) * t.global_ld_sectors;
}
}  // namespace

std::uint64_t dram_bytes(const Totals& t, const DeviceModel& m, const LaunchShape& s) {
  const std::uint64_t loads = load_dram_bytes(t, m);
  const std::uint64_t streamed =
      loads + std::uint64_t(m.sector_bytes) *
                  (t.global_st_sectors + t.global_red_sectors + t.global_bulk_st_dram_sectors);
  return fits_l2(s, m) ? std::min(streamed, s.footprint_bytes) : streamed;
}

double dram_read_gbps(double bytes_per_sm, const DeviceModel& m) {
  if (!(bytes_per_sm > 0)) return 0.0;
  const auto& c = m.read_gbps_by_bytes_in_flight;
  if (bytes_per_sm <= c.front()[0]) return c.front()[1] * bytes_per_sm / c.front()[0];
  for (std::size_t i = 1; i < c.size(); ++i) {
    if (bytes_per_sm <= c[i][0]) {
      const double f = (bytes_per_sm - c[i - 1][0]) / (c[i][0] - c[i - 1][0]);
      return c[i - 1][1] + f * (c[i][1] - c[i - 1][1]);
    }
  }
  return c.back()[1];
}

double in_flight_us(const Totals& t, const LaunchShape& s, const DeviceModel& m) {
  const unsigned per_sm = resident_blocks(s, m);
  if (s.loads_in_flight == 0 || t.global_ld_requests == 0 || fits_l2(s, m) || per_sm == 0 ||
      s.blocks == 0 || m.sm_count == 0)
    return 0.0;
  const double reads = double(load_dram_bytes(t, m));
  const double warps_per_block = double((s.threads_per_block + 31) / 32);
  const double warps_per_sm =
      std::min(double(s.blocks), double(m.sm_count) * per_sm) * warps_per_block / m.sm_count;
  const double per_sm_bytes =
      warps_per_sm * s.loads_in_flight * reads / double(t.global_ld_requests);
  const double gbps = dram_read_gbps(per_sm_bytes, m);
  return gbps > 0 ? reads / (gbps * 1e3) : 0.0;
}

double latency_us(const Totals& t, const LaunchShape& s, const DeviceModel& m) {
  const unsigned per_sm = resident_blocks(s, m);
  if (s.blocks == 0 || per_sm == 0) return 0.0;
  const double warps_per_block = double((s.threads_per_block + 31) / 32);
  const double warps = double(s.blocks) * warps_per_block;
  const double load_ns = t.global_ld_requests == 0 ? 0.0
                         : fits_l2(s, m)           ? m.l2_latency_ns
                                                   : m.dram_latency_ns;
  // Conflicts are the wavefronts beyond one a pass (a damaged recording may hold fewer).
  const auto extra = [](std::uint64_t w, std::uint64_t ideal) { return w > ideal ? double(w - ideal) : 0.0; };
  const double conflicts = extra(t.shared_ld_wavefronts, t.shared_ld_ideal) +
                           extra(t.shared_st_wavefronts, t.shared_st_ideal);
  // Every block resident on an SM takes its turn in each round, and its warps issue their
  // instructions between barriers through the SM's schedulers. The issue is shared by the
  // blocks an SM really holds: fewer than it could when the grid does not fill the GPU.
  const double issue_ns = t.barriers > 0 && m.schedulers_per_sm > 0 && m.sm_clock_ghz > 0
                              ? double(t.warp_instructions) / double(t.barriers) /
                                    m.schedulers_per_sm / m.sm_clock_ghz
                              : 0.0;
  const double held = m.sm_count > 0
                          ? std::min(double(per_sm), std::ceil(double(s.blocks) / m.sm_count))
                          : double(per_sm);
  const double round_ns =
      std::max({m.barrier_round_ns, double(per_sm) * warps_per_block * m.barrier_round_per_warp_ns,
                held * warps_per_block * issue_ns});
  const double path_ns = load_ns + double(t.barriers) / warps * round_ns +
                         double(s.warp_syncs) * m.warp_sync_ns +
                         (m.sm_clock_ghz > 0 ? conflicts / double(s.blocks) / m.sm_clock_ghz : 0.0);
  const double together = std::min(double(s.blocks), double(m.sm_count) * per_sm);
  return double(s.blocks) / together * path_ns / 1000.0;
}

double atomic_gups(double words, const DeviceModel& m) {
  const auto& c = m.atomic_gups_by_words;
  const double x = std::log2(std::max(words, 1.0));
  if (x <= std::log2(c.front()[0])) return c.front()[1];
  for (std::size_t i = 1; i < c.size(); ++i) {
    const double x0 = std::log2(c[i - 1][0]), x1 = std::log2(c[i][0]);
    if (x <= x1) return c[i - 1][1] + (x - x0) / (x1 - x0) * (c[i][1] - c[i - 1][1]);
  }
  return c.back()[1];
}

double atomic_us(const Totals& t, const LaunchShape& s, const DeviceModel& m) {
  const double shared_ns =
      m.sm_count == 0 ? 0.0
                      : std::max(double(t.shared_atom_requests) * m.shared_atomic_ns,
                                 double(t.shared_atom_wavefronts) * m.shared_atomic_wavefront_ns) /
                            m.sm_count;
  double global_ns = 0;
  const AtomicHeat& h = s.heat;
  if (h.known && h.global_updates > 0) {
    const double spread = double(h.global_updates) / atomic_gups(double(h.global_words), m);
    const auto word = [&](std::uint64_t requests, std::uint64_t lanes) {
      return double(requests) * m.atomic_word_request_ns +
             double(lanes - std::min(lanes, requests)) * m.atomic_word_lane_ns;
    };
    global_ns = std::max({spread, word(h.hot_lanes_requests, h.hot_lanes),
                          word(h.hot_requests, h.hot_requests_lanes)});
  }
  return std::max(shared_ns, global_ns) / 1000.0;
}

TimeParts modelled_time_parts(const Totals& t, double flops, const DeviceModel& m,
                              const LaunchShape& s) {
  TimeParts p;
  // GB/s and GFLOP/s are 1e3 bytes (FLOPs) per microsecond; GHz is 1e3 clocks per us.
  p.in_flight_us = in_flight_us(t, s, m);
  p.dram_us = std::max(m.stream_gbps > 0 ? double(dram_bytes(t, m, s)) / (m.stream_gbps * 1e3) : 0.0,
                       p.in_flight_us);
  // The tensor cores do the FLOPs of the traced mma instructions; FP32 does the rest.
  const double tensor_flops = std::min(flops, double(t.tensor_instructions) * h100::kMmaFlops);
  const double fp32_us =
      m.fp32_gflops > 0 && flops > tensor_flops ? (flops - tensor_flops) / (m.fp32_gflops * 1e3) : 0.0;
  const double tensor_us =
      m.tensor_gflops > 0 && tensor_flops > 0 ? tensor_flops / (m.tensor_gflops * 1e3) : 0.0;
  p.compute_us = std::max(fp32_us, tensor_us);
  const double sm_clocks_per_us = double(m.sm_count) * m.sm_clock_ghz * 1e3;
  // Shared memory and the L1 cache are one SRAM behind one data pipe: a shared access
  // costs its wavefronts, a global load one wavefront per 128-byte line it touches.
  const double wavefronts =
      double(t.shared_ld_wavefronts + t.shared_st_wavefronts + t.shared_ldgsts_wavefronts +
             t.global_ld_lines);
  p.l1_us = sm_clocks_per_us > 0 ? wavefronts / sm_clocks_per_us : 0.0;
  p.issue_us = sm_clocks_per_us > 0 && m.schedulers_per_sm > 0
                   ? double(t.warp_instructions) / (sm_clocks_per_us * m.schedulers_per_sm)
                   : 0.0;
  const double sector = m.sector_bytes;
  if (m.l2_read_gbps > 0) p.l2_us += sector * double(t.global_ld_sectors) / (m.l2_read_gbps * 1e3);
  if (m.l2_write_gbps > 0)
    p.l2_us += sector * double(t.global_st_sectors + t.global_red_sectors + t.global_bulk_st_sectors) /
               (m.l2_write_gbps * 1e3);
  p.latency_us = latency_us(t, s, m);
  p.atomic_us = atomic_us(t, s, m);
  p.launch_us = std::max(0.0, m.launch_overhead_us);
  if (t.global_red_requests > 0 && !s.heat.known)
    p.outside_reach = "outside the model's reach: global atomics whose spread over words is "
                      "unknown (only an emulated trace counts it)";
  else if (t.global_st_sectors > 4 * t.global_st_ideal_sectors)
    p.outside_reach = "outside the model's reach: stores that fill a quarter of each sector or "
                      "less, which the L2 merges before DRAM in a way the model does not count";
  return p;
}

double modelled_time_us(const Totals& t, double flops, const DeviceModel& m, const LaunchShape& s) {
  return modelled_time_parts(t, flops, m, s).total_us();
}

}  // namespace ws::sim
