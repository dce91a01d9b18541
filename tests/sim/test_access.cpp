// The per-access analysis shared by host and device (sim/access.h) held to the model's
// contracts, and the input generator (sim/inputs.h).
#include "sim/access.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>

#include "sim/inputs.h"
#include "sim/model.h"

namespace ws::sim {
namespace {

WarpEvent random_event(std::mt19937& rng, EventKind kind) {
  WarpEvent e;
  e.kind = kind;
  const unsigned widths[] = {1, 2, 4, 8, 16};
  e.bytes = std::uint8_t(widths[rng() % 5]);
  e.mask = rng() % 4 == 0 ? 0xFFFFFFFFu : std::uint32_t(rng());
  if (e.mask == 0) e.mask = 1;
  const unsigned pattern = rng() % 4;
  const std::uint32_t stride = 1u << (rng() % 8);
  for (unsigned l = 0; l < 32; ++l) {
    if (!(e.mask >> l & 1u)) continue;
    std::uint32_t off = 0;
    switch (pattern) {
      case 0: off = l * e.bytes; break;                        // coalesced
      case 1: off = l * stride * e.bytes; break;               // strided
      case 2: off = (l / 2) * e.bytes; break;                  // pairs on one address
      default: off = std::uint32_t(rng() % 4096) * e.bytes;    // scattered
    }
    e.offset[l] = off;
  }
  return e;
}

TEST(Access, CountEventMatchesTheAnalysesOfOneAccess) {
  std::mt19937 rng(7);
  const DeviceModel m;
  for (int i = 0; i < 2000; ++i) {
    for (EventKind k : {EventKind::GlobalLoad, EventKind::GlobalStore, EventKind::SharedLoad,
                        EventKind::SharedStore}) {
      const WarpEvent e = random_event(rng, k);
      Counters c;
      count_event(e, m.access(), c);
      EXPECT_EQ(c.events, 1u);
      EXPECT_EQ(c.active_lane_sum, unsigned(__builtin_popcount(e.mask)));
      if (is_global(k)) {
        const GlobalAccess g = analyze_global(e, m);
        const bool ld = k == EventKind::GlobalLoad;
        EXPECT_EQ(ld ? c.global_ld_sectors : c.global_st_sectors, g.sectors);
        EXPECT_EQ(ld ? c.global_ld_ideal_sectors : c.global_st_ideal_sectors, g.ideal_sectors);
        EXPECT_EQ(ld ? c.global_ld_requests : c.global_st_requests, 1u);
        EXPECT_EQ(c.global_bytes_moved, 32u * g.sectors);  // @post bytes_moved == 32 sectors
        EXPECT_EQ(g.sectors, g.sector_ids.size());
      } else {
        const SharedAccess s = analyze_shared(e, m);
        const bool ld = k == EventKind::SharedLoad;
        EXPECT_EQ(ld ? c.shared_ld_wavefronts : c.shared_st_wavefronts, s.wavefronts);
        EXPECT_EQ(ld ? c.shared_ld_ideal : c.shared_st_ideal, s.ideal_wavefronts);
        EXPECT_EQ(s.conflicts, s.wavefronts - s.ideal_wavefronts);
      }
    }
  }
}

TEST(Access, GlobalCoreContract) {
  // 32 lanes, 4 bytes apart: 4 sectors, 1 line, 4 ideal.
  WarpEvent e;
  e.kind = EventKind::GlobalLoad;
  e.bytes = 4;
  e.mask = 0xFFFFFFFFu;
  for (int l = 0; l < 32; ++l) e.offset[l] = std::uint32_t(4 * l);
  access_detail::Span sec[32];
  GlobalCore c = global_core(e, AccessModel{}, sec);
  EXPECT_EQ(c.requests, 1u);
  EXPECT_EQ(c.sectors, 4u);
  EXPECT_EQ(c.lines, 1u);
  EXPECT_EQ(c.ideal, 4u);
  // Strided by 128 bytes: a sector and a line per lane, still 4 ideal.
  for (int l = 0; l < 32; ++l) e.offset[l] = std::uint32_t(128 * l);
  c = global_core(e, AccessModel{}, sec);
  EXPECT_EQ(c.sectors, 32u);
  EXPECT_EQ(c.lines, 32u);
  EXPECT_EQ(c.ideal, 4u);
  e.mask = 0;
  c = global_core(e, AccessModel{}, sec);
  EXPECT_EQ(c.requests, 0u);  // @post requests == (mask != 0)
}

TEST(Access, SharedCoreKeepsTheMeasuredPairRule) {
  WarpEvent e;
  e.kind = EventKind::SharedLoad;
  e.bytes = 16;
  e.mask = 0xFFFFFFFFu;
  // Lanes 2k and 2k+1 read one 16-byte word, 16 distinct words: one half-warp pass
  // covers 16 lanes = 8 words = all 32 banks once, so 2 wavefronts, none a conflict.
  for (int l = 0; l < 32; ++l) e.offset[l] = std::uint32_t(16 * (l / 2));
  EXPECT_TRUE(lanes_paired(e));
  SharedCore c = shared_core(e, AccessModel{});
  EXPECT_EQ(c.ideal, 2u);
  EXPECT_EQ(c.wavefronts, 2u);
  // A store takes no pairing: quarter-warp passes.
  e.kind = EventKind::SharedStore;
  c = shared_core(e, AccessModel{});
  EXPECT_EQ(c.ideal, 4u);
  // One unpaired pair puts the whole load back on quarter-warp passes.
  e.kind = EventKind::SharedLoad;
  e.offset[1] = 512;
  EXPECT_FALSE(lanes_paired(e));
  c = shared_core(e, AccessModel{});
  EXPECT_EQ(c.ideal, 4u);
  // A 4-byte column of a 32-float tile: one pass, a 32-way conflict.
  e.bytes = 4;
  for (int l = 0; l < 32; ++l) e.offset[l] = std::uint32_t(128 * l);
  c = shared_core(e, AccessModel{});
  EXPECT_EQ(c.ideal, 1u);
  EXPECT_EQ(c.wavefronts, 32u);
}

// `+= 1` on shared memory compiles to ATOMS.POPC.INC: lanes on one word are one update.
// A varying value (a weight) compiles to ATOMS.ADD: they serialise (kEventVaryingAtomic).
TEST(Access, VaryingSharedAtomicsSerialiseTheLanesOfOneWord) {
  WarpEvent e;
  e.kind = EventKind::SharedAtomic;
  e.bytes = 4;
  e.mask = 0xFFFFFFFFu;
  auto wavefronts = [&](std::uint8_t flags) {
    e.flags = flags;
    Counters c;
    count_event(e, AccessModel{}, c);
    EXPECT_EQ(c.shared_atom_requests, 1u);
    return c.shared_atom_wavefronts;
  };
  for (int l = 0; l < 32; ++l) e.offset[l] = 64;  // every lane on one word (one bin)
  EXPECT_EQ(wavefronts(0), 1u);
  EXPECT_EQ(wavefronts(kEventVaryingAtomic), 32u);
  EXPECT_EQ(varying_atomic_wavefronts(e, AccessModel{}), 32u);
  for (int l = 0; l < 32; ++l) e.offset[l] = std::uint32_t(4 * l);  // 32 banks
  EXPECT_EQ(wavefronts(0), 1u);
  EXPECT_EQ(wavefronts(kEventVaryingAtomic), 1u);
  // Half the lanes on one word, half on another word of the same bank: 2 words for the
  // constant (a 2-way conflict), 32 lanes one after another for the weights.
  for (int l = 0; l < 32; ++l) e.offset[l] = l < 16 ? 0u : 128u;
  EXPECT_EQ(wavefronts(0), 2u);
  EXPECT_EQ(wavefronts(kEventVaryingAtomic), 32u);
  // Lanes 0-7 on bank 0, the rest on banks of their own: the busiest bank sets the passes.
  for (int l = 0; l < 32; ++l) e.offset[l] = l < 8 ? 0u : std::uint32_t(4 * l);
  EXPECT_EQ(wavefronts(kEventVaryingAtomic), 8u);
  e.mask = 0;
  EXPECT_EQ(varying_atomic_wavefronts(e, AccessModel{}), 0u);
}

// The L2 reads DRAM in 64-byte pairs of sectors: lanes 64 bytes apart (a stride of 16
// floats) fetch a pair each for the one sector they use; a coalesced warp fetches its two
// pairs; a warp shifted by one float spans three pairs. Measured on the H100 with Nsight
// Compute (docs/CALIBRATION.md): stride 16 reads twice its sectors' bytes from DRAM.
TEST(Access, GlobalCoreCountsDramFetchesOfSectorPairs) {
  WarpEvent e;
  e.kind = EventKind::GlobalLoad;
  e.bytes = 4;
  e.mask = 0xFFFFFFFFu;
  access_detail::Span sec[32];
  for (int l = 0; l < 32; ++l) e.offset[l] = std::uint32_t(64 * l);
  GlobalCore c = global_core(e, AccessModel{}, sec);
  EXPECT_EQ(c.sectors, 32u);
  EXPECT_EQ(c.fetches, 32u);
  for (int l = 0; l < 32; ++l) e.offset[l] = std::uint32_t(4 * l);
  c = global_core(e, AccessModel{}, sec);
  EXPECT_EQ(c.sectors, 4u);
  EXPECT_EQ(c.fetches, 2u);
  for (int l = 0; l < 32; ++l) e.offset[l] = std::uint32_t(4 * (l + 1));
  c = global_core(e, AccessModel{}, sec);
  EXPECT_EQ(c.sectors, 5u);
  EXPECT_EQ(c.fetches, 3u);
  AccessModel sector_fetch;
  sector_fetch.fetch_bytes = 32;
  for (int l = 0; l < 32; ++l) e.offset[l] = std::uint32_t(64 * l);
  EXPECT_EQ(global_core(e, sector_fetch, sec).fetches, 32u);
  sector_fetch.fetch_bytes = 48;  // not whole sectors: one fetch per sector
  EXPECT_EQ(sector_fetch.fetch_unit(), 32u);
  AccessModel no_sector;  // nonsense sizes do not divide by zero
  no_sector.sector_bytes = 0;
  no_sector.fetch_bytes = 0;
  EXPECT_EQ(no_sector.fetch_unit(), 1u);
  // Loads count their fetches and lines; stores do not.
  Counters t;
  count_event(e, AccessModel{}, t);
  EXPECT_EQ(t.global_ld_fetches, 32u);
  EXPECT_EQ(t.global_ld_lines, global_core(e, AccessModel{}, sec).lines);
  const std::uint64_t lines = t.global_ld_lines;
  e.kind = EventKind::GlobalStore;
  count_event(e, AccessModel{}, t);
  EXPECT_EQ(t.global_ld_fetches, 32u);
  EXPECT_EQ(t.global_ld_lines, lines);
}

// global_core's contract against sets of sectors and lines, for lanes in address order
// (merged as they come) and in any order (sorted), with line sizes that hold whole sectors
// and ones that do not.
TEST(Access, GlobalCoreEqualsDistinctSectorsAndLines) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 4000; ++trial) {
    AccessModel m;
    m.sector_bytes = (rng() % 4) ? 32 : 24;
    m.line_bytes = (rng() % 3) ? 128 : 96;
    const unsigned fetches[] = {64, 128, 32, 48};
    m.fetch_bytes = fetches[rng() % 4];
    WarpEvent e;
    e.kind = (rng() % 2) ? EventKind::GlobalLoad : EventKind::GlobalStore;
    const unsigned widths[] = {0, 1, 2, 4, 8, 16};
    e.bytes = std::uint8_t(widths[rng() % 6]);
    e.mask = (rng() % 4) ? std::uint32_t(rng()) : 0xFFFFFFFFu;
    const std::uint32_t span = (rng() % 3) ? 1024 : 1u << 20;
    for (int l = 0; l < 32; ++l)
      e.offset[l] = (rng() % 4 == 0 && l) ? e.offset[l - 1] + (rng() % 3) * e.bytes : std::uint32_t(rng() % span);
    if (trial % 2) std::sort(e.offset, e.offset + 32);
    access_detail::Span sec[32];
    const GlobalCore c = global_core(e, m, sec);
    std::set<std::uint64_t> sectors, lines;
    const std::uint64_t w = e.bytes ? e.bytes : 1;
    for (int l = 0; l < 32; ++l)
      if (e.mask >> l & 1u) {
        for (std::uint64_t s = e.offset[l] / m.sector_bytes; s <= (e.offset[l] + w - 1) / m.sector_bytes; ++s)
          sectors.insert(s);
        for (std::uint64_t s = e.offset[l] / m.line_bytes; s <= (e.offset[l] + w - 1) / m.line_bytes; ++s)
          lines.insert(s);
      }
    ASSERT_EQ(c.sectors, sectors.size()) << "trial " << trial;
    ASSERT_EQ(c.lines, lines.size()) << "trial " << trial;
    std::set<std::uint64_t> fetch_units;
    for (std::uint64_t s : sectors) fetch_units.insert(s * m.sector_bytes / m.fetch_unit());
    ASSERT_EQ(c.fetches, fetch_units.size()) << "trial " << trial;
    ASSERT_EQ(c.requests, e.mask ? 1u : 0u);
    // The merged ranges: sorted, disjoint, not adjacent, covering exactly the sectors.
    std::uint64_t covered = 0;
    for (int r = 0; r < c.sector_spans; ++r) {
      if (r) ASSERT_GT(sec[r].lo, sec[r - 1].hi + 1) << "trial " << trial;
      covered += sec[r].hi - sec[r].lo + 1;
    }
    ASSERT_EQ(covered, sectors.size()) << "trial " << trial;
  }
}

