#pragma once
// Lessons: Markdown files with front matter and fenced `lab`, `predict` and `goal`
// blocks that the player acts on. Parsed with md4c. See lessons/README.md for the format.
#include <iosfwd>
#include <string>
#include <vector>

#include "kernels/backends/backend.h"
#include "kernels/hardware/recording.h"

namespace ws::lesson {

// `warpscope lesson --validate FILE...`: every block checked against the catalogue.
// Prints `file:line: message` per error. Returns 0 when all files are valid, else 1.
int validate_files(const std::vector<std::string>& files, std::ostream& out);

// The steps (`##` sections) of a lesson file, for `--step N`.
// @post -1 with `error` (its first problem) when the file does not parse, else the count.
int step_count(const std::string& file, std::string& error);

// `warpscope lesson --check FILE`: runs every lab on `backend` and confirms each predict
// answer and goal is reachable. Returns 0 when all are, else 1.
int check_file(const std::string& file, Backend& backend, std::ostream& out);

// Every configuration a lesson times, for `warpscope record`: each lab whose step asks for
// a timed quantity, at its timing size; each timed goal's reach there; each `over:VARIANT`
// reference. Parameters as the lesson gives them (the recorder completes them).
// @post false with `error` (the file's first problem) when it does not parse or validate.
bool timed_configs(const std::string& file, std::vector<RecordTarget>& out, std::string& error);

}  // namespace ws::lesson
