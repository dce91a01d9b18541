#pragma once
// A recording: what `warpscope record` measured on one GPU (device, driver, clocks, date,
// and per configuration the median time with its spread, the copy and library peers at the
// same size, the fast build's registers per thread, and the model's counters). Shipped in
// assets/recordings/<gpu>.json, it lets a machine without a GPU show real measurements at
// the configurations the lessons, the variant bars and the standard sweeps use; every
// other configuration stays modelled. No CUDA here.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/backends/backend.h"

namespace ws {

struct RecordedRun {
  std::string family, variant;
  Params params;                 // complete (defaults filled in)
  bool verified = false;
  Timing timing;                 // source == Recording::source()
  double copy_gbps = 0;          // cudaMemcpy D2D of the same logical bytes, same session
  int regs_per_thread = 0;       // the fast build's, 0 when unknown
  // FNV-1a of the family header it was recorded from (family_source_hash); a run whose
  // header has changed since is stale: find() skips it, so the time is modelled again
  // instead of showing a measurement of code that no longer exists. "" = not recorded.
  std::string source_hash;
  // The model's totals over the whole grid (the GPU's traced build), and per launch;
  // unset (empty) in recordings made before `record` traced every configuration. Written
  // out under Nsight Compute's names too.
  std::optional<sim::Totals> totals;
  std::vector<sim::Totals> launch_totals;  // one per launch of the plan, or none
};

struct RecordedPeer {
  Peer peer = Peer::MemcpyD2D;
  Params params;                 // bytes=B for the copy, n for CUB and cuBLAS
  Timing timing;
};

struct Recording {
  DeviceInfo device;
  std::string date;              // ISO 8601, UTC
  std::string tool;              // warpscope's version or commit, free text
  std::vector<RecordedRun> runs;
  std::vector<RecordedPeer> peers;
  std::string path;              // the file it came from ("" when built in memory)

  // Its runs' and peers' source: recorded on device.name, on date (to the day).
  // @post == sim::Provenance::recorded(device.name, date).
  sim::Provenance source() const;
  // "model counts recorded on NVIDIA H100 80GB HBM3, 2026-11-23": the traced build's
  // counters, counted when the time was recorded.
  std::string counts_label() const;
  // @post the run recorded with exactly these complete parameters whose source is not
  //       stale (is_stale), or nullptr.
  const RecordedRun* find(const std::string& family, const std::string& variant,
                          const Params& complete) const;
  // @post true iff r has a source_hash, the family's header is found, and its hash differs.
  bool is_stale(const RecordedRun& r) const;
  // The families with stale runs, for a notice ("instr, matmul"); "" when none.
  std::string stale_families() const;
  // Registers per thread of the variant's fast build: from the exact configuration, else
  // from any recorded run of the variant whose parameters differ only in size (`n`);
  // 0 when none.
  int regs(const std::string& family, const std::string& variant, const Params& complete) const;
  // @post the peer recorded with exactly these parameters, or nullptr.
  const RecordedPeer* find_peer(Peer p, const Params& params) const;
};

// One configuration `warpscope record` times: a variant at complete parameters, and where
// it comes from ("lessons/04-transpose.md:113", "bars", "sweep stride").
struct RecordTarget {
  std::string family, variant;
  Params params;
  std::string source;
};

// Where the kernel headers a recording is keyed by are looked for: paths::header_roots()
// ($WARPSCOPE_DATA_DIR first, the install's include/ folder, the source tree).
std::vector<std::filesystem::path> source_roots();

// The hash a recording keeps of a family's header: FNV-1a 64 of the file `source_file`
// (as the catalogue names it, "kernels/families/transpose.cuh") under the source or install tree, as
// hex; "" when the file is not found.
std::string family_source_hash(const std::string& source_file);

// @post true and `out` filled iff `path` holds a recording of this format; else `error`
//       says what is wrong in one line.
bool load_recording(const std::string& path, Recording& out, std::string& error);
// The same from the file's text; `name` starts the error (tests/fuzz/fuzz_recording.cpp).
// @post true iff `text` is a recording of this format: every number where an integer is
//       wanted is one within its type's range, every field has its type; else `error`
//       is one line and `out` is untouched.
bool parse_recording(const std::string& text, const std::string& name, Recording& out,
                     std::string& error);
// The recording as JSON text (what load_recording reads).
std::string recording_json(const Recording& r);

// The recording a machine without a GPU uses: $WARPSCOPE_RECORDING (a file; "none" turns
// recordings off), else the first *.json in assets/recordings/ under the source or install
// tree (paths::data_roots(): $WARPSCOPE_DATA_DIR first). Loaded once; nullptr when there
// is none. `notice` says why a file was skipped (make_backend turns it into an error when
// none loaded). Every time in it is finite, positive and under an hour. With several
// files, the one of kDefaultRecordingDevice (else the first by name).
const Recording* default_recording(std::string* notice = nullptr);
// The GPU whose recording a machine without a GPU shows.
inline constexpr const char* kDefaultRecordingDevice = "NVIDIA H100 80GB HBM3";
// The recording of the GPU named `device_name` (its device.name, as the driver reports
// it) among those default_recording chooses from; nullptr when there is none. A lesson
// running live takes its timed expectations from it.
const Recording* recording_for_device(const std::string& device_name);

// The emulator, with times and peers at recorded configurations taken from `rec`
// (measured, labelled as recorded). A run at a recorded configuration that keeps no
// blocks' events and asks for time or counts is answered from the recording without
// emulating, unless its counts are wanted and quick to emulate (kQuickLaneEvents: then
// the emulator counts them, with their sites, beside the recorded time). Answered from
// the recording, its counts are the recording's (counts == Recorded) or, where an older
// recording lacks them, absent (counts == NotRecorded): never emulated for minutes.
std::unique_ptr<Backend> make_recorded_backend(std::unique_ptr<Backend> emu, const Recording* rec);

// At most this many estimated lane events (estimated_lane_events) the emulator counts in
// about a second: below it, counts are emulated even where a recording holds them.
constexpr double kQuickLaneEvents = double(1ull << 23);

// What `warpscope record` times besides the lessons: variant bars at the defaults and at
// sizes beyond L2, and the standard sweeps.
// @post every target names a catalogued variant and parameters that validate on an H100.
std::vector<RecordTarget> standard_record_targets();

}  // namespace ws