// shared_core's contract against the plainest reading of it: per pass, the distinct words
// each bank serves, counted with a set. Random lanes, widths, masks and bank counts
// (1 to 32, powers of two or not), so the bit-plane counting meets wraps and long ranges;
// half the trials in address order (merged as they come), half in any order (sorted).
TEST(Access, SharedCoreEqualsDistinctWordsPerBank) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 4000; ++trial) {
    AccessModel m;
    m.shared_banks = 1 + rng() % 32;
    m.bank_bytes = (rng() % 2) ? 4 : 8;
    WarpEvent e;
    e.kind = (rng() % 2) ? EventKind::SharedLoad : EventKind::SharedStore;
    const unsigned widths[] = {1, 2, 4, 8, 16};
    e.bytes = std::uint8_t(widths[rng() % 5]);
    e.mask = (rng() % 4) ? std::uint32_t(rng()) : 0xFFFFFFFFu;
    const std::uint32_t span = (rng() % 3) ? 512 : 1u << 16;
    for (int l = 0; l < 32; ++l)
      e.offset[l] = (rng() % 4 == 0 && l) ? e.offset[l - 1] : std::uint32_t(rng() % span) & ~(e.bytes - 1u);
    // Lanes in address order take the merge-as-they-come path, the others the sort.
    if (trial % 2) std::sort(e.offset, e.offset + 32);
    std::int32_t lane_bank[32];
    unsigned bank_words[32] = {};
    SharedDetail d{lane_bank, bank_words};
    const SharedCore c = shared_core(e, m, &d);

    const unsigned nb = std::min(std::max(m.shared_banks, 1u), 32u);
    unsigned per_pass = std::min(std::max(m.lanes_per_shared_pass(e.bytes), 1u), 32u);
    if (per_pass < 32 && e.kind == EventKind::SharedLoad && lanes_paired(e)) per_pass = std::min(32u, 2 * per_pass);
    unsigned wavefronts = 0, ideal = 0, most = 0, want_words[32] = {};
    for (unsigned first = 0; first < 32; first += per_pass) {
      std::set<std::uint64_t> words;
      for (unsigned l = first; l < std::min(32u, first + per_pass); ++l)
        if (e.mask >> l & 1u)
          for (std::uint64_t w = e.offset[l] / m.bank_bytes; w <= (e.offset[l] + e.bytes - 1) / m.bank_bytes; ++w)
            words.insert(w);
      if (words.empty()) continue;
      unsigned per_bank[32] = {}, degree = 0;
      for (std::uint64_t w : words) degree = std::max(degree, ++per_bank[w % nb]);
      for (unsigned b = 0; b < nb; ++b) want_words[b] = std::max(want_words[b], per_bank[b]);
      wavefronts += std::max(1u, degree);
      ideal += 1;
      most = std::max(most, degree);
    }
    ASSERT_EQ(c.wavefronts, wavefronts) << "trial " << trial;
    ASSERT_EQ(c.ideal, ideal) << "trial " << trial;
    ASSERT_EQ(c.max_degree, most) << "trial " << trial;
    for (unsigned b = 0; b < nb; ++b) ASSERT_EQ(bank_words[b], want_words[b]) << "trial " << trial << " bank " << b;
  }
}

