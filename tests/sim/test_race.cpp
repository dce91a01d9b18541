// Tests of the shared-memory race detector (sim/race.h) on its own, access by access,
// against its @post: the races an access makes with remembered, unordered accesses, one
// report per pair of lines per launch. The emulator's use of it is tested in
// test_emulator.cpp (EmulatorProblems.Race*).
#include <gtest/gtest.h>

#include "sim/race.h"

using namespace ws::sim;

namespace {

RaceDetector fresh(unsigned warps = 2) {
  RaceDetector d;
  d.start_launch(256, warps);
  d.start_block();
  return d;
}

}  // namespace

TEST(RaceDetector, ReadsNeverRaceWithReads) {
  RaceDetector d = fresh();
  d.begin_instruction();
  EXPECT_TRUE(d.access(0, 5, false, 10).empty());
  EXPECT_TRUE(d.access(40, 5, false, 11).empty());
  EXPECT_TRUE(d.access(3, 5, false, 12).empty());
}

TEST(RaceDetector, WriteThenReadByAnotherWarpRacesUntilABarrier) {
  RaceDetector d = fresh();
  d.begin_instruction();
  EXPECT_TRUE(d.access(0, 7, true, 10).empty());
  d.begin_instruction();
  const auto r = d.access(33, 7, false, 12);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].word, 7u);
  EXPECT_EQ(r[0].tid, 33);
  EXPECT_EQ(r[0].line, 12);
  EXPECT_FALSE(r[0].write);
  EXPECT_EQ(r[0].prev_tid, 0);
  EXPECT_EQ(r[0].prev_line, 10);
  EXPECT_TRUE(r[0].prev_write);
  EXPECT_FALSE(r[0].same_instruction);

  RaceDetector e = fresh();
  e.begin_instruction();
  EXPECT_TRUE(e.access(0, 7, true, 10).empty());
  e.barrier();
  e.begin_instruction();
  EXPECT_TRUE(e.access(33, 7, false, 12).empty()) << "a barrier orders the two";
}

TEST(RaceDetector, OwnAccessesNeverRace) {
  RaceDetector d = fresh();
  d.begin_instruction();
  EXPECT_TRUE(d.access(4, 1, true, 10).empty());
  d.begin_instruction();
  EXPECT_TRUE(d.access(4, 1, false, 11).empty());
  d.begin_instruction();
  EXPECT_TRUE(d.access(4, 1, true, 12).empty());
}

TEST(RaceDetector, ReadThenWriteFindsTheReader) {
  RaceDetector d = fresh();
  d.begin_instruction();
  EXPECT_TRUE(d.access(1, 2, false, 20).empty());
  EXPECT_TRUE(d.access(2, 2, false, 20).empty());
  d.begin_instruction();
  // Thread 2 was the last reader (r0); thread 1 (r1) is unordered too, but one reader
  // is enough to name the race.
  const auto r = d.access(1, 2, true, 21);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].prev_tid, 2);
  EXPECT_FALSE(r[0].prev_write);
  EXPECT_TRUE(r[0].write);
}

TEST(RaceDetector, SecondReaderIsCheckedWhenTheLastIsTheWriterItself) {
  RaceDetector d = fresh();
  d.begin_instruction();
  EXPECT_TRUE(d.access(1, 2, false, 20).empty());
  d.begin_instruction();
  EXPECT_TRUE(d.access(2, 2, false, 21).empty());
  d.begin_instruction();
  const auto r = d.access(2, 2, true, 22);  // r0 is thread 2 itself: r1 (thread 1) races
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].prev_tid, 1);
  EXPECT_EQ(r[0].prev_line, 20);
}

TEST(RaceDetector, WriteAfterWriteAndReadReportsBoth) {
  RaceDetector d = fresh();
  d.begin_instruction();
  EXPECT_TRUE(d.access(0, 3, true, 30).empty());
  d.begin_instruction();
  EXPECT_EQ(d.access(40, 3, false, 31).size(), 1u);  // read after write
  d.begin_instruction();
  const auto r = d.access(50, 3, true, 32);
  ASSERT_EQ(r.size(), 2u) << "the last write first, then a reader";
  EXPECT_EQ(r[0].prev_line, 30);
  EXPECT_TRUE(r[0].prev_write);
  EXPECT_EQ(r[1].prev_line, 31);
  EXPECT_FALSE(r[1].prev_write);
}

