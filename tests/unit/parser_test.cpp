#include <gtest/gtest.h>

#include "controller/options/workload_settings.h"
#include "controller/topology/diagnostics.h"
#include "controller/topology/schedule.h"

#include <set>
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

TEST(Parser, Internet2Profile) {
  const Topology t = parse_profile_file(TESTBED_PROFILES_DIR + "/internet2.yaml");
  EXPECT_EQ(t.lab, "internet2");
  ASSERT_EQ(t.nodes.size(), 9u);
  ASSERT_EQ(t.links.size(), 13u);
  EXPECT_EQ(t.pool.str(), "198.18.0.0/15");
  for (const Link& l : t.links) {
    for (const DirectionParams* d : {&l.a2b, &l.b2a}) {
      EXPECT_EQ(d->delay.us, 30000);
      EXPECT_DOUBLE_EQ(d->loss.value, 0.0002);
      EXPECT_GE(d->rate.bits_per_s, 20000000u);
      EXPECT_LE(d->rate.bits_per_s, 155000000u);
    }
  }
  // Directions really differ: NetStorm shapes each one independently.
  int asymmetric = 0;
  for (const Link& l : t.links) asymmetric += l.a2b.rate != l.b2a.rate;
  EXPECT_GE(asymmetric, 10);
}

TEST(Parser, Internet2DynamicDrawsEachDirectionIndependently) {
  const Topology t = parse_profile_file(TESTBED_PROFILES_DIR + "/internet2-dynamic.yaml");
  ASSERT_EQ(t.links.size(), 13u);
  std::set<std::vector<uint64_t>> sequences;  // each direction's rates over an hour
  for (size_t l = 0; l < t.links.size(); ++l) {
    for (const bool b2a : {false, true}) {
      const DirectionParams& d = b2a ? t.links[l].b2a : t.links[l].a2b;
      EXPECT_EQ(d.schedule.kind, Schedule::Kind::kRandom);
      EXPECT_EQ(d.schedule.every_us, 180000000);
      // The rate at time 0 is the schedule's first draw.
      const auto first = schedule_changes(d.schedule, direction_stream(l, b2a), 0, 1);
      ASSERT_EQ(first.size(), 1u);
      EXPECT_EQ(d.rate, *first[0].rate);
      std::vector<uint64_t> rates;
      for (const auto& c :
           schedule_changes(d.schedule, direction_stream(l, b2a), 0, 3600000000LL)) {
        rates.push_back(c.rate->bits_per_s);
      }
      sequences.insert(rates);
    }
  }
  EXPECT_EQ(sequences.size(), 26u);
}

TEST(Parser, B4Profile) {
  const Topology t = parse_profile_file(TESTBED_PROFILES_DIR + "/b4.yaml");
  EXPECT_EQ(t.nodes.size(), 12u);
  EXPECT_EQ(t.links.size(), 19u);
  for (const Link& l : t.links) {
    EXPECT_GE(l.a2b.rate.bits_per_s, 500000000u);
    EXPECT_LE(l.a2b.rate.bits_per_s, 5000000000u);
  }
}

TEST(Parser, LayersResolveDefaultsLinkThenDirection) {
  const Topology t = parse_profile_text(R"(
lab: layers
pool: 198.18.0.0/24
routing: delay
defaults: {bandwidth: 10mbit, delay: 5ms, loss: 1%, queue: 100}
nodes: {a: {}, b: {}}
links:
  - endpoints: [a, b]
    delay: 20ms
    jitter: 250us
    b2a: {bandwidth: 2mbit, queue: 64kb}
)",
                                        "layers.yaml");
  EXPECT_EQ(t.metric, RouteMetric::kDelay);
  EXPECT_EQ(t.pool.str(), "198.18.0.0/24");
  const Link& l = t.links.at(0);
  EXPECT_EQ(l.a2b.rate.bits_per_s, 10000000u);
  EXPECT_EQ(l.b2a.rate.bits_per_s, 2000000u);
  EXPECT_EQ(l.a2b.delay.us, 20000);
  EXPECT_EQ(l.b2a.delay.us, 20000);
  EXPECT_EQ(l.b2a.jitter.us, 250);
  EXPECT_DOUBLE_EQ(l.a2b.loss.value, 0.01);
  EXPECT_EQ(*l.a2b.queue, (QueueSize{QueueSize::Unit::kPackets, 100}));
  EXPECT_EQ(*l.b2a.queue, (QueueSize{QueueSize::Unit::kBytes, 65536}));
}

TEST(Parser, MissingFileIsAnError) {
  try {
    parse_profile_file("/nonexistent/x.yaml");
    FAIL() << "expected ValidationError";
  } catch (const ValidationError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].str(), "/nonexistent/x.yaml: cannot read the file");
  }
}

}  // namespace
}  // namespace testbed
