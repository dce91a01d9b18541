// A recording's runs are tied to the family header they were measured from: a run whose
// header changed since is stale, and find() leaves it out, so the app models that time
// again instead of showing a measurement of code that no longer exists.
#include <gtest/gtest.h>

#include "kernels/recording.h"

namespace ws {
namespace {

Recording one_run(const std::string& hash) {
  Recording rec;
  rec.device.name = "test GPU";
  RecordedRun r;
  r.family = "transpose";
  r.variant = "tiled";
  r.params = {{"n", 1024}};
  r.source_hash = hash;
  rec.runs.push_back(r);
  return rec;
}

TEST(Recording, FamilySourceHashIsTheHeadersFnv1a) {
  const std::string h = family_source_hash("kernels/transpose.cuh");
  ASSERT_EQ(h.size(), 16u) << "the source tree is found from the test binary";
  EXPECT_EQ(h, family_source_hash("kernels/transpose.cuh"));
  EXPECT_NE(h, family_source_hash("kernels/reduce.cuh"));
  EXPECT_EQ(family_source_hash("kernels/no-such-family.cuh"), "");
}

TEST(Recording, ARunOfChangedSourceIsStaleAndNotFound) {
  const Recording current = one_run(family_source_hash("kernels/transpose.cuh"));
  EXPECT_FALSE(current.is_stale(current.runs[0]));
  EXPECT_NE(current.find("transpose", "tiled", {{"n", 1024}}), nullptr);
  EXPECT_EQ(current.stale_families(), "");

  const Recording old = one_run("0123456789abcdef");
  EXPECT_TRUE(old.is_stale(old.runs[0]));
  EXPECT_EQ(old.find("transpose", "tiled", {{"n", 1024}}), nullptr);
  EXPECT_EQ(old.stale_families(), "transpose");

  // A run recorded before hashes were kept is taken as it is.
  const Recording legacy = one_run("");
  EXPECT_FALSE(legacy.is_stale(legacy.runs[0]));
  EXPECT_NE(legacy.find("transpose", "tiled", {{"n", 1024}}), nullptr);
}

TEST(Recording, TheHashSurvivesTheFile) {
  const Recording rec = one_run("00000000000000ff");
  const std::string path = testing::TempDir() + "/ws-recording-hash.json";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_TRUE(f);
    const std::string text = recording_json(rec);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  Recording back;
  std::string err;
  ASSERT_TRUE(load_recording(path, back, err)) << err;
  ASSERT_EQ(back.runs.size(), 1u);
  EXPECT_EQ(back.runs[0].source_hash, "00000000000000ff");
  EXPECT_TRUE(back.is_stale(back.runs[0]));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace ws
