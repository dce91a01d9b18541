// `warpscope latency`: the options; the command itself is latency.cpp.
#include "app/cli/command.h"

#include <CLI/CLI.hpp>
#include <memory>

#include "app/cli/latency.h"

namespace ws::cli {

Action declare_latency(CLI::App& sub) {
  auto a = std::make_shared<LatencyArgs>();
  CLI::App* s = &sub;
  add_backend(s, a->backend);
  s->add_flag("--json", a->json, "JSON output");
  s->add_option("--runs", a->runs, "changes per case (p50/p95 over them)")->capture_default_str();
  s->add_option("--kernel", a->kernel, "only this family's case");
  s->add_option("--set", a->sets, "that case's parameter key=value (repeatable)");
  s->add_option("--editor", a->editor,
                "PUZZLE.md: time the editor's check of its solution after a one-character edit "
                "(save, compile, trace, run, verdict)");
  return [a](std::ostream& out, std::ostream& err, const Hooks&) { return cmd_latency(*a, out, err); };
}

}  // namespace ws::cli
