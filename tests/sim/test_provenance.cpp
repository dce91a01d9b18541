// Tests of sim/provenance.h against its @posts: labels per source, the wording derived from
// each set of sources, and ratios across sources marked or refused.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/provenance.h"

using namespace ws::sim;

namespace {

const Provenance kMeasured = Provenance::measured("NVIDIA H100 80GB HBM3");
const Provenance kRecorded = Provenance::recorded("NVIDIA H100 80GB HBM3", "2026-11-23T10:00:00Z");
const Provenance kModelledDram = Provenance::modelled("dram");
const Provenance kModelledL2 = Provenance::modelled("l2");
const Provenance kSpec = Provenance::spec("NVIDIA H100 80GB HBM3");

}  // namespace

TEST(Provenance, EverySourceHasItsName) {
  EXPECT_EQ(to_string(Source::None), "none");
  EXPECT_EQ(to_string(Source::Measured), "measured");
  EXPECT_EQ(to_string(Source::Recorded), "recorded");
  EXPECT_EQ(to_string(Source::Modelled), "modelled");
  EXPECT_EQ(to_string(Source::Spec), "spec");
  EXPECT_EQ(to_string(MixedRatio::Refuse), "refuse");
}

TEST(Provenance, LabelsSayDeviceDateAndBound) {
  EXPECT_EQ(kRecorded.date, "2026-11-23");  // to the day
  EXPECT_EQ(short_label(kRecorded), "recorded");
  EXPECT_EQ(long_label(kRecorded), "recorded on NVIDIA H100 80GB HBM3, 2026-11-23");
  EXPECT_EQ(to_string(kRecorded), "recorded (NVIDIA H100 80GB HBM3, 2026-11-23)");
  EXPECT_EQ(long_label(kMeasured), "measured on NVIDIA H100 80GB HBM3 (this device, now)");
  EXPECT_EQ(to_string(kModelledDram), "modelled (dram-bound)");
  EXPECT_EQ(long_label(kModelledDram), "modelled by warpscope's model (dram-bound)");
  EXPECT_EQ(to_string(Provenance::modelled()), "modelled");
  // The peak is neither measured nor modelled.
  for (const std::string& s : {short_label(kSpec), long_label(kSpec), to_string(kSpec)}) {
    EXPECT_EQ(s.find("modelled"), std::string::npos) << s;
    EXPECT_EQ(s.find("measured"), std::string::npos) << s;
  }
  EXPECT_EQ(long_label(kSpec), "theoretical peak, NVIDIA H100 80GB HBM3 data sheet");
  for (const Provenance& p : {kMeasured, kRecorded, kModelledDram}) {
    EXPECT_EQ(long_label(p).rfind(short_label(p), 0), 0u) << long_label(p);
    EXPECT_EQ(to_string(p).rfind(short_label(p), 0), 0u) << to_string(p);
  }
  EXPECT_EQ(short_label(Provenance{}), "");
  EXPECT_EQ(long_label(Provenance{}), "");
  EXPECT_EQ(to_string(Provenance{}), "");
}

TEST(Provenance, SameSourceIgnoresTheBoundOnly) {
  EXPECT_TRUE(kModelledDram.same_source(kModelledL2));
  EXPECT_FALSE(kModelledDram == kModelledL2);
  EXPECT_FALSE(kMeasured.same_source(kRecorded));
  EXPECT_FALSE(kRecorded.same_source(Provenance::recorded("NVIDIA H100 80GB HBM3", "2026-11-26")));
  EXPECT_FALSE(kRecorded.same_source(Provenance::recorded("NVIDIA H200", "2026-11-23")));
}

