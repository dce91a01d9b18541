// Provenance: the source of a figure and the words derived from a set of them.
#include "sim/provenance.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace ws::sim {

std::string_view to_string(Source s) {
  switch (s) {
    case Source::None: return "none";
    case Source::Measured: return "measured";
    case Source::Recorded: return "recorded";
    case Source::Modelled: return "modelled";
    case Source::Spec: return "spec";
  }
  return "unknown";
}

std::string_view to_string(MixedRatio m) {
  switch (m) {
    case MixedRatio::Mark: return "mark";
    case MixedRatio::Refuse: return "refuse";
  }
  return "unknown";
}

Provenance Provenance::measured(std::string device) {
  return {Source::Measured, std::move(device), {}, {}};
}
Provenance Provenance::recorded(std::string device, std::string date) {
  // A recording's date is kept to the day: it says when, the time of day adds nothing.
  if (date.size() > 10) date.resize(10);
  return {Source::Recorded, std::move(device), std::move(date), {}};
}
Provenance Provenance::modelled(std::string bound) {
  return {Source::Modelled, {}, {}, std::move(bound)};
}
Provenance Provenance::spec(std::string device) {
  return {Source::Spec, std::move(device), {}, {}};
}

bool Provenance::same_source(const Provenance& o) const {
  return source == o.source && device == o.device && date == o.date;
}

std::string short_label(const Provenance& p) {
  switch (p.source) {
    case Source::None: return "";
    case Source::Measured: return "measured";
    case Source::Recorded: return "recorded";
    case Source::Modelled: return "modelled";
    case Source::Spec: return "spec sheet";
  }
  return "";
}

std::string detail(const Provenance& p) {
  switch (p.source) {
    case Source::None: return "";
    case Source::Measured:
    case Source::Spec: return p.device;
    case Source::Recorded:
      return p.device + (p.device.empty() || p.date.empty() ? "" : ", ") + p.date;
    case Source::Modelled: return p.bound.empty() ? "" : p.bound + "-bound";
  }
  return "";
}

std::string to_string(const Provenance& p) {
  const std::string s = short_label(p), d = detail(p);
  return d.empty() ? s : s + " (" + d + ")";
}

std::string long_label(const Provenance& p) {
  const std::string dev = p.device.empty() ? std::string("an unnamed device") : p.device;
  switch (p.source) {
    case Source::None: return "";
    case Source::Measured: return "measured on " + dev + " (this device, now)";
    case Source::Recorded:
      return "recorded on " + dev + (p.date.empty() ? "" : ", " + p.date);
    case Source::Modelled:
      return "modelled by warpscope's model" + (p.bound.empty() ? "" : " (" + p.bound + "-bound)");
    case Source::Spec: return "theoretical peak, " + dev + " data sheet";
  }
  return "";
}

SourceWording describe_sources(const std::vector<Provenance>& values) {
  SourceWording w;
  std::vector<Provenance> specs;
  auto add = [](std::vector<Provenance>& to, const Provenance& p) {
    for (const Provenance& q : to)
      if (q.same_source(p)) return;
    Provenance k = p;
    k.bound.clear();  // the set names the model, not one point's bound part
    to.push_back(std::move(k));
  };
  for (Source kind : {Source::Measured, Source::Recorded, Source::Modelled})
    for (const Provenance& p : values)
      if (p.source == kind) add(w.sources, p);
  for (const Provenance& p : values)
    if (p.source == Source::Spec) add(specs, p);
  w.mixed = w.sources.size() > 1;
  std::vector<Source> kinds;
  for (const Provenance& p : w.sources) {
    bool seen = false;
    for (Source k : kinds) seen = seen || k == p.source;
    if (!seen) kinds.push_back(p.source);
    w.subtitle += (w.subtitle.empty() ? "" : " · ") + long_label(p);
  }
  for (Source k : kinds)
    w.axis += (w.axis.empty() ? "" : " and ") + short_label(Provenance{k, {}, {}, {}});
  if (!w.subtitle.empty()) w.footer = "source: " + w.subtitle;
  for (const Provenance& p : specs)
    w.footer += (w.footer.empty() ? "" : "; ") + std::string("peak: ") + long_label(p);
  return w;
}

std::string axis_title(const std::string& unit, const SourceWording& w) {
  if (w.axis.empty()) return unit;
  if (unit.empty()) return w.axis;
  return unit + " (" + w.axis + ")";
}

bool SourcedRatio::refused() const { return !std::isfinite(value); }

std::string SourcedRatio::text(int decimals) const {
  if (refused()) return "-";
  char b[48];
  std::snprintf(b, sizeof b, "%.*fx", decimals, value);
  return note.empty() ? std::string(b) : std::string(b) + " " + note;
}

SourcedRatio ratio(double a, const Provenance& pa, double b, const Provenance& pb,
                   MixedRatio policy) {
  SourcedRatio r;
  r.mixed = !pa.same_source(pb);
  if (r.mixed) {
    const bool alike = short_label(pa) == short_label(pb);
    auto name = [&](const Provenance& p) {
      const std::string s = alike ? to_string(p) : short_label(p);
      return s.empty() ? std::string("no source") : s;
    };
    r.note = "(mixed: " + name(pa) + " / " + name(pb) + ")";
  }
  const bool ok = std::isfinite(a) && std::isfinite(b) && b > 0 &&
                  !(r.mixed && policy == MixedRatio::Refuse);
  r.value = ok ? a / b : std::numeric_limits<double>::quiet_NaN();
  return r;
}

}  // namespace ws::sim