TEST(Access, BranchDivergenceAndBarriers) {
  Counters c;
  WarpEvent b;
  b.kind = EventKind::Branch;
  b.mask = 0xFFFFFFFFu;
  b.ballot = 0x0000FFFFu;
  count_event(b, AccessModel{}, c);
  b.ballot = 0xFFFFFFFFu;
  count_event(b, AccessModel{}, c);
  WarpEvent s;
  s.kind = EventKind::Barrier;
  s.mask = 0xFFu;
  count_event(s, AccessModel{}, c);
  EXPECT_EQ(c.branches, 2u);
  EXPECT_EQ(c.divergent_branches, 1u);
  EXPECT_EQ(c.barriers, 1u);
  EXPECT_EQ(c.events, 3u);
  EXPECT_EQ(c.active_lane_sum, 72u);
}

TEST(Access, AddCountersAddsEveryField) {
  Counters a, b;
  auto* pa = reinterpret_cast<std::uint64_t*>(&a);
  auto* pb = reinterpret_cast<std::uint64_t*>(&b);
  for (int i = 0; i < kCounterFields; ++i) pa[i] = i, pb[i] = 100 + i;
  add_counters(a, b);
  for (int i = 0; i < kCounterFields; ++i) EXPECT_EQ(pa[i], std::uint64_t(100 + 2 * i));
}