TEST(RaceDetector, OneInstructionTwoWritersIsSameInstruction) {
  RaceDetector d = fresh();
  d.begin_instruction();
  EXPECT_TRUE(d.access(0, 0, true, 40).empty());
  const auto r = d.access(1, 0, true, 40);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].same_instruction);
  EXPECT_NE(describe(r[0], "'flag' word 0", 0).find("same instruction as thread 0"),
            std::string::npos);
}

TEST(RaceDetector, SyncwarpOrdersOnlyTheLanesItNames) {
  RaceDetector d = fresh();
  d.begin_instruction();
  EXPECT_TRUE(d.access(0, 9, true, 50).empty());
  EXPECT_TRUE(d.access(1, 10, true, 50).empty());
  d.syncwarp(0, 0b01);  // names lane 0 only: lane 0 and 1 are still unordered
  d.begin_instruction();
  EXPECT_EQ(d.access(1, 9, false, 52).size(), 1u);
  d.syncwarp(0, 0b11);
  d.begin_instruction();
  EXPECT_TRUE(d.access(0, 10, false, 53).empty()) << "the later __syncwarp named both";
}

TEST(RaceDetector, SyncwarpDoesNotOrderOtherWarps) {
  RaceDetector d = fresh();
  d.begin_instruction();
  EXPECT_TRUE(d.access(0, 9, true, 50).empty());
  d.syncwarp(0, 0xFFFFFFFFu);
  d.syncwarp(1, 0xFFFFFFFFu);
  d.begin_instruction();
  const auto r = d.access(32, 9, false, 52);
  ASSERT_EQ(r.size(), 1u);
  const std::string m = describe(r[0], "'x' word 9", 3);
  EXPECT_EQ(m.find("__syncwarp"), std::string::npos) << "different warps: " << m;
  EXPECT_NE(m.find("no __syncthreads between"), std::string::npos) << m;
}

TEST(RaceDetector, EachPairOfLinesIsReportedOncePerLaunch) {
  RaceDetector d = fresh();
  d.begin_instruction();
  EXPECT_TRUE(d.access(0, 1, true, 60).empty());
  EXPECT_TRUE(d.access(0, 2, true, 60).empty());
  d.begin_instruction();
  EXPECT_EQ(d.access(40, 1, false, 61).size(), 1u);
  EXPECT_TRUE(d.access(40, 2, false, 61).empty()) << "(61, 60) was reported";
  // A new block forgets the accesses but not the reported pairs.
  d.start_block();
  d.begin_instruction();
  EXPECT_TRUE(d.access(0, 1, true, 60).empty());
  d.begin_instruction();
  EXPECT_TRUE(d.access(40, 1, false, 61).empty());
  EXPECT_EQ(d.access(40, 1, true, 62).size(), 1u) << "(62, 60) is a new pair";
  // A new launch forgets them too.
  d.start_launch(256, 2);
  d.start_block();
  d.begin_instruction();
  EXPECT_TRUE(d.access(0, 1, true, 60).empty());
  d.begin_instruction();
  EXPECT_EQ(d.access(40, 1, false, 61).size(), 1u);
}

TEST(RaceDetector, NewBlockForgetsAccessesAndSyncwarpCounts) {
  RaceDetector d = fresh();
  d.begin_instruction();
  EXPECT_TRUE(d.access(0, 4, true, 70).empty());
  d.syncwarp(0, 0xFFFFFFFFu);
  d.start_block();
  d.begin_instruction();
  EXPECT_TRUE(d.access(1, 4, false, 71).empty()) << "the write was in the previous block";
  d.begin_instruction();
  EXPECT_TRUE(d.access(0, 5, true, 72).empty());
  d.begin_instruction();
  // Without the reset, the old block's __syncwarp (seq 1) would order this pair.
  EXPECT_EQ(d.access(1, 5, false, 73).size(), 1u);
}

TEST(RaceDetector, DescribeNamesBothSides) {
  Race r;
  r.word = 3;
  r.tid = 40;
  r.line = 12;
  r.write = false;
  r.prev_tid = 7;
  r.prev_line = 10;
  r.prev_write = true;
  EXPECT_EQ(describe(r, "'buf' word 3", 2),
            "race on shared array 'buf' word 3 in block 2: thread 40 reads it on line 12 after "
            "thread 7 wrote it on line 10, with no __syncthreads between");
  r.tid = 8;
  EXPECT_EQ(describe(r, "'buf' word 3", 2),
            "race on shared array 'buf' word 3 in block 2: thread 8 reads it on line 12 after "
            "thread 7 wrote it on line 10, with no __syncthreads or __syncwarp between");
}
