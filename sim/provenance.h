#pragma once
// Where a number comes from, as a value: measured on this device now, recorded on a device
// on a date, modelled by warpscope's model (with the part that bounds it), or the
// theoretical peak of a device's data sheet. Every time and throughput carries one from
// the backend to the last export, and every label about sources (axis titles, legends,
// footers, the "(mixed: ...)" beside a ratio) is derived here from the values drawn, never
// written by hand at a call site. No CUDA, no GUI.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ws::sim {

enum class Source : std::uint8_t {
  None,      // not a time: a count from the trace, or nothing ran
  Measured,  // this device, now (CUDA events)
  Recorded,  // a recording of a device (assets/recordings), on its date
  Modelled,  // sim/'s modelled time (the emulator times nothing)
  Spec,      // the theoretical peak from the device's data sheet
};
std::string_view to_string(Source s);

struct Provenance {
  Source source = Source::None;
  std::string device;  // Measured, Recorded, Spec: the device's name
  std::string date;    // Recorded: the recording's date, YYYY-MM-DD
  std::string bound;   // Modelled: the part that bounds it ("dram", "l2", "latency", "issue", ...)

  static Provenance measured(std::string device);
  static Provenance recorded(std::string device, std::string date);
  static Provenance modelled(std::string bound = {});
  static Provenance spec(std::string device);

  bool is(Source s) const { return source == s; }
  // A GPU timed it: measured now or recorded.
  bool on_gpu() const { return source == Source::Measured || source == Source::Recorded; }
  // One source: the same kind, device and date. A model's bound part differs point by
  // point, so it does not make another source.
  // @post true iff source, device and date are equal (bound is ignored).
  bool same_source(const Provenance& o) const;
  bool operator==(const Provenance& o) const = default;
};

// "measured", "recorded", "modelled", "spec sheet"; "" for None.
// @post empty iff p.source == Source::None.
std::string short_label(const Provenance& p);
// One phrase a reader understands alone: "measured on NVIDIA H100 80GB HBM3 (this device,
// now)", "recorded on NVIDIA H100 80GB HBM3, 2026-11-23", "modelled by warpscope's model
// (dram-bound)", "theoretical peak, NVIDIA H100 80GB HBM3 data sheet".
// @post starts with short_label(p) except for Spec ("theoretical peak"); "" for None.
std::string long_label(const Provenance& p);
// The short label with its details in brackets: "recorded (NVIDIA H100 80GB HBM3,
// 2026-11-23)", "modelled (dram-bound)", "measured (NVIDIA H100 80GB HBM3)": a CSV cell.
// @post starts with short_label(p); "" for None.
std::string to_string(const Provenance& p);
// The details alone ("NVIDIA H100 80GB HBM3, 2026-11-23", "dram-bound"): to_string's
// bracket, for a table or CSV column beside the short label.
std::string detail(const Provenance& p);

// What a view says about the set of sources it draws.
struct SourceWording {
  // The distinct sources (same_source) among the values, Spec and None left out, in the
  // order measured, recorded, modelled, then first seen.
  std::vector<Provenance> sources;
  bool mixed = false;     // two or more sources: each must be drawn and named apart
  std::string axis;       // the words after the unit: "recorded", "recorded and modelled"; ""
  std::string subtitle;   // one line: "recorded on NVIDIA H100 80GB HBM3, 2026-11-23"; mixed:
                          // "recorded on NVIDIA H100 ..., 2026-11-23 · modelled by ..."
  std::string footer;     // "source: " + subtitle, plus "; peak: <long_label>" for a Spec
};
// @post sources has one entry per same_source class of values with a source other than
//       None and Spec; mixed == (sources.size() > 1); axis is "" iff sources is empty, and
//       otherwise names the short label of each kind in sources once, joined by " and ";
//       subtitle joins long_label of each of sources with " · "; footer is "" iff there is
//       no source other than None, and names every Spec value's long label.
SourceWording describe_sources(const std::vector<Provenance>& values);
// A unit with its sources: "GB/s (recorded)", "GB/s (recorded and modelled)", or the unit
// alone when nothing timed is drawn.
// @post == unit when w.axis is empty, else unit + " (" + w.axis + ")" (w.axis alone when
//       unit is empty).
std::string axis_title(const std::string& unit, const SourceWording& w);

// A ratio of two figures with their sources. Across two sources it is marked, or refused.
enum class MixedRatio : std::uint8_t { Mark, Refuse };
std::string_view to_string(MixedRatio m);
struct SourcedRatio {
  double value = 0;    // a / b; NaN when refused or b is not a positive number
  bool mixed = false;  // a and b come from different sources
  std::string note;    // "(mixed: recorded / modelled)" when mixed, else ""
  bool refused() const;
  // "0.64x (mixed: recorded / modelled)", "2.10x", or "-" when refused.
  std::string text(int decimals = 2) const;
};
// @post mixed == !pa.same_source(pb); note == "" iff !mixed, else "(mixed: " + A + " / " +
//       B + ")" with A, B the short labels (to_string's when the short labels are equal);
//       value == a / b when b > 0, both are finite, and !(mixed && policy == Refuse);
//       otherwise value is NaN.
SourcedRatio ratio(double a, const Provenance& pa, double b, const Provenance& pb,
                   MixedRatio policy = MixedRatio::Mark);

}  // namespace ws::sim