// ---- Bulk stores (cp.async.bulk): the copy engine's pieces ----

WarpEvent bulk(std::uint32_t mask, unsigned units, std::uint32_t (*global)(unsigned),
               std::uint32_t (*shared)(unsigned)) {
  WarpEvent e;
  e.kind = EventKind::BulkStore;
  e.mask = mask;
  e.bytes = std::uint8_t(units);
  for (unsigned l = 0; l < 32; ++l)
    if (mask >> l & 1u) e.offset[l] = bulk_pack(global(l), shared(l));
  return e;
}

TEST(Access, BulkPackKeepsBothOffsets) {
  const WarpEvent e = bulk(0x3u, 16, [](unsigned l) { return 4096u * l + 256u; },
                           [](unsigned l) { return 1040u * l + 16u; });
  EXPECT_EQ(lane_offset(e, 0), 256u);
  EXPECT_EQ(lane_offset(e, 1), 4352u);
  EXPECT_EQ(lane_bytes(e), 256u);
  EXPECT_EQ(bulk_shared_phase(e, 0), 16u);
  EXPECT_EQ(bulk_shared_phase(e, 1), 1056u % 128u);
  // Other kinds pass through unchanged.
  WarpEvent st = e;
  st.kind = EventKind::GlobalStore;
  EXPECT_EQ(lane_offset(st, 0), e.offset[0]);
  EXPECT_EQ(lane_bytes(st), 16u);
}

