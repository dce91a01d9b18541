// `warpscope trace`: the recorded warp events of one block, as JSON.
#include "app/cli/command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <ostream>

#include "sim/model.h"

namespace ws::cli {

namespace {

struct TraceArgs {
  std::string kernel, variant, backend = "auto";
  std::vector<std::string> sets;
  std::uint32_t block = 0;
};

int cmd_trace(const TraceArgs& a, std::ostream& out, std::ostream& err) {
  const VariantInfo& v = variant_or_usage(a.kernel, a.variant);
  const Params given = sets_or_usage(a.sets);
  auto b = backend_or_usage(a.backend, err);
  const Config c = single_config(v, given, *b);
  unsigned long long most = 0;
  for (const auto& l : c.plan.launches) most = std::max(most, l.grid.count());
  if (a.block >= most)
    usage("--block " + std::to_string(a.block) + " is outside the grid (" + std::to_string(most) +
          " block" + (most == 1 ? "" : "s") + ", numbered from 0)");

  RunOptions ro;
  ro.totals = false;
  ro.keep_blocks = {a.block};
  const RunResult r = b->run(v.family, v.name, c.completed, ro);
  if (int code = run_failed(v, r, err); code >= 0) return code;
  Json j;
  j["kernel"] = v.family;
  j["variant"] = v.name;
  j["params"] = params_json(r.params.empty() ? c.completed : r.params);
  j["backend"] = std::string(to_string(b->kind()));
  j["block"] = a.block;
  Json ls = Json::array();
  for (const auto& k : r.kept) {
    Json l;
    l["name"] = k.info.kernel;
    l["source_file"] = k.info.source_file;
    l["grid"] = dim_json(k.info.grid);
    l["block"] = dim_json(k.info.block);
    l["shared_bytes"] = k.info.shared_bytes;
    Json arrays = Json::array();
    for (const auto& ad : k.info.arrays) {
      Json ja;
      ja["id"] = ad.id;
      ja["space"] = std::string(to_string(ad.space));
      ja["name"] = ad.name;
      ja["elem_bytes"] = ad.elem_bytes;
      ja["count"] = ad.count;
      if (ad.space == Space::Shared) ja["base_offset"] = ad.base_offset;
      arrays.push_back(ja);
    }
    l["arrays"] = arrays;
    Json evs = Json::array();
    for (const auto& e : k.events) {
      Json je;
      je["block"] = e.block;
      je["warp"] = e.warp;
      je["kind"] = std::string(to_string(e.kind));
      je["line"] = e.line;
      je["array"] = e.array == kNoArray ? Json(nullptr) : Json(e.array);
      je["mask"] = hex32(e.mask);
      je["active"] = e.active_lanes();
      if (e.kind == EventKind::Branch || e.kind == EventKind::Vote) je["ballot"] = hex32(e.ballot);
      if (e.kind == EventKind::Work) je["instructions"] = sim::event_warp_instructions(e);
      if (is_memory(e.kind)) {
        // Bytes and offsets as the lanes use them (a bulk store's are packed: sim/trace.h).
        je["bytes"] = lane_bytes(e);
        Json offs = Json::array();
        for (unsigned lane = 0; lane < 32; ++lane)
          offs.push_back((e.mask >> lane) & 1u ? Json(lane_offset(e, lane)) : Json(nullptr));
        je["offsets"] = offs;
        if (e.kind == EventKind::BulkStore) {  // where each lane's row starts in a 128-byte line of shared
          Json phase = Json::array();
          for (unsigned lane = 0; lane < 32; ++lane)
            phase.push_back((e.mask >> lane) & 1u ? Json(bulk_shared_phase(e, lane)) : Json(nullptr));
          je["shared_phase"] = phase;
        }
      }
      evs.push_back(je);
    }
    l["events"] = evs;
    ls.push_back(l);
  }
  j["launches"] = ls;
  out << pretty(j, 4);
  for (const auto& p : r.problems)
    err << "warpscope: " << to_string(p.kind) << " at line " << p.line << ": " << p.message
        << "\n";
  return kExitOk;
}

}  // namespace

Action declare_trace(CLI::App& sub) {
  auto a = std::make_shared<TraceArgs>();
  CLI::App* s = &sub;
  s->add_option("--kernel", a->kernel, "kernel family (see list)")->required();
  s->add_option("--variant", a->variant, "variant of the family")->required();
  s->add_option("--set", a->sets, "parameter key=value (repeatable)");
  s->add_option("--block", a->block, "linear block index")->capture_default_str();
  add_backend(s, a->backend);
  return [a](std::ostream& out, std::ostream& err, const Hooks&) { return cmd_trace(*a, out, err); };
}

}  // namespace ws::cli
