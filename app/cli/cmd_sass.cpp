// `warpscope sass`: the fast build's recorded SASS of one launch, by source line.
#include "app/cli/command.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <ostream>
#include <sstream>

#include "kernels/hardware/sass.h"

namespace ws::cli {

namespace {

struct SassArgs {
  std::string kernel, variant;
  std::vector<std::string> sets;
  bool all = false;  // every instruction, not only memory and barriers
};

int cmd_sass(const SassArgs& a, std::ostream& out, std::ostream& err) {
  const VariantInfo& v = variant_or_usage(a.kernel, a.variant);
  const Params given = sets_or_usage(a.sets);
  Params completed;
  if (std::string why = validate(v, given, DeviceLimits{}, completed); !why.empty()) usage(why);
  const std::vector<std::string> roots = data_roots();
  const sass::Loaded sl = sass::load_family(v.family, v.source_file, roots);
  if (!sl.error.empty()) {
    err << "warpscope: " << sl.error << "\n";
    return kExitFailed;
  }
  std::string why;
  const std::string src_text = sass::read_from_roots(v.source_file, roots, why);
  std::vector<std::string> src;
  {
    std::istringstream s(src_text);
    for (std::string l; std::getline(s, l);) src.push_back(l);
  }
  // What the model sees per line: the emulator's trace of block 0.
  auto emu = make_emu_backend();
  RunOptions ro;
  ro.totals = false;
  ro.keep_blocks = {0};
  const RunResult r = emu->run(v.family, v.name, completed, ro);
  std::vector<WarpEvent> events;
  for (const KeptLaunch& k : r.kept) events.insert(events.end(), k.events.begin(), k.events.end());
  const auto model = sass::model_accesses(events);

  out << v.family << "/" << v.name << "  " << params_text(completed) << "\n";
  out << "SASS of the fast build, recorded with nvcc " << sl.listing.compiler << " for "
      << sl.listing.arch << " (assets/sass/" << v.family << ".sass)\n";
  if (sl.stale)
    out << "STALE: " << v.source_file << " or the dialect changed since this SASS was recorded; "
        << "line numbers may be off (re-record with scripts/device_run.sh sass_record)\n";
  int status = kExitOk;
  for (const std::string& inst : kernel_instances(v.family, v.name, completed)) {
    const sass::Function* f = sl.listing.find_instance(inst);
    if (!f) {
      err << "warpscope: no recorded SASS for kernel " << inst << "\n";
      status = kExitFailed;
      continue;
    }
    out << "\nkernel " << inst << ": " << f->code.size() << " instructions, " << f->registers
        << " registers, " << f->spill_stores() << " spill stores, " << f->spill_loads()
        << " spill loads, stack " << f->stack << " B\n";
    const auto lines = sass::by_line(*f, v.source_file);
    const auto diffs = sass::differences(lines, model);
    for (const auto& [line, ins] : lines) {
      std::vector<const sass::Instruction*> shown;
      for (const sass::Instruction* i : ins)
        if (a.all || i->mem() != sass::MemKind::None) shown.push_back(i);
      auto d = diffs.find(line);
      if (shown.empty() && d == diffs.end()) continue;
      const std::string text = line >= 1 && line <= int(src.size()) ? src[line - 1] : "";
      out << "\n" << (d != diffs.end() ? "! " : "  ") << line << " | " << text << "\n";
      for (const sass::Instruction* i : shown) {
        char off[16];
        std::snprintf(off, sizeof off, "%04x", i->offset);
        out << "        " << off << "  " << i->text() << "\n";
      }
      if (d != diffs.end()) out << "        ^ " << d->second << "\n";
    }
  }
  return status;
}

}  // namespace

Action declare_sass(CLI::App& sub) {
  auto a = std::make_shared<SassArgs>();
  CLI::App* s = &sub;
  s->add_option("--kernel", a->kernel, "kernel family (see list)")->required();
  s->add_option("--variant", a->variant, "variant of the family")->required();
  s->add_option("--set", a->sets, "parameter key=value (repeatable)");
  s->add_flag("--all", a->all, "every instruction (default: memory and barriers)");
  return [a](std::ostream& out, std::ostream& err, const Hooks&) { return cmd_sass(*a, out, err); };
}

}  // namespace ws::cli