// The rule measured on the H100 (docs/HARDWARE.md 11): a 256-byte row at every shared phase.
TEST(Access, BulkStoreSectorsCutAtTheSourcesLines) {
  const AccessModel m;
  const unsigned want[8] = {8, 10, 8, 10, 8, 10, 8, 10};  // pieces 128-p, 128, p
  for (unsigned ph = 0; ph < 8; ++ph) {
    WarpEvent e;
    e.kind = EventKind::BulkStore;
    e.mask = 1;
    e.bytes = 16;
    e.offset[0] = bulk_pack(8192, 1024 + 16 * ph);
    EXPECT_EQ(bulk_store_sectors(e, m), want[ph]) << "phase " << 16 * ph;
  }
  // A global destination 16 bytes into a sector (the rule's reading, not measured): the
  // pieces' sectors depend on both sides' phases.
  WarpEvent e;
  e.kind = EventKind::BulkStore;
  e.mask = 1;
  e.bytes = 16;
  e.offset[0] = bulk_pack(16, 0);
  EXPECT_EQ(bulk_store_sectors(e, m), 10u);  // [16,144): sectors 0-4, [144,272): 4-8
  e.offset[0] = bulk_pack(16, 16);
  EXPECT_EQ(bulk_store_sectors(e, m), 9u);  // [16,128): 0-3, [128,256): 4-7, [256,272): 8
}

// Against a byte-by-byte count: a piece ends where the shared source crosses a 128-byte
// line; each piece's sectors are counted, every lane on its own.
TEST(Access, BulkStoreSectorsMatchAByteWalk) {
  std::mt19937 rng(11);
  const AccessModel m;
  for (int i = 0; i < 300; ++i) {
    WarpEvent e;
    e.kind = EventKind::BulkStore;
    e.mask = std::uint32_t(rng()) | 1u;
    e.bytes = std::uint8_t(1 + rng() % 40);
    std::uint64_t want = 0;
    for (unsigned l = 0; l < 32; ++l) {
      if (!(e.mask >> l & 1u)) continue;
      const std::uint32_t g = 16u * std::uint32_t(rng() % 4096), sh = 16u * std::uint32_t(rng() % 1024);
      e.offset[l] = bulk_pack(g, sh);
      std::set<std::uint64_t> piece;
      for (std::uint32_t b = 0; b < lane_bytes(e); ++b) {
        if (b > 0 && (sh + b) % 128 == 0) {
          want += piece.size();
          piece.clear();
        }
        piece.insert((g + b) / 32);
      }
      want += piece.size();
    }
    EXPECT_EQ(bulk_store_sectors(e, m), want);
    Counters c;
    count_event(e, m, c);
    EXPECT_EQ(c.global_bulk_st_sectors, want);
    EXPECT_EQ(c.global_bulk_st_copies, unsigned(__builtin_popcount(e.mask)));
    EXPECT_EQ(c.global_bytes_moved, 32u * want);
    EXPECT_EQ(c.global_st_requests + c.global_st_sectors, 0u);  // no LSU store
    // What reaches DRAM: the sectors the lanes' ranges hold (global_core's union).
    access_detail::Span sec[32];
    EXPECT_EQ(c.global_bulk_st_dram_sectors, global_core(e, m, sec).sectors);
  }
}

