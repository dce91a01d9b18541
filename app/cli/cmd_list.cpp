// `warpscope list`: the kernel families, their variants and parameters.
#include "app/cli/command.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

namespace ws::cli {

namespace {

int cmd_list(bool json, std::ostream& out) {
  if (json) {
    Json fams = Json::array();
    for (const auto& f : family_names()) {
      Json vs = Json::array();
      for (const auto* v : family_variants(f)) {
        Json jv;
        jv["name"] = v->name;
        jv["title"] = v->title;
        jv["why"] = v->why;
        jv["source_file"] = v->source_file;
        jv["entry"] = v->entry;
        Json ps = Json::array();
        for (const auto& p : v->params) {
          Json jp;
          jp["name"] = p.name;
          jp["default"] = p.def;
          if (p.choices.empty()) {
            jp["min"] = p.min;
            jp["max"] = p.max;
          } else {
            jp["choices"] = p.choices;
          }
          jp["help"] = p.help;
          ps.push_back(jp);
        }
        jv["params"] = ps;
        vs.push_back(jv);
      }
      Json jf;
      jf["family"] = f;
      jf["variants"] = vs;
      fams.push_back(jf);
    }
    Json j;
    j["families"] = fams;
    out << pretty(j, 5);
    return kExitOk;
  }
  for (const auto& f : family_names()) {
    out << f << "\n";
    for (const auto* v : family_variants(f)) {
      out << "  " << v->name << " - " << v->title << "\n";
      if (!v->why.empty()) out << "      " << v->why << "\n";
      out << "      source: " << v->source_file << " (struct " << v->entry << ")\n";
      for (const auto& p : v->params) {
        std::string range;
        if (p.choices.empty()) {
          range = "[" + std::to_string(p.min) + ".." + std::to_string(p.max) + "]";
        } else {
          for (long long c : p.choices) range += (range.empty() ? "{" : ",") + std::to_string(c);
          range += "}";
        }
        out << "      --set " << p.name << "=" << p.def << "  " << range;
        if (!p.help.empty()) out << "  " << p.help;
        out << "\n";
      }
    }
  }
  return kExitOk;
}

}  // namespace

Action declare_list(CLI::App& sub) {
  auto json = std::make_shared<bool>(false);
  sub.add_flag("--json", *json, "JSON output");
  return [json](std::ostream& out, std::ostream&, const Hooks&) { return cmd_list(*json, out); };
}

}  // namespace ws::cli
