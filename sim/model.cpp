#include "sim/model.h"

#include <algorithm>
#include <bit>

namespace ws::sim {

namespace {

// An inclusive range of unit numbers (sectors, lines or bank words) one lane covers.
// Counting distinct units as the size of a union of at most 32 ranges keeps the model
// free of heap allocation and correct for any access width or unit size.
struct Span {
  std::uint64_t lo, hi;
};

// Lanes are usually issued in address order, so insertion sort does ~n comparisons.
// Ties on `lo` may stay in any order: merging takes the larger `hi`.
void sort_spans(Span* s, int n) {
  for (int i = 1; i < n; ++i) {
    const Span v = s[i];
    int j = i - 1;
    while (j >= 0 && s[j].lo > v.lo) {
      s[j + 1] = s[j];
      --j;
    }
    s[j + 1] = v;
  }
}

// Sorts the spans and merges them in place into disjoint ranges; returns how many.
// `overlapped` is set when two spans share a unit.
int merge_spans(Span* s, int n, bool* overlapped = nullptr) {
  if (n == 0) return 0;
  sort_spans(s, n);
  int out = 0;
  for (int i = 1; i < n; ++i) {
    if (s[i].lo <= s[out].hi) {
      if (overlapped) *overlapped = true;
      s[out].hi = std::max(s[out].hi, s[i].hi);
    } else if (s[i].lo == s[out].hi + 1) {
      s[out].hi = s[i].hi;  // adjacent: one range, no shared unit
    } else {
      s[++out] = s[i];
    }
  }
  return out + 1;
}

std::uint64_t span_units(const Span* s, int n) {
  std::uint64_t total = 0;
  for (int i = 0; i < n; ++i) total += s[i].hi - s[i].lo + 1;
  return total;
}

// Unit sizes are powers of two on every real GPU, so division becomes a shift; the
// model is called once per warp event and a 64-bit divide per lane would dominate it.
struct Divider {
  std::uint64_t d;
  int shift;  // -1 when d is not a power of two
  explicit Divider(std::uint64_t v)
      : d(v == 0 ? 1 : v), shift(std::has_single_bit(d) ? std::countr_zero(d) : -1) {}
  std::uint64_t div(std::uint64_t x) const { return shift >= 0 ? x >> shift : x / d; }
  std::uint64_t mod(std::uint64_t x) const { return shift >= 0 ? x & (d - 1) : x % d; }
};

// A zero-width access still names the byte at its offset, so it is drawn and counted.
std::uint64_t width_of(const WarpEvent& e) { return e.bytes == 0 ? 1 : e.bytes; }

struct GlobalCore {
  unsigned requests = 0, sectors = 0, lines = 0, ideal = 0;
  std::uint64_t bytes_requested = 0, bytes_moved = 0;
  int sector_spans = 0;  // merged sector ranges left in the caller's buffer
};

GlobalCore global_core(const WarpEvent& e, const DeviceModel& m, Span* sec) {
  GlobalCore c;
  if (e.mask == 0) return c;
  const Divider sb(m.sector_bytes), lb(m.line_bytes);
  const std::uint64_t w = width_of(e);
  int n = 0;
  for (int l = 0; l < 32; ++l) {
    if (!(e.mask >> l & 1u)) continue;
    const std::uint64_t first = e.offset[l];
    sec[n++] = {sb.div(first), sb.div(first + w - 1)};
  }
  const unsigned active = unsigned(std::popcount(e.mask));
  c.requests = 1;
  c.sector_spans = merge_spans(sec, n);
  c.sectors = unsigned(span_units(sec, c.sector_spans));
  if (lb.d % sb.d == 0) {
    // Lines hold whole sectors: the sorted, disjoint sector ranges give the lines in order.
    const Divider per_line(lb.d / sb.d);
    std::uint64_t last_line = 0;
    for (int r = 0; r < c.sector_spans; ++r) {
      const std::uint64_t lo = per_line.div(sec[r].lo), hi = per_line.div(sec[r].hi);
      c.lines += unsigned(hi - lo + 1) - (c.lines != 0 && lo == last_line);
      last_line = hi;
    }
  } else {
    Span lin[32];
    for (int i = 0, l = 0; l < 32; ++l)
      if (e.mask >> l & 1u) lin[i++] = {lb.div(e.offset[l]), lb.div(e.offset[l] + w - 1)};
    c.lines = unsigned(span_units(lin, merge_spans(lin, n)));
  }
  c.bytes_requested = std::uint64_t(active) * e.bytes;
  c.ideal = unsigned(sb.div(c.bytes_requested + sb.d - 1));
  c.bytes_moved = std::uint64_t(c.sectors) * sb.d;
  return c;
}

// The H100 serves a shared load whose lanes 2k and 2k+1 read one address (when both are
// active) as if each pair were one lane: a 16 B half-warp broadcast takes 1 wavefront,
// not 2 quarter-warp passes. Measured over 31 lane patterns of 8 B and 16 B loads
// (tests/kernels/cuda/probe_shared.cu, docs/HARDWARE.md 3a); one unpaired pair anywhere
// in the warp puts the whole warp back on the unpaired passes, as measured.
bool lanes_paired(const WarpEvent& e) {
  for (int l = 0; l < 32; l += 2)
    if ((e.mask >> l & 3u) == 3u && e.offset[l] != e.offset[l + 1]) return false;
  return true;
}

struct SharedCore {
  unsigned wavefronts = 0, ideal = 0, max_degree = 0;
  bool broadcast = false;
};

// `detail`, when given, also receives the per-lane banks and per-bank word counts.
SharedCore shared_core(const WarpEvent& e, const DeviceModel& m, SharedAccess* detail) {
  SharedCore c;
  // The result arrays hold 32 banks, so a model with more banks is analysed as 32.
  const Divider banks(std::clamp(m.shared_banks, 1u, 32u));
  const Divider bb(m.bank_bytes);
  unsigned per_pass = std::clamp(m.lanes_per_shared_pass(e.bytes), 1u, 32u);
  if (per_pass < 32 && e.kind == EventKind::SharedLoad && lanes_paired(e))
    per_pass = std::min(32u, 2 * per_pass);
  const std::uint64_t w = width_of(e);
  for (unsigned first = 0; first < 32; first += per_pass) {
    const unsigned end = std::min(32u, first + per_pass);
    Span words[32];
    int n = 0;
    for (unsigned l = first; l < end; ++l) {
      if (!(e.mask >> l & 1u)) continue;
      const std::uint64_t lo = bb.div(e.offset[l]), hi = bb.div(e.offset[l] + w - 1);
      words[n++] = {lo, hi};
      if (detail) detail->lane_bank[l] = std::int32_t(banks.mod(lo));
    }
    if (n == 0) continue;
    // Distinct words are what a bank serves: lanes sharing a word are one broadcast.
    const int ranges = merge_spans(words, n, &c.broadcast);
    unsigned per_bank[32] = {};
    for (int r = 0; r < ranges; ++r) {
      const std::uint64_t count = words[r].hi - words[r].lo + 1;
      const std::uint64_t full = banks.div(count);
      if (full)
        for (std::uint64_t b = 0; b < banks.d; ++b) per_bank[b] += unsigned(full);
      for (std::uint64_t wd = words[r].lo + full * banks.d; wd <= words[r].hi; ++wd)
        ++per_bank[banks.mod(wd)];
    }
    unsigned degree = 0;
    for (std::uint64_t b = 0; b < banks.d; ++b) {
      degree = std::max(degree, per_bank[b]);
      if (detail) detail->bank_words[b] = std::max(detail->bank_words[b], per_bank[b]);
    }
    c.max_degree = std::max(c.max_degree, degree);
    c.wavefronts += std::max(1u, degree);
    c.ideal += 1;
  }
  return c;
}

double ratio(std::uint64_t num, std::uint64_t den) {
  return den == 0 ? 0.0 : double(num) / double(den);
}

}  // namespace

GlobalAccess analyze_global(const WarpEvent& e, const DeviceModel& m) {
  GlobalAccess g;
  g.lane_sector.fill(-1);
  Span sec[32];
  const GlobalCore c = global_core(e, m, sec);
  g.requests = c.requests;
  g.sectors = c.sectors;
  g.lines = c.lines;
  g.ideal_sectors = c.ideal;
  g.bytes_requested = c.bytes_requested;
  g.bytes_moved = c.bytes_moved;
  g.sector_ids.reserve(c.sectors);
  for (int r = 0; r < c.sector_spans; ++r)
    for (std::uint64_t s = sec[r].lo; s <= sec[r].hi; ++s) g.sector_ids.push_back(s);
  const Divider sb(m.sector_bytes);
  for (int l = 0; l < 32; ++l) {
    if (!(e.mask >> l & 1u)) continue;
    const auto it = std::lower_bound(g.sector_ids.begin(), g.sector_ids.end(), sb.div(e.offset[l]));
    g.lane_sector[l] = std::int32_t(it - g.sector_ids.begin());
  }
  return g;
}

SharedAccess analyze_shared(const WarpEvent& e, const DeviceModel& m) {
  SharedAccess s;
  s.lane_bank.fill(-1);
  s.bank_words.fill(0);
  const SharedCore c = shared_core(e, m, &s);
  s.wavefronts = c.wavefronts;
  s.ideal_wavefronts = c.ideal;
  s.conflicts = c.wavefronts - c.ideal;
  s.max_degree = c.max_degree;
  s.broadcast = c.broadcast;
  return s;
}

void Totals::add(const WarpEvent& e, const DeviceModel& m) {
  ++events;
  active_lane_sum += unsigned(std::popcount(e.mask));
  const std::uint64_t issued = e.mask != 0;
  if (is_global(e.kind)) {
    Span sec[32];
    const GlobalCore c = global_core(e, m, sec);
    global_bytes_requested += c.bytes_requested;
    global_bytes_moved += c.bytes_moved;
    if (e.kind == EventKind::GlobalLoad) {
      global_ld_requests += c.requests;
      global_ld_sectors += c.sectors;
      global_ld_ideal_sectors += c.ideal;
    } else if (e.kind == EventKind::GlobalStore) {
      global_st_requests += c.requests;
      global_st_sectors += c.sectors;
      global_st_ideal_sectors += c.ideal;
    } else {
      global_atom_requests += c.requests;
      global_atom_sectors += c.sectors;
    }
    return;
  }
  switch (e.kind) {
    case EventKind::SharedLoad: {
      const SharedCore c = shared_core(e, m, nullptr);
      shared_ld_requests += issued;
      shared_ld_wavefronts += c.wavefronts;
      shared_ld_ideal += c.ideal;
      break;
    }
    case EventKind::SharedStore: {
      const SharedCore c = shared_core(e, m, nullptr);
      shared_st_requests += issued;
      shared_st_wavefronts += c.wavefronts;
      shared_st_ideal += c.ideal;
      break;
    }
    case EventKind::SharedAtomic: shared_atom_requests += issued; break;
    case EventKind::Branch: {
      ++branches;
      if (diverged(e)) ++divergent_branches;
      break;
    }
    case EventKind::Barrier: ++barriers; break;
    default: break;
  }
}

void Totals::merge(const Totals& o) {
  global_ld_requests += o.global_ld_requests;
  global_ld_sectors += o.global_ld_sectors;
  global_ld_ideal_sectors += o.global_ld_ideal_sectors;
  global_st_requests += o.global_st_requests;
  global_st_sectors += o.global_st_sectors;
  global_st_ideal_sectors += o.global_st_ideal_sectors;
  global_atom_requests += o.global_atom_requests;
  global_atom_sectors += o.global_atom_sectors;
  global_bytes_requested += o.global_bytes_requested;
  global_bytes_moved += o.global_bytes_moved;
  shared_ld_requests += o.shared_ld_requests;
  shared_ld_wavefronts += o.shared_ld_wavefronts;
  shared_ld_ideal += o.shared_ld_ideal;
  shared_st_requests += o.shared_st_requests;
  shared_st_wavefronts += o.shared_st_wavefronts;
  shared_st_ideal += o.shared_st_ideal;
  shared_atom_requests += o.shared_atom_requests;
  events += o.events;
  active_lane_sum += o.active_lane_sum;
  branches += o.branches;
  divergent_branches += o.divergent_branches;
  barriers += o.barriers;
}

double Totals::simd_efficiency() const {
  return events == 0 ? 1.0 : double(active_lane_sum) / (32.0 * double(events));
}

std::map<std::string, double> Totals::ncu() const {
  return {
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", double(global_ld_requests)},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", double(global_st_requests)},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", double(global_ld_sectors)},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", double(global_st_sectors)},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", double(global_atom_requests)},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", double(global_atom_sectors)},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", double(shared_ld_wavefronts)},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", double(shared_st_wavefronts)},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", double(shared_ld_conflicts())},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", double(shared_st_conflicts())},
      {"smsp__sass_inst_executed_op_shared_ld.sum", double(shared_ld_requests)},
      {"smsp__sass_inst_executed_op_shared_st.sum", double(shared_st_requests)},
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

double MaskHistory::simd_efficiency() const {
  if (masks.empty()) return 1.0;
  std::uint64_t lanes = 0;
  for (std::uint32_t mk : masks) lanes += unsigned(std::popcount(mk));
  return double(lanes) / (32.0 * double(masks.size()));
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
  }
  return h;
}

double modelled_time_us(const Totals& t, double flops, const DeviceModel& m) {
  // GB/s and GFLOP/s are 1e3 bytes (FLOPs) per microsecond.
  const double memory_us =
      m.dram_gbps > 0 ? double(t.global_bytes_moved) / (m.dram_gbps * 1e3) : 0.0;
  const double compute_us = m.fp32_gflops > 0 && flops > 0 ? flops / (m.fp32_gflops * 1e3) : 0.0;
  const double wavefronts = double(t.shared_ld_wavefronts + t.shared_st_wavefronts);
  const double shared_us = m.sm_count > 0 && m.sm_clock_ghz > 0
                               ? wavefronts / (double(m.sm_count) * m.sm_clock_ghz * 1e3)
                               : 0.0;
  return std::max({memory_us, compute_us, shared_us}) + std::max(0.0, m.launch_overhead_us);
}

}  // namespace ws::sim