TEST(Access, SitesAddUpToTheTotals) {
  std::mt19937 rng(3);
  SiteSink sites;
  TotalsSink totals;
  for (int i = 0; i < 500; ++i) {
    WarpEvent e = random_event(rng, EventKind(rng() % kEventKindCount));
    e.line = std::uint16_t(10 + rng() % 5);
    e.array = std::uint8_t(rng() % 2);
    sites.on_event(e);
    totals.on_event(e);
  }
  const SiteList list = sites.sites();
  Totals sum;
  for (std::size_t i = 0; i < list.size(); ++i) {
    sum.merge(list[i].totals);
    if (i) EXPECT_LT(site_key(list[i - 1].line, list[i - 1].array, list[i - 1].kind),
                     site_key(list[i].line, list[i].array, list[i].kind));
  }
  EXPECT_EQ(std::memcmp(static_cast<const Counters*>(&sum),
                        static_cast<const Counters*>(&totals.totals()), sizeof(Counters)),
            0);
  const auto lines = by_line(list);
  EXPECT_EQ(lines.size(), 5u);
  Totals again;
  for (const auto& [line, t] : lines) again.merge(t);
  EXPECT_EQ(again.events, 500u);
  SiteList twice = list;
  merge_sites(twice, list);
  ASSERT_EQ(twice.size(), list.size());
  EXPECT_EQ(twice[0].totals.events, 2 * list[0].totals.events);
}

TEST(Inputs, WordsAreDeterministicAndInRange) {
  const InputGen f{Fill::UnitFloat, 0, 0}, r{Fill::IntRange, -7, 7}, b{Fill::Bits, 0, 0};
  int seen_lo = 0, seen_hi = 0;
  for (std::uint64_t i = 0; i < 100000; ++i) {
    float x;
    const std::uint32_t w = input_word(f, 1, 0, i);
    std::memcpy(&x, &w, 4);
    ASSERT_GE(x, -1.0f);
    ASSERT_LT(x, 1.0f);
    const int v = int(input_word(r, 1, 0, i));
    ASSERT_GE(v, -7);
    ASSERT_LE(v, 7);
    seen_lo += v == -7;
    seen_hi += v == 7;
    ASSERT_EQ(input_word(b, 9, 2, i), input_word(b, 9, 2, i));
  }
  EXPECT_GT(seen_lo, 5000);  // about 1/15 of the draws each
  EXPECT_GT(seen_hi, 5000);
  EXPECT_NE(input_word(b, 1, 0, 5), input_word(b, 2, 0, 5));  // the seed matters
  EXPECT_NE(input_word(b, 1, 0, 5), input_word(b, 1, 1, 5));  // so does the array
  EXPECT_EQ(input_word(InputGen{}, 1, 0, 5), 0u);
}

TEST(Inputs, FloatRangeAndSkewedStayInTheirRanges) {
  const InputGen f{Fill::FloatRange, -3, 3}, k{Fill::Skewed, 60, 255};
  float lo = 0, hi = 0;
  int zeros = 0;
  for (std::uint64_t i = 0; i < 100000; ++i) {
    float x;
    const std::uint32_t w = input_word(f, 1, 0, i);
    std::memcpy(&x, &w, 4);
    ASSERT_GE(x, -3.0f);
    ASSERT_LT(x, 3.0f);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    const std::uint32_t v = input_word(k, 1, 0, i);
    ASSERT_LE(v, 255u);
    zeros += v == 0;
  }
  EXPECT_LT(lo, -2.9f);  // the whole range is used
  EXPECT_GT(hi, 2.9f);
  // 60% forced to 0, plus 1/256 of the rest by chance.
  EXPECT_GT(zeros, 59000);
  EXPECT_LT(zeros, 62000);
}

}  // namespace
}  // namespace ws::sim