TEST(SourceWording, EachSetOfSourcesGetsItsOwnWords) {
  // Nothing timed (counts): no words at all.
  SourceWording none = describe_sources({Provenance{}, Provenance{}});
  EXPECT_TRUE(none.sources.empty());
  EXPECT_FALSE(none.mixed);
  EXPECT_EQ(axis_title("sectors", none), "sectors");
  EXPECT_EQ(none.footer, "");

  SourceWording rec = describe_sources({kRecorded, kRecorded, Provenance{}});
  ASSERT_EQ(rec.sources.size(), 1u);
  EXPECT_FALSE(rec.mixed);
  EXPECT_EQ(axis_title("GB/s", rec), "GB/s (recorded)");
  EXPECT_EQ(rec.subtitle, "recorded on NVIDIA H100 80GB HBM3, 2026-11-23");
  EXPECT_EQ(rec.footer, "source: recorded on NVIDIA H100 80GB HBM3, 2026-11-23");

  SourceWording mod = describe_sources({kModelledDram, kModelledL2});
  ASSERT_EQ(mod.sources.size(), 1u);  // one model, whatever bounds each point
  EXPECT_EQ(axis_title("GB/s", mod), "GB/s (modelled)");
  EXPECT_EQ(mod.subtitle, "modelled by warpscope's model");

  SourceWording meas = describe_sources({kMeasured});
  EXPECT_EQ(axis_title("GB/s", meas), "GB/s (measured)");

  // Modelled first in the values, recorded first in the words.
  SourceWording mix = describe_sources({kModelledDram, kRecorded, kModelledL2});
  ASSERT_EQ(mix.sources.size(), 2u);
  EXPECT_TRUE(mix.mixed);
  EXPECT_EQ(mix.sources[0].source, Source::Recorded);
  EXPECT_EQ(axis_title("GB/s", mix), "GB/s (recorded and modelled)");
  EXPECT_EQ(mix.subtitle,
            "recorded on NVIDIA H100 80GB HBM3, 2026-11-23 · modelled by warpscope's model");

  // Two recordings of one kind are two sources, the kind named once.
  SourceWording two = describe_sources({kRecorded, Provenance::recorded("NVIDIA H200", "2026-11-26")});
  EXPECT_TRUE(two.mixed);
  EXPECT_EQ(two.axis, "recorded");

  // The peak is not a source of the drawn values; the footer names it as the data sheet.
  SourceWording spec = describe_sources({kRecorded, kSpec});
  EXPECT_EQ(spec.sources.size(), 1u);
  EXPECT_EQ(axis_title("GB/s", spec), "GB/s (recorded)");
  EXPECT_NE(spec.footer.find("peak: theoretical peak, NVIDIA H100 80GB HBM3 data sheet"),
            std::string::npos);
  SourceWording only_spec = describe_sources({kSpec});
  EXPECT_EQ(only_spec.axis, "");
  EXPECT_NE(only_spec.footer, "");
}

TEST(SourcedRatio, SameSourceIsAPlainRatio) {
  const SourcedRatio r = ratio(3.0, kRecorded, 1.5, kRecorded);
  EXPECT_FALSE(r.mixed);
  EXPECT_DOUBLE_EQ(r.value, 2.0);
  EXPECT_EQ(r.text(), "2.00x");
  EXPECT_DOUBLE_EQ(ratio(1, kModelledDram, 2, kModelledL2).value, 0.5);
}

TEST(SourcedRatio, AcrossSourcesItIsMarkedOrRefused) {
  const SourcedRatio m = ratio(0.64, kRecorded, 1.0, kModelledDram);
  EXPECT_TRUE(m.mixed);
  EXPECT_DOUBLE_EQ(m.value, 0.64);
  EXPECT_EQ(m.note, "(mixed: recorded / modelled)");
  EXPECT_EQ(m.text(), "0.64x (mixed: recorded / modelled)");
  const SourcedRatio r = ratio(0.64, kRecorded, 1.0, kModelledDram, MixedRatio::Refuse);
  EXPECT_TRUE(r.refused());
  EXPECT_EQ(r.text(), "-");
  // Two recordings of different dates: the note tells them apart.
  const SourcedRatio d =
      ratio(1, kRecorded, 1, Provenance::recorded("NVIDIA H100 80GB HBM3", "2026-11-26"));
  EXPECT_EQ(d.note,
            "(mixed: recorded (NVIDIA H100 80GB HBM3, 2026-11-23) / recorded (NVIDIA H100 80GB "
            "HBM3, 2026-11-26))");
  EXPECT_TRUE(std::isnan(ratio(1, kMeasured, 0, kMeasured).value));
}
