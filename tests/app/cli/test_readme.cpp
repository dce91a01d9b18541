// The sample outputs of README.md and docs/*.md are real: every code block under a
// `<!-- readme-check: ARGS -->` comment is what `warpscope ARGS` prints, run here on the
// emulator without a display (scripts/readme_samples.py regenerates them).
//
//   <!-- readme-check: list -->              the block's lines appear in the output, in order
//   <!-- readme-check: -->                   (no arguments: the headless demo)
//   <!-- readme-check json: metrics ... -->  every "key": value the block shows is in the JSON
//   <!-- readme-check exit=2: bench ... -->  the exit status, and the block is its output
//
// Lines are compared with runs of spaces collapsed; `...` in a sample line stands for any
// text. A sample that drifts from the program fails here, with the first line not found.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Check {
  int line = 0;         // README line of the comment
  std::string mode;     // "", "json", "exit=N"
  std::string args;
  std::vector<std::string> sample;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<Check> checks(const std::string& readme) {
  std::vector<Check> out;
  std::istringstream in(readme);
  std::string l;
  int n = 0;
  const std::regex marker(R"(^<!-- readme-check( [a-z=0-9]+)?:(.*)-->\s*$)");
  while (std::getline(in, l)) {
    ++n;
    std::smatch m;
    if (!std::regex_match(l, m, marker)) continue;
    Check c;
    c.line = n;
    c.mode = m[1].matched ? m[1].str().substr(1) : "";
    c.args = m[2];
    while (!c.args.empty() && c.args.front() == ' ') c.args.erase(0, 1);
    while (!c.args.empty() && c.args.back() == ' ') c.args.pop_back();
    std::string fence;
    while (std::getline(in, fence) && (++n, fence.rfind("```", 0) != 0)) {
    }
    std::string body;
    while (std::getline(in, body) && (++n, body.rfind("```", 0) != 0)) c.sample.push_back(body);
    out.push_back(c);
  }
  return out;
}

std::string squeeze(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == ' ' && (o.empty() || o.back() == ' ')) continue;
    o += ch;
  }
  while (!o.empty() && o.back() == ' ') o.pop_back();
  return o;
}

// A sample line as a regex: literal text, `...` matches anything.
std::regex pattern(const std::string& line) {
  std::string re;
  const std::string s = squeeze(line);
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 3, "...") == 0) {
      re += ".*";
      i += 2;
      continue;
    }
    if (std::string("\\^$.|?*+()[]{}").find(s[i]) != std::string::npos) re += '\\';
    re += s[i];
  }
  return std::regex(re);
}

struct Outcome {
  int code = -1;
  std::string out, err;
};

Outcome run(const std::string& args, const fs::path& cwd, const fs::path& dir) {
  const fs::path o = dir / "stdout.txt", e = dir / "stderr.txt";
  const std::string cmd = "cd '" + cwd.string() + "' && env -u DISPLAY -u WAYLAND_DISPLAY '" +
                          WS_BINARY_DIR "/warpscope' " + args + " > '" + o.string() + "' 2> '" +
                          e.string() + "'";
  const int st = std::system(cmd.c_str());
  Outcome r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = slurp(o);
  r.err = slurp(e);
  return r;
}

// The first sample line not found, in order, in `text` ("" when all are).
std::string first_missing(const std::vector<std::string>& sample, const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(squeeze(l));
  std::size_t at = 0;
  for (const std::string& s : sample) {
    if (squeeze(s).empty()) continue;
    const std::regex re = pattern(s);
    bool found = false;
    while (at < lines.size() && !found) found = std::regex_match(lines[at++], re);
    if (!found) return s;
  }
  return "";
}

// Every "key": scalar pair shown in a JSON sample must occur in the output as written
// by the program's pretty printer ("key": value).
std::string first_missing_pair(const std::vector<std::string>& sample, const std::string& text) {
  std::string flat;
  for (const auto& s : sample) flat += s + "\n";
  const std::string out = squeeze(text);
  const std::regex pair(R"re("([A-Za-z0-9_.]+)": ("[^"]*"|-?[0-9.]+|true|false))re");
  for (auto it = std::sregex_iterator(flat.begin(), flat.end(), pair); it != std::sregex_iterator();
       ++it) {
    const std::string want = "\"" + (*it)[1].str() + "\": " + (*it)[2].str();
    if (out.find(want) == std::string::npos) return want;
  }
  return "";
}

TEST(Readme, EverySampleIsWhatTheCommandPrints) {
  // The README's tour and the reference pages in docs/ (CLI.md holds most samples).
  std::vector<std::pair<std::string, Check>> cs;
  std::vector<fs::path> files = {fs::path(WS_SOURCE_DIR) / "README.md"};
  for (const auto& e : fs::directory_iterator(fs::path(WS_SOURCE_DIR) / "docs"))
    if (e.path().extension() == ".md") files.push_back(e.path());
  std::sort(files.begin() + 1, files.end());
  for (const fs::path& f : files)
    for (const Check& c : checks(slurp(f))) cs.push_back({f.filename().string(), c});
  ASSERT_GE(cs.size(), 6u) << "README.md and docs/ lost their readme-check blocks";
  ASSERT_EQ(cs.front().first, "README.md") << "the README's tour keeps a checked sample";
  const fs::path dir = fs::temp_directory_path() / ("ws_readme_" + std::to_string(::getpid()));
  for (const auto& [file, c] : cs) {
    SCOPED_TRACE(file + ":" + std::to_string(c.line) + ": warpscope " + c.args);
    fs::remove_all(dir);
    fs::create_directories(dir);
    ASSERT_FALSE(c.sample.empty());
    // The demo writes its charts into the working directory: a scratch one. Everything
    // else runs where the README's paths (lessons/...) are meant, the source tree.
    const Outcome r = run(c.args, c.args.empty() ? dir : fs::path(WS_SOURCE_DIR), dir);
    if (c.mode.rfind("exit=", 0) == 0) {
      EXPECT_EQ(r.code, std::stoi(c.mode.substr(5))) << r.err;
      // The block is what the command printed: its error (stderr), or a verdict that
      // failed (a puzzle's starter, on stdout).
      EXPECT_EQ(first_missing(c.sample, r.out + r.err), "") << "stdout and stderr:\n" << r.out << r.err;
      continue;
    }
    EXPECT_EQ(r.code, 0) << r.err;
    if (c.mode == "json")
      EXPECT_EQ(first_missing_pair(c.sample, r.out), "") << "output:\n" << r.out.substr(0, 4000);
    else
      EXPECT_EQ(first_missing(c.sample, r.out), "") << "output:\n" << r.out;
  }
  fs::remove_all(dir);
}

// The checker itself can fail: a sample line the program never prints is reported.
TEST(Readme, CheckerFindsADriftedSample) {
  EXPECT_EQ(first_missing({"a b", "c ... e"}, "x\na   b\ny\nc d e\n"), "");
  EXPECT_EQ(first_missing({"c d e", "a b"}, "a b\nc d e\n"), "a b");  // order matters
  EXPECT_EQ(first_missing_pair({R"({"n": 1024, "tile": 32})"}, "{\n  \"n\": 1024,\n  \"tile\": 16\n}"),
            "\"tile\": 32");
  const auto cs = checks("<!-- readme-check exit=2: bench --kernel nope -->\n```\nwarpscope: x\n```\n");
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].mode, "exit=2");
  EXPECT_EQ(cs[0].args, "bench --kernel nope");
  EXPECT_EQ(cs[0].sample, std::vector<std::string>{"warpscope: x"});
}

}  // namespace
