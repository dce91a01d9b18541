#pragma once
// The shipped lessons and recordings, for the tests that go over every pair of them
// (test_lesson_refs.cpp, test_lessons.cpp): one loop over the recordings, one rule for
// which pairs are left out.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "app/lesson/lesson_model.h"
#include "app/lesson/lesson_refs.h"

#ifndef WS_SOURCE_DIR
#error "include shipped.h from a test source that names WS_SOURCE_DIR (tests/CMakeLists.txt)"
#endif

namespace ws::lesson::shipped {

// The files ending in `ext` of one folder of the source tree, README.md left out, in
// name order.
inline std::vector<std::string> files_in(const char* dir, const char* ext) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(WS_SOURCE_DIR) / dir))
    if (e.path().extension() == ext && e.path().filename() != "README.md")
      out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<std::string> lesson_files() { return files_in("lessons", ".md"); }
inline std::vector<std::string> recording_files() { return files_in("assets/recordings", ".json"); }

// Every shipped recording (the H100's, the H200's), loaded; one that does not load fails
// the test that asked and is left out.
inline std::vector<Recording> recordings() {
  std::vector<Recording> out;
  for (const auto& path : recording_files()) {
    Recording rec;
    std::string why;
    if (load_recording(path, rec, why))
      out.push_back(std::move(rec));
    else
      ADD_FAILURE() << path << ": " << why;
  }
  return out;
}

// Whether the recording has runs of every family the lesson's labs use.
inline bool holds_families(const Recording& rec, const Lesson& l) {
  for (const auto& s : l.steps) {
    if (!s.lab) continue;
    bool any = false;
    for (const auto& r : rec.runs) any = any || r.family == s.lab->family;
    if (!any) return false;
  }
  return true;
}

// Calls fn(rec) for each recording that can answer the lesson, with it as the recording
// lessons quote (set_quoted_recording), unset after. A recording made before a family
// existed cannot answer a lesson about it (the H200's predates the tensor and async_copy
// families): such a pair is left out, and said so.
// @post the number of recordings fn was called with; the quoted recording is unset.
template <class Fn>
int for_each_recording(const Lesson& l, const std::vector<Recording>& recs, Fn&& fn) {
  int checked = 0;
  for (const Recording& rec : recs) {
    if (!holds_families(rec, l)) {
      std::printf("%s: not checked against %s, which lacks runs of its families\n",
                  l.path.c_str(), rec.device.name.c_str());
      continue;
    }
    ++checked;
    set_quoted_recording(&rec);
    fn(rec);
    set_quoted_recording(nullptr);
  }
  return checked;
}

}  // namespace ws::lesson::shipped
