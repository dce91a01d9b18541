#pragma once
// The model's per-access analysis, written once for the host (sim/model.cpp, the
// emulator's totals) and the device (the traced CUDA build accumulates whole-grid totals
// in device memory with it, kernels/backends/cuda/trace_session.cu). Plain C++ behind WS_HD: no
// CUDA header, no heap, no standard algorithm that the device lacks.
#include <cstdint>

#include "sim/hd.h"
#include "sim/trace.h"

namespace ws::sim {

// The unit sizes the analysis needs (DeviceModel::access() gives the Hopper values).
struct AccessModel {
  unsigned sector_bytes = 32;
  unsigned line_bytes = 128;
  unsigned shared_banks = 32;
  unsigned bank_bytes = 4;
  // What the L2 reads from DRAM for a load that misses: a whole 64-byte pair of sectors on
  // the H100 (cudaLimitMaxL2FetchGranularity reads 64 there), so a warp that uses one
  // sector of a pair still costs two in DRAM traffic (docs/CALIBRATION.md).
  unsigned fetch_bytes = 64;
  // The unit global_core counts fetches in: fetch_bytes when it is a whole number of
  // sectors above one, else a sector (a zero sector counts as one byte, as in Divider).
  WS_HD unsigned fetch_unit() const {
    const unsigned s = sector_bytes ? sector_bytes : 1;
    return fetch_bytes > s && fetch_bytes % s == 0 ? fetch_bytes : s;
  }
  // Lanes served per shared pass: 4 B accesses by the whole warp, 8 B per half-warp, 16 B
  // per quarter-warp (128 bytes of lanes a pass); see DeviceModel.
  WS_HD unsigned lanes_per_shared_pass(unsigned bytes) const {
    return bytes <= 4 ? 32 : bytes == 8 ? 16 : 8;
  }
};

// The counters of Totals as plain data, so device memory can hold them and atomics can
// add to them. Field order is the device's accumulation order (kCounterFields words).
struct Counters {
  std::uint64_t global_ld_requests = 0, global_ld_sectors = 0, global_ld_ideal_sectors = 0;
  std::uint64_t global_st_requests = 0, global_st_sectors = 0, global_st_ideal_sectors = 0;
  // Global atomics. The dialect's atomic_add returns nothing, so sm_90 compiles every one
  // to a reduction (REDG, Nsight Compute's ..._op_red), never to ATOMG (..._op_atom): the
  // recorded SASS holds the compiler to it (tests/kernels/hardware/test_sass.cpp).
  std::uint64_t global_red_requests = 0, global_red_sectors = 0;
  std::uint64_t global_bytes_requested = 0, global_bytes_moved = 0;
  std::uint64_t shared_ld_requests = 0, shared_ld_wavefronts = 0, shared_ld_ideal = 0;
  std::uint64_t shared_st_requests = 0, shared_st_wavefronts = 0, shared_st_ideal = 0;
  std::uint64_t shared_atom_requests = 0;
  std::uint64_t events = 0, active_lane_sum = 0;  // over all events
  // Issued warp instructions: 1 per traced event, n per Work event (the largest n of its
  // lanes); lane_instructions: the same counted per active lane. Their ratio is the SIMD
  // efficiency, so the work inside a divergent branch counts at its own active mask.
  std::uint64_t warp_instructions = 0, lane_instructions = 0;
  std::uint64_t branches = 0, divergent_branches = 0;
  std::uint64_t barriers = 0;
  // DRAM fetches of the loads (AccessModel::fetch_bytes each), counted per access: what
  // the modelled time streams; the hardware's L2 shares a fetch between warps.
  std::uint64_t global_ld_fetches = 0;
  // 128-byte lines the loads touch, per access: the wavefronts a load costs the L1 data
  // pipe (one per line: measured on the H100 for strides of 8, 16 and 32 floats), which
  // shared memory shares.
  std::uint64_t global_ld_lines = 0;
  // Shared atomics (ATOMS) are their own pipe operation, not shared loads: their passes,
  // counted as a load's (distinct words per bank; lanes on one word are one update).
  std::uint64_t shared_atom_wavefronts = 0;
  // cp.async (LDGSTS): its global side's requests and sectors (Nsight Compute's
  // ..._global_op_ldgsts, apart from plain loads), its shared side's wavefronts and ideal
  // passes (apart from plain stores). mma.sync: tensor-core instructions (HMMA).
  std::uint64_t global_ldgsts_requests = 0, global_ldgsts_sectors = 0;
  std::uint64_t shared_ldgsts_wavefronts = 0, shared_ldgsts_ideal = 0;
  std::uint64_t tensor_instructions = 0;
  // Bulk stores (cp.async.bulk, BulkStore), apart from the LSU's stores: the copies (one per
  // issuing lane); the sectors the copy engine sends to the L2 (bulk_store_sectors, Nsight
  // Compute's l1tex__m_l1tex2xbar_write_sectors_mem_global_op_tma_st); and the sectors each
  // copy's global range holds, what reaches DRAM once the L2 has merged a piece's halves.
  std::uint64_t global_bulk_st_copies = 0, global_bulk_st_sectors = 0, global_bulk_st_dram_sectors = 0;
};
constexpr int kCounterFields = 35;
static_assert(sizeof(Counters) == kCounterFields * sizeof(std::uint64_t),
              "Counters is a flat array of 64-bit counters");

// @post every field of `into` is increased by the same field of `o`.
WS_HD inline void add_counters(Counters& into, const Counters& o) {
  auto* a = reinterpret_cast<std::uint64_t*>(&into);
  const auto* b = reinterpret_cast<const std::uint64_t*>(&o);
  for (int i = 0; i < kCounterFields; ++i) a[i] += b[i];
}

namespace access_detail {

WS_HD inline unsigned popc(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  return unsigned(__popc(v));
#else
  return unsigned(__builtin_popcount(v));
#endif
}
template <class T>
WS_HD inline T max_of(T a, T b) { return a < b ? b : a; }
template <class T>
WS_HD inline T min_of(T a, T b) { return a < b ? a : b; }

// An inclusive range of unit numbers (sectors, lines or bank words) one lane covers.
// Counting distinct units as the size of a union of at most 32 ranges keeps the model
// free of heap allocation and correct for any access width or unit size.
struct Span {
  std::uint64_t lo, hi;
};

// Lanes are usually issued in address order, so insertion sort does ~n comparisons.
// Ties on `lo` may stay in any order: merging takes the larger `hi`.
WS_HD inline void sort_spans(Span* s, int n) {
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
WS_HD inline int merge_spans(Span* s, int n, bool* overlapped = nullptr) {
  if (n == 0) return 0;
  sort_spans(s, n);
  int out = 0;
  for (int i = 1; i < n; ++i) {
    if (s[i].lo <= s[out].hi) {
      if (overlapped) *overlapped = true;
      s[out].hi = max_of(s[out].hi, s[i].hi);
    } else if (s[i].lo == s[out].hi + 1) {
      s[out].hi = s[i].hi;  // adjacent: one range, no shared unit
    } else {
      s[++out] = s[i];
    }
  }
  return out + 1;
}

WS_HD inline std::uint64_t span_units(const Span* s, int n) {
  std::uint64_t total = 0;
  for (int i = 0; i < n; ++i) total += s[i].hi - s[i].lo + 1;
  return total;
}

// Unit sizes are powers of two on every real GPU, so division becomes a shift; the
// model is called once per warp event and a 64-bit divide per lane would dominate it.
struct Divider {
  std::uint64_t d;
  int shift;  // -1 when d is not a power of two
  WS_HD explicit Divider(std::uint64_t v) : d(v == 0 ? 1 : v), shift(-1) {
    if ((d & (d - 1)) == 0) {
      shift = 0;
      while ((std::uint64_t(1) << shift) != d) ++shift;
    }
  }
  WS_HD std::uint64_t div(std::uint64_t x) const { return shift >= 0 ? x >> shift : x / d; }
  WS_HD std::uint64_t mod(std::uint64_t x) const { return shift >= 0 ? x & (d - 1) : x % d; }
};

// Distinct groups of `per` consecutive units that sorted, disjoint ranges touch.
WS_HD inline std::uint64_t groups_touched(const Span* s, int n, const Divider& per) {
  std::uint64_t groups = 0, last = 0;
  for (int r = 0; r < n; ++r) {
    const std::uint64_t lo = per.div(s[r].lo), hi = per.div(s[r].hi);
    groups += hi - lo + 1 - (groups != 0 && lo == last);
    last = hi;
  }
  return groups;
}

// A zero-width access still names the byte at its offset, so it is drawn and counted.
WS_HD inline std::uint64_t width_of(const WarpEvent& e) {
  const std::uint64_t w = lane_bytes(e);
  return w == 0 ? 1 : w;
}

}  // namespace access_detail

struct GlobalCore {
  unsigned requests = 0, sectors = 0, lines = 0, ideal = 0;
  unsigned fetches = 0;  // distinct DRAM fetch units (AccessModel::fetch_bytes) touched
  std::uint64_t bytes_requested = 0, bytes_moved = 0;
  int sector_spans = 0;  // merged sector ranges left in the caller's buffer
};

// Sectors, lines and ideal sectors of one global access; `sec` (32 spans) receives the
// sorted, merged sector ranges.
// @post sectors == sum of the merged ranges' lengths; ideal == ceil(bytes requested /
//       sector); bytes_moved == sectors * sector; requests == (mask != 0); fetches ==
//       distinct fetch_unit()-aligned units holding a touched sector.
WS_HD inline GlobalCore global_core(const WarpEvent& e, const AccessModel& m,
                                    access_detail::Span* sec) {
  using namespace access_detail;
  GlobalCore c;
  if (e.mask == 0) return c;
  const Divider sb(m.sector_bytes), lb(m.line_bytes);
  const std::uint64_t w = width_of(e);
  // Lanes whose sectors come in address order (most accesses) are merged as they come, in
  // registers, each merged range stored once; in any other order `sec` is sorted (local
  // memory on the GPU, where sorting is a chain of dependent loads).
  int n = 0;  // in `sec`: the merged ranges so far, then (out of order) the raw spans
  bool in_order = true, started = false;
  Span cur{0, 0};
  std::uint64_t prev_lo = 0;
  for (int l = 0; l < 32; ++l) {
    if (!(e.mask >> l & 1u)) continue;
    const std::uint64_t first = lane_offset(e, unsigned(l));
    const Span s{sb.div(first), sb.div(first + w - 1)};
    if (!in_order) {
      sec[n++] = s;
      continue;
    }
    if (!started) {
      cur = s;
      started = true;
    } else if (s.lo < prev_lo) {
      in_order = false;
      sec[n++] = cur;
      sec[n++] = s;
    } else if (s.lo <= cur.hi + 1) {
      cur.hi = max_of(cur.hi, s.hi);  // overlapping or adjacent: one range
    } else {
      sec[n++] = cur;
      cur = s;
    }
    prev_lo = s.lo;
  }
  if (in_order) sec[n++] = cur;
  const unsigned active = popc(e.mask);
  c.requests = 1;
  c.sector_spans = in_order ? n : merge_spans(sec, n);
  c.sectors = unsigned(span_units(sec, c.sector_spans));
  if (lb.d % sb.d == 0) {
    // Lines hold whole sectors: the sorted, disjoint sector ranges give the lines in order.
    c.lines = unsigned(groups_touched(sec, c.sector_spans, Divider(lb.d / sb.d)));
  } else {
    Span lin[32];
    for (int i = 0, l = 0; l < 32; ++l)
      if (e.mask >> l & 1u) {
        const std::uint64_t o = lane_offset(e, unsigned(l));
        lin[i++] = {lb.div(o), lb.div(o + w - 1)};
      }
    c.lines = unsigned(span_units(lin, merge_spans(lin, int(active))));
  }
  c.fetches = unsigned(groups_touched(sec, c.sector_spans, Divider(m.fetch_unit() / sb.d)));
  c.bytes_requested = std::uint64_t(active) * lane_bytes(e);
  c.ideal = unsigned(sb.div(c.bytes_requested + sb.d - 1));
  c.bytes_moved = std::uint64_t(c.sectors) * sb.d;
  return c;
}

// A reduction (REDG) whose lanes name one address more than once is applied in passes, the
// k-th pass taking the k-th lane of each address, and the hardware counts the sectors of
// every pass (l1tex__t_sectors_pipe_lsu_mem_global_op_red). Against CUPTI's figures of the
// histograms on the H100 this rule comes within 1.7 % (distinct sectors were 10 % and 54 %
// low; docs/HARDWARE.md 8), so the rest stays "not explained".
// @post == global_core(e).sectors when no two active lanes share an offset; else the sum
//       over passes k of the distinct sectors of the lanes that are the k-th on their offset.
WS_HD inline unsigned red_sector_passes(const WarpEvent& e, const AccessModel& m) {
  using namespace access_detail;
  if (e.mask == 0) return 0;
  const Divider sb(m.sector_bytes);
  const std::uint64_t w = width_of(e);
  unsigned occ[32];
  unsigned passes = 0;
  for (int l = 0; l < 32; ++l) {
    occ[l] = 0;
    if (!(e.mask >> l & 1u)) continue;
    for (int k = 0; k < l; ++k)
      if ((e.mask >> k & 1u) && e.offset[k] == e.offset[l]) ++occ[l];
    passes = max_of(passes, occ[l] + 1);
  }
  unsigned total = 0;
  for (unsigned p = 0; p < passes; ++p) {
    Span sec[32];
    int n = 0;
    for (int l = 0; l < 32; ++l)
      if ((e.mask >> l & 1u) && occ[l] == p)
        sec[n++] = {sb.div(e.offset[l]), sb.div(e.offset[l] + w - 1)};
    total += unsigned(span_units(sec, merge_spans(sec, n)));
  }
  return total;
}

// The copy engine writes a bulk store in pieces cut where its shared source crosses a
// 128-byte line, and each piece counts the global sectors it touches: a 256-byte row whose
// shared source starts 16 bytes into a line is pieces of 112, 128 and 16 bytes, 10
// sectors, not 8. Measured on the H100 (docs/HARDWARE.md 11): Nsight Compute's
// ..._op_tma_st sectors were 1.125 x the bytes / 32 for rows skewed by 16 bytes every 4
// rows (half of them at odd 16-byte phases) and exactly bytes / 32 for aligned rows.
// @post == sum over active lanes and their pieces (cut at the source's 128-byte lines) of the global sectors a piece touches.
WS_HD inline std::uint64_t bulk_store_sectors(const WarpEvent& e, const AccessModel& m) {
  using namespace access_detail;
  const Divider sb(m.sector_bytes);
  const std::uint64_t size = lane_bytes(e);
  std::uint64_t total = 0;
  for (int l = 0; l < 32; ++l) {
    if (!(e.mask >> l & 1u) || size == 0) continue;
    std::uint64_t g = lane_offset(e, unsigned(l)), left = size;
    std::uint64_t piece = kBulkSourceLine - bulk_shared_phase(e, unsigned(l));
    while (left > 0) {
      const std::uint64_t len = min_of(piece, left);
      total += sb.div(g + len - 1) - sb.div(g) + 1;
      g += len;
      left -= len;
      piece = kBulkSourceLine;
    }
  }
  return total;
}

// The H100 serves a shared load whose lanes 2k and 2k+1 read one address (when both are
// active) as if each pair were one lane: a 16 B half-warp broadcast takes 1 wavefront,
// not 2 quarter-warp passes. Measured over 31 lane patterns of 8 B and 16 B loads
// (tests/kernels/backends/cuda/probe_shared.cu, docs/HARDWARE.md 3a); one unpaired pair anywhere
// in the warp puts the whole warp back on the unpaired passes, as measured.
// @post true iff every pair (2k, 2k+1) with both lanes active reads one offset.
WS_HD inline bool lanes_paired(const WarpEvent& e) {
  for (int l = 0; l < 32; l += 2)
    if ((e.mask >> l & 3u) == 3u && e.offset[l] != e.offset[l + 1]) return false;
  return true;
}

// Words per bank of one pass as six bit planes (bit b of plane k: bit k of bank b's count),
// so the counts stay in registers: an array indexed by bank lives in local memory on the
// GPU, where its read-modify-writes were 7.5 % of the traced matmul's stall samples. A
// disjoint range gives every bank full_rounds words, and its leftover words (fewer than
// `banks`, consecutive) fall in distinct banks: one rotated mask added to the planes. At
// most 32 ranges a pass, so a bank's leftover count is <= 32 < 2^6.
struct BankPlanes {
  std::uint32_t plane[6] = {};
  unsigned full_rounds = 0;
  WS_HD void add(const access_detail::Span& r, const access_detail::Divider& banks, std::uint64_t all) {
    const std::uint64_t count = r.hi - r.lo + 1;
    const std::uint64_t full = banks.div(count);
    full_rounds += unsigned(full);
    const std::uint64_t left = count - full * banks.d, start = banks.mod(r.lo);
    const std::uint64_t run = (std::uint64_t(1) << left) - 1;
    std::uint32_t carry = std::uint32_t(((run << start) | (run >> (banks.d - start))) & all);
    for (int k = 0; k < 6; ++k) {
      const std::uint32_t t = plane[k] & carry;
      plane[k] ^= carry;
      carry = t;
    }
  }
  // The largest leftover count over the banks in `all`.
  WS_HD unsigned most(std::uint64_t all) const {
    unsigned m = 0;
    std::uint32_t cand = std::uint32_t(all);
    for (int k = 5; k >= 0; --k)
      if (plane[k] & cand) {
        m |= 1u << k;
        cand &= plane[k];
      }
    return m;
  }
  WS_HD unsigned words(unsigned b) const {
    unsigned v = 0;
    for (int k = 0; k < 6; ++k) v |= ((plane[k] >> b) & 1u) << k;
    return v;
  }
};

struct SharedCore {
  unsigned wavefronts = 0, ideal = 0, max_degree = 0;
  bool broadcast = false;
};

// Per-lane banks and per-bank word counts, for the maps (analyze_shared); optional.
struct SharedDetail {
  std::int32_t* lane_bank;   // 32 entries
  unsigned* bank_words;      // 32 entries
};

// Passes are runs of lanes_per_shared_pass(bytes) consecutive lanes, of twice that for a
// SharedLoad whose active lane pairs each read one offset (capped at 32).
// @post wavefronts = sum over passes with an active lane of max(1, most distinct words
//       one bank serves); ideal = number of those passes.
WS_HD inline SharedCore shared_core(const WarpEvent& e, const AccessModel& m,
                                    const SharedDetail* detail = nullptr) {
  using namespace access_detail;
  SharedCore c;
  // The result arrays hold 32 banks, so a model with more banks is analysed as 32.
  const unsigned nbanks = min_of(max_of(m.shared_banks, 1u), 32u);
  const Divider banks(nbanks);
  const Divider bb(m.bank_bytes);
  unsigned per_pass = min_of(max_of(m.lanes_per_shared_pass(e.bytes), 1u), 32u);
  if (per_pass < 32 && e.kind == EventKind::SharedLoad && lanes_paired(e))
    per_pass = min_of(32u, 2 * per_pass);
  const std::uint64_t w = width_of(e);
  const std::uint64_t all = banks.d >= 32 ? 0xFFFFFFFFull : (std::uint64_t(1) << banks.d) - 1;
  for (unsigned first = 0; first < 32; first += per_pass) {
    const unsigned end = min_of(32u, first + per_pass);
    // Distinct words are what a bank serves: lanes sharing a word are one broadcast. Lanes
    // whose words come in address order (most accesses) are merged as they come, in
    // registers; any other order is sorted in `words` first (local memory on the GPU, where
    // the sort was 10 % of the traced matmul's stall samples).
    Span words[32];
    int n = 0;
    BankPlanes planes;
    bool in_order = true, overlap = false;
    Span cur{0, 0};
    std::uint64_t prev_lo = 0;
    for (unsigned l = first; l < end; ++l) {
      if (!(e.mask >> l & 1u)) continue;
      const std::uint64_t lo = bb.div(e.offset[l]), hi = bb.div(e.offset[l] + w - 1);
      words[n++] = {lo, hi};
      if (detail) detail->lane_bank[l] = std::int32_t(banks.mod(lo));
      if (!in_order) continue;
      if (n == 1) {
        cur = {lo, hi};
      } else if (lo < prev_lo) {
        in_order = false;
      } else if (lo <= cur.hi) {
        overlap = true;
        cur.hi = max_of(cur.hi, hi);
      } else if (lo == cur.hi + 1) {
        cur.hi = hi;  // adjacent: one range, no shared word
      } else {
        planes.add(cur, banks, all);
        cur = {lo, hi};
      }
      prev_lo = lo;
    }
    if (n == 0) continue;
    if (in_order) {
      planes.add(cur, banks, all);
      c.broadcast = c.broadcast || overlap;
    } else {
      planes = BankPlanes{};
      const int ranges = merge_spans(words, n, &c.broadcast);
      for (int r = 0; r < ranges; ++r) planes.add(words[r], banks, all);
    }
    const unsigned full_rounds = planes.full_rounds;
    unsigned degree = planes.most(all);  // the most words one bank serves
    degree += full_rounds;
    if (detail)
      for (std::uint64_t b = 0; b < banks.d; ++b)
        detail->bank_words[b] = max_of(detail->bank_words[b], planes.words(unsigned(b)) + full_rounds);
    c.max_degree = max_of(c.max_degree, degree);
    c.wavefronts += max_of(1u, degree);
    c.ideal += 1;
  }
  return c;
}

// The passes of a shared atomic whose value varies per lane (kEventVaryingAtomic): lanes
// that name one word are not combined, so within each pass of lanes a bank serves one
// lane at a time, and the pass takes as many wavefronts as its busiest bank has lanes.
// (An atomic adding the constant 1 is shared_core's count: lanes on one word are one
// update.) 32 lanes on one word: 32 wavefronts; 32 lanes on 32 banks: 1.
// @post == sum over passes with an active lane of max(1, most active lanes on one bank);
//       >= shared_core(e, m).wavefronts for a 4-byte access.
WS_HD inline std::uint64_t varying_atomic_wavefronts(const WarpEvent& e, const AccessModel& m) {
  using namespace access_detail;
  const unsigned nbanks = min_of(max_of(m.shared_banks, 1u), 32u);
  const Divider banks(nbanks);
  const Divider bb(m.bank_bytes);
  const unsigned per_pass = min_of(max_of(m.lanes_per_shared_pass(e.bytes), 1u), 32u);
  std::uint64_t wavefronts = 0;
  for (unsigned first = 0; first < 32; first += per_pass) {
    const unsigned end = min_of(32u, first + per_pass);
    unsigned on_bank[32] = {};
    unsigned most = 0;
    for (unsigned l = first; l < end; ++l) {
      if (!(e.mask >> l & 1u)) continue;
      const unsigned b = unsigned(banks.mod(bb.div(e.offset[l])));
      most = max_of(most, ++on_bank[b]);
    }
    if (most) wavefronts += most;
  }
  return wavefronts;
}

// The warp instructions one event stands for: a Work event (t.work(n)) the largest n of
// its active lanes (the warp issues until its longest lane is done), any other event 1.
// @post 0 when e.mask == 0; == 1 for a non-Work event with lanes.
WS_HD inline std::uint64_t event_warp_instructions(const WarpEvent& e) {
  if (e.mask == 0) return 0;
  if (e.kind != EventKind::Work) return 1;
  std::uint32_t most = 0;
  for (int l = 0; l < 32; ++l)
    if (e.mask >> l & 1u) most = access_detail::max_of(most, e.offset[l]);
  return most;
}
// The same per active lane: the lanes' counts of a Work event summed, else popcount(mask).
// @post == popcount(mask) for a non-Work event; <= 32 * event_warp_instructions(e).
WS_HD inline std::uint64_t event_lane_instructions(const WarpEvent& e) {
  if (e.kind != EventKind::Work) return access_detail::popc(e.mask);
  std::uint64_t sum = 0;
  for (int l = 0; l < 32; ++l)
    if (e.mask >> l & 1u) sum += e.offset[l];
  return sum;
}

// What one warp event adds to the counters: the one definition of Totals::add, used by
// the host model and by the traced CUDA build.
// @post events grows by 1, active_lane_sum by popcount(mask), warp_instructions and
//       lane_instructions by event_warp_instructions and event_lane_instructions; a global
//       access adds its global_core counts to its kind's fields (a reduction its
//       red_sector_passes for sectors; a load its fetches and
//       lines too),
//       a shared load/store its shared_core wavefronts and ideal passes (a shared atomic its
//       wavefronts; one with kEventVaryingAtomic its varying_atomic_wavefronts), cp.async's sides (AsyncLoad, AsyncStore) the ldgsts fields alone, a
//       BulkStore its active lanes as copies, bulk_store_sectors as sectors (and bytes
//       moved) and global_core's sectors as DRAM sectors, an
//       Mma one tensor instruction, a Branch counts
//       divergent when its taken lanes are neither none nor all of the mask.
WS_HD inline void count_event(const WarpEvent& e, const AccessModel& m, Counters& t) {
  ++t.events;
  t.active_lane_sum += access_detail::popc(e.mask);
  t.warp_instructions += event_warp_instructions(e);
  t.lane_instructions += event_lane_instructions(e);
  const std::uint64_t issued = e.mask != 0;
  if (is_global(e.kind)) {
    access_detail::Span sec[32];
    const GlobalCore c = global_core(e, m, sec);
    t.global_bytes_requested += c.bytes_requested;
    if (e.kind == EventKind::BulkStore) {
      // The copy engine's pieces, not the union of the lanes' sectors (global_core's, drawn).
      const std::uint64_t sectors = bulk_store_sectors(e, m);
      t.global_bulk_st_copies += access_detail::popc(e.mask);
      t.global_bulk_st_sectors += sectors;
      t.global_bulk_st_dram_sectors += c.sectors;
      t.global_bytes_moved += sectors * m.sector_bytes;
      return;
    }
    t.global_bytes_moved += c.bytes_moved;
    if (e.kind == EventKind::AsyncLoad) {
      // Its DRAM fetches and L1 lines are a load's (the modelled time streams them); its
      // requests and sectors are counted apart, as Nsight Compute does.
      t.global_ld_fetches += c.fetches;
      t.global_ld_lines += c.lines;
      t.global_ldgsts_requests += c.requests;
      t.global_ldgsts_sectors += c.sectors;
    } else if (e.kind == EventKind::GlobalLoad) {
      t.global_ld_fetches += c.fetches;
      t.global_ld_lines += c.lines;
      t.global_ld_requests += c.requests;
      t.global_ld_sectors += c.sectors;
      t.global_ld_ideal_sectors += c.ideal;
    } else if (e.kind == EventKind::GlobalStore) {
      t.global_st_requests += c.requests;
      t.global_st_sectors += c.sectors;
      t.global_st_ideal_sectors += c.ideal;
    } else {
      t.global_red_requests += c.requests;
      t.global_red_sectors += red_sector_passes(e, m);
    }
    return;
  }
  switch (e.kind) {
    case EventKind::SharedLoad: {
      const SharedCore c = shared_core(e, m);
      t.shared_ld_requests += issued;
      t.shared_ld_wavefronts += c.wavefronts;
      t.shared_ld_ideal += c.ideal;
      break;
    }
    case EventKind::SharedStore: {
      const SharedCore c = shared_core(e, m);
      t.shared_st_requests += issued;
      t.shared_st_wavefronts += c.wavefronts;
      t.shared_st_ideal += c.ideal;
      break;
    }
    case EventKind::SharedAtomic: {
      t.shared_atom_requests += issued;
      t.shared_atom_wavefronts += (e.flags & kEventVaryingAtomic) ? varying_atomic_wavefronts(e, m)
                                                                  : shared_core(e, m).wavefronts;
      break;
    }
    case EventKind::AsyncStore: {
      const SharedCore c = shared_core(e, m);
      t.shared_ldgsts_wavefronts += c.wavefronts;
      t.shared_ldgsts_ideal += c.ideal;
      break;
    }
    case EventKind::Mma: t.tensor_instructions += issued; break;
    case EventKind::Branch: {
      ++t.branches;
      const std::uint32_t taken = e.ballot & e.mask;
      if (taken != 0 && taken != e.mask) ++t.divergent_branches;
      break;
    }
    case EventKind::Barrier: ++t.barriers; break;
    default: break;
  }
}

// The key of a source site's counters: line, array and kind (the traced build's
// scheduler key). Accesses sharing a line are told apart by array and kind.
WS_HD constexpr std::uint32_t site_key(std::uint16_t line, std::uint8_t array, EventKind kind) {
  return (std::uint32_t(line) << 16) | (std::uint32_t(array) << 8) | std::uint32_t(kind);
}

}  // namespace ws::sim
