#pragma once
// The blocks of a lesson file, between the line scanner (lesson_parse.cpp) and the block
// parsers (lesson_blocks.cpp); not part of the lesson API.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/lesson/lesson_model.h"

namespace ws::lesson::detail {

// One parse's file name and the errors found so far, each with its line.
struct Ctx {
  std::string name;
  std::vector<Diagnostic> errors;
  void error(int line, std::string msg) { errors.push_back({name, line, std::move(msg)}); }
};

struct KV {
  std::string value;
  int line = 0;
};
using KVs = std::map<std::string, KV>;

// `key: value` lines (the first numbered first_line), keys from `allowed`; `what` names the
// block in messages. @post every line that is not a comment, a continuation or a fresh
// allowed key adds one error to `c`.
KVs parse_kv(const std::vector<std::string>& lines, int first_line, const std::string& what,
             const std::vector<std::string>& allowed, Ctx& c);
// @post true iff `key` is present and non-empty; else one error (at the fence when absent).
bool require(const KVs& kv, const std::string& key, const std::string& what, int fence_line,
             Ctx& c);
// `name=integer` words into `out` (with `variant`, `variant=NAME` into it).
// @post false iff an error was added to `c`.
bool parse_params(const std::string& text, int line, const std::string& what, Params& out,
                  Ctx& c, std::string* variant = nullptr);

// A block's lines (after its fence at line `fence`).
// @post a value iff the block added no error to `c`.
std::optional<Lab> parse_lab(const std::vector<std::string>& lines, int fence, Ctx& c);
std::optional<Predict> parse_predict(const std::vector<std::string>& lines, int fence, Ctx& c);
std::optional<Goal> parse_goal(const std::vector<std::string>& lines, int fence, Ctx& c);
// A lab, predict or goal block (`kind`) at line `no` parsed into `step`, with its marker in
// the step's body. @post the step gains the block and its marker iff it added no error to `c`
// (a second lab in a step is one).
void add_block(const std::string& kind, const std::vector<std::string>& content, int no,
               Step& step, Ctx& c);

}  // namespace ws::lesson::detail
