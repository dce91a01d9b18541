// Recorded figures quoted in a lesson's text (see lesson_refs.h and lessons/README.md).
#include "app/lesson/lesson_refs.h"

#include <atomic>
#include <cmath>
#include <limits>

#include "app/lesson/lesson_internal.h"
#include "kernels/catalogue/catalogue.h"

namespace ws::lesson {

namespace {

std::atomic<const Recording*> g_quoted{nullptr};
std::atomic<bool> g_off{false};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

std::string complete_params(const std::string& family, const std::string& variant, const Params& p,
                     Params& out) {
  const VariantInfo* v = find_variant(family, variant);
  if (!v) return "unknown variant '" + family + "/" + variant + "'";
  return validate(*v, p, DeviceLimits{}, out);
}

namespace {
}  // namespace

void set_quoting_off(bool off) { g_off.store(off); }

std::vector<RecordedRef> recorded_refs_in(const std::string& text) {
  std::vector<RecordedRef> out;
  for (std::size_t pos = text.find("{{rec "); pos != std::string::npos;
       pos = text.find("{{rec ", pos + 1)) {
    const std::size_t close = text.find("}}", pos);
    if (close == std::string::npos) break;
    RecordedRef r;
    std::string why;
    if (parse_recorded_ref(std::string_view(text).substr(pos + 6, close - pos - 6), r, why))
      out.push_back(std::move(r));
  }
  return out;
}

const Recording* quoted_recording() {
  if (g_off.load()) return nullptr;
  const Recording* r = g_quoted.load();
  return r ? r : default_recording();
}

void set_quoted_recording(const Recording* r) { g_quoted.store(r); }

std::string short_gpu_name(const std::string& device_name) {
  const auto w = detail::words(device_name, false);
  if (w.size() >= 2 && w[0] == "NVIDIA") return w[1];
  return w.empty() ? device_name : w[0];
}

bool parse_recorded_ref(std::string_view body, RecordedRef& out, std::string& why) {
  const std::string b = detail::trim(body);
  const auto colon = b.find(':');
  if (colon == std::string::npos) {
    why = "recorded figure '" + b + "': expected 'FAMILY/VARIANT PARAMS : QUANTITY'";
    return false;
  }
  auto head = detail::words(std::string_view(b).substr(0, colon), false);
  std::string qtext = detail::trim(std::string_view(b).substr(colon + 1));
  RecordedRef r;
  if (const auto bar = qtext.find('|'); bar != std::string::npos) {
    r.unit = detail::trim(std::string_view(qtext).substr(bar + 1));
    qtext = detail::trim(std::string_view(qtext).substr(0, bar));
  }
  if (!qtext.empty() && qtext.back() == '%') {
    r.percent = true;
    qtext = detail::trim(std::string_view(qtext).substr(0, qtext.size() - 1));
  }
  if (head.empty() || head[0].find('/') == std::string::npos) {
    why = "recorded figure '" + b + "': expected FAMILY/VARIANT first";
    return false;
  }
  r.family = head[0].substr(0, head[0].find('/'));
  r.variant = head[0].substr(head[0].find('/') + 1);
  Params given;
  for (std::size_t i = 1; i < head.size(); ++i)
    if (std::string e = parse_param(head[i], given); !e.empty()) {
      why = "recorded figure '" + b + "': " + e;
      return false;
    }
  if (std::string e = complete_params(r.family, r.variant, given, r.params); !e.empty()) {
    why = "recorded figure '" + b + "': " + e;
    return false;
  }
  if (qtext == "spread") {
    r.quantity.kind = QuantityKind::Plain;
    r.quantity.name = "spread";
  } else {
    std::string qwhy;
    if (!detail::parse_quantity(qtext, r.quantity, qwhy)) {
      why = "recorded figure '" + b + "': " + qwhy;
      return false;
    }
    if (!r.quantity.timed()) {
      why = "recorded figure '" + b + "': '" + qtext +
            "' is not a timed quantity (time_us, throughput, spread or a ratio)";
      return false;
    }
  }
  out = std::move(r);
  return true;
}

bool recorded_variant(const Recording& rec, const std::string& family, const std::string& variant) {
  for (const RecordedRun& r : rec.runs)
    if (r.family == family && r.variant == variant) return true;
  return false;
}

bool newer_knob(const Recording& rec, const RecordedRef& ref) {
  const VariantInfo* v = find_variant(ref.family, ref.variant);
  if (!v) return false;
  for (const ParamSpec& ps : v->params) {
    const auto set = ref.params.find(ps.name);
    if (set == ref.params.end() || set->second == ps.def) continue;
    bool varied = false;
    for (const RecordedRun& r : rec.runs) {
      if (r.family != ref.family) continue;
      const auto it = r.params.find(ps.name);
      varied = varied || (it != r.params.end() && it->second != ps.def);
    }
    if (!varied) return true;
  }
  return false;
}

bool not_yet_recorded(const Recording& rec, const RecordedRef& ref) {
  return !recorded_variant(rec, ref.family, ref.variant) || newer_knob(rec, ref);
}

double recorded_value(const Recording& rec, const RecordedRef& ref, std::string& why) {
  const std::string gpu = rec.device.name;
  const RecordedRun* rr = rec.find(ref.family, ref.variant, ref.params);
  if (!rr || !(rr->timing.median_ms > 0)) {
    why = "the recording of " + gpu + " has no " + ref.family + "/" + ref.variant + " at " +
          ws::to_string(ref.params) + " (record again: warpscope record)";
    return kNaN;
  }
  const Timing& t = rr->timing;
  const std::string& q = ref.quantity.name;
  if (ref.quantity.kind == QuantityKind::Plain) {
    if (q == "time_us") return t.median_ms * 1e3;
    if (q == "throughput") return t.throughput;
    if (q == "spread") return (t.max_ms - t.min_ms) / t.median_ms;
  } else if (ref.quantity.kind == QuantityKind::Ratio) {
    if (q == "copy_bandwidth") {
      if (rr->copy_gbps > 0 && t.unit == "GB/s") return t.throughput / rr->copy_gbps;
      why = "the recording of " + gpu + " has no copy beside " + ref.family + "/" + ref.variant;
      return kNaN;
    }
    if (q == "peak") {
      const double peak = t.unit == "GB/s"        ? rec.device.peak_gbps
                          : t.unit == "GFLOP/s" ? rec.device.peak_gflops
                                                : 0;
      if (peak > 0) return t.throughput / peak;
      why = "no peak for " + t.unit + " on " + gpu;
      return kNaN;
    }
    if (q == "library") {
      const Peer peer = library_peer(ref.family, t.unit == "GFLOP/s");
      const RecordedPeer* p = rec.find_peer(peer, ref.params);
      if (!p) {  // a peer is recorded at the family's size parameters alone
        Params sizes;
        if (const FamilyInfo* f = find_family(ref.family))
          for (const std::string& k : f->size_params)
            if (ref.params.count(k)) sizes[k] = ref.params.at(k);
        if (!sizes.empty()) p = rec.find_peer(peer, sizes);
      }
      if (p && p->timing.median_ms > 0) return p->timing.median_ms / t.median_ms;
      why = "the recording of " + gpu + " has no " + std::string(to_string(peer)) + " at " +
            ws::to_string(ref.params);
      return kNaN;
    }
    if (q.rfind("over:", 0) == 0) {
      const std::string other = q.substr(5);
      Params op;
      if (std::string e = complete_params(ref.family, other, params_for(ref.family, other, ref.params), op);
          !e.empty()) {
        why = e;
        return kNaN;
      }
      const RecordedRun* o = rec.find(ref.family, other, op);
      if (o && o->timing.throughput > 0) return t.throughput / o->timing.throughput;
      why = "the recording of " + gpu + " has no " + ref.family + "/" + other + " at " +
            ws::to_string(op);
      return kNaN;
    }
  }
  why = "'" + ref.quantity.key() + "' is not kept in a recording";
  return kNaN;
}

bool recorded_band(const Recording& rec, const RecordedRef& ref, double& lo, double& hi,
                   std::string& why) {
  const double v = recorded_value(rec, ref, why);
  if (!std::isfinite(v)) return false;
  const RecordedRun* rr = rec.find(ref.family, ref.variant, ref.params);
  const Timing& t = rr->timing;
  const double fast = t.min_ms > 0 ? t.min_ms : t.median_ms;
  const double slow = t.max_ms > 0 ? t.max_ms : t.median_ms;
  if (ref.quantity.kind == QuantityKind::Plain && ref.quantity.name == "time_us") {
    lo = fast * 1e3;
    hi = slow * 1e3;
  } else {
    lo = v * t.median_ms / slow;
    hi = v * t.median_ms / fast;
  }
  return true;
}

std::string goal_spread_problem(const Recording& rec, const Lab& lab, const Goal& g) {
  if (!g.quantity.timed()) return "";
  Lab at = lab;
  if (!g.reach_variant.empty()) at.variant = g.reach_variant;
  RecordedRef ref;
  ref.family = at.family;
  ref.variant = at.variant;
  ref.quantity = g.quantity;
  std::string why = complete_params(at.family, at.variant, timing_params(at, g.reach), ref.params);
  double lo = 0, hi = 0;
  if (!why.empty() || !recorded_band(rec, ref, lo, hi, why)) return "";
  if (g.value < lo || g.value > hi) return "";
  return "goal target " + format_number(g.value) + " sits inside the spread its reach was " +
         "recorded with on " + rec.device.name + " (" + format_number(lo) + " to " +
         format_number(hi) + ", its fastest and slowest recorded run): it would pass or " +
         "fail by chance; move the target out of it, or record again";
}

std::string expand_recorded_refs(const std::string& text, const Recording* rec, std::string& why) {
  std::string out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t open = text.find("{{rec ", pos);
    if (open == std::string::npos) break;
    const std::size_t close = text.find("}}", open);
    if (close == std::string::npos) {
      if (why.empty()) why = "recorded figure '{{rec' is not closed by '}}'";
      break;
    }
    out.append(text, pos, open - pos);
    pos = close + 2;
    RecordedRef ref;
    std::string e;
    if (!parse_recorded_ref(std::string_view(text).substr(open + 6, close - open - 6), ref, e)) {
      if (why.empty()) why = e;
      out += "?";
      continue;
    }
    if (!rec) {
      out += "(not recorded)";
      continue;
    }
    double v = recorded_value(*rec, ref, e);
    if (!std::isfinite(v) && not_yet_recorded(*rec, ref)) {
      // A variant or a knob newer than the recording (added since, not timed yet on this
      // GPU): said so, not an error; the next `warpscope record` on the GPU fills it in.
      out += "(not yet recorded on " + short_gpu_name(rec->device.name) + ")";
      continue;
    }
    if (!std::isfinite(v)) {
      if (why.empty()) why = e;
      out += "?";
      continue;
    }
    const bool pct = ref.percent || ref.quantity.name == "spread";
    out += pct ? format_number(v * 100) + " %" : format_number(v);
    if (!ref.unit.empty()) out += (ref.unit == "x" ? "" : " ") + ref.unit;
    out += " (" + short_gpu_name(rec->device.name) + ")";
  }
  out.append(text, pos, std::string::npos);
  return out;
}

}  // namespace ws::lesson
