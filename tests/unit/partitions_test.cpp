// A profile's partitions (controller/topology/partitions.h): the links crossing the cut go
// down both ways at `at` and up at `heal`, overlapping partitions merge, and what would cut
// nothing or overlap a link's own down time is refused where it is written.
#include "controller/topology/partitions.h"

#include <gtest/gtest.h>

#include "controller/lab/plan.h"
#include "controller/lab/planner.h"
#include "controller/options/workload_settings.h"
#include "controller/topology/diagnostics.h"
#include "validation_errors.h"

namespace testbed {
namespace {

// a - b - c - d in a line, and a - c.
const std::string kLine =
    "lab: p\nnodes: {a: {}, b: {}, c: {}, d: {}}\nlinks:\n"
    "  - {endpoints: [a, b], bandwidth: 10mbit}\n  - {endpoints: [b, c], bandwidth: 10mbit}\n"
    "  - {endpoints: [c, d], bandwidth: 10mbit}\n  - {endpoints: [a, c], bandwidth: 10mbit}\n";

Topology parse(const std::string& partitions) {
  return parse_profile_text(kLine + "partitions:\n" + partitions, "p.yaml");
}

std::vector<std::string> errors_of(const std::string& text) {
  return validation_errors([&] { parse_profile_text(text, "p.yaml"); });
}

std::vector<std::pair<int64_t, bool>> faults(const DirectionParams& d) {
  std::vector<std::pair<int64_t, bool>> out;
  for (const auto& c : d.faults) out.emplace_back(c.at_us, *c.down);
  return out;
}

TEST(Partitions, EveryLinkCrossingTheCutGoesDownBothWaysAndHeals) {
  const Topology t = parse("  - {nodes: [d], at: 10s, heal: 40s}\n");
  const std::vector<std::pair<int64_t, bool>> cut = {{10000000, true}, {40000000, false}};
  EXPECT_EQ(faults(t.links[2].a2b), cut);  // c - d: the only link to d
  EXPECT_EQ(faults(t.links[2].b2a), cut);
  for (size_t l : {0u, 1u, 3u}) EXPECT_TRUE(t.links[l].a2b.faults.empty()) << l;
  ASSERT_EQ(t.partitions.size(), 1u);
  // Through the plan, as the timeline reads it; and a timeline is started for it.
  const Plan plan = make_plan(t, false);
  EXPECT_TRUE(plan.has_schedules);
  EXPECT_EQ(fault_changes(t.links[2].a2b, 0, 20000000).size(), 1u);
  EXPECT_EQ(fault_changes(t.links[2].a2b, 20000000, 60000000).size(), 1u);
}

TEST(Partitions, OverlappingPartitionsOnALinkMergeIntoOneDownInterval) {
  // {a, b} cuts b-c and a-c; {a} cuts a-b and a-c: a-c is cut by both, 10-30 and 20-50.
  const Topology t =
      parse("  - {nodes: [a, b], at: 10s, heal: 30s}\n  - {nodes: [a], at: 20s, heal: 50s}\n");
  const std::vector<std::pair<int64_t, bool>> both = {{10000000, true}, {50000000, false}};
  EXPECT_EQ(faults(t.links[3].a2b), both);
  const std::vector<std::pair<int64_t, bool>> first = {{10000000, true}, {30000000, false}};
  EXPECT_EQ(faults(t.links[1].b2a), first);  // b-c: the first only
  const std::vector<std::pair<int64_t, bool>> second = {{20000000, true}, {50000000, false}};
  EXPECT_EQ(faults(t.links[0].a2b), second);  // a-b: the second only
}

TEST(Partitions, BadPartitionsAreRefusedWhereTheyAreWritten) {
  EXPECT_EQ(errors_of(kLine + "partitions:\n  - {nodes: [e], at: 10s, heal: 20s}\n"),
            std::vector<std::string>{"p.yaml:9:14: nodes: no node named 'e'"});
  EXPECT_EQ(errors_of(kLine + "partitions:\n  - {nodes: [a, b, c, d], at: 10s, heal: 20s}\n"),
            std::vector<std::string>{
                "p.yaml:9:13: nodes: the partition cuts no link (nothing crosses it)"});
  EXPECT_EQ(errors_of(kLine + "partitions:\n  - {nodes: [a], at: 20s, heal: 10s}\n"),
            std::vector<std::string>{"p.yaml:9:33: heal: must be later than at"});
  EXPECT_EQ(
      errors_of(kLine + "partitions:\n  - {nodes: [a], at: 0s, heal: 10s}\n"),
      std::vector<std::string>{"p.yaml:9:22: at: must be after the start (a lab comes up whole)"});
  // d's only link is down by its own schedule from 15 s; a partition of d at 10-20 s overlaps.
  const std::string scheduled =
      "lab: p\nnodes: {a: {}, d: {}}\nlinks:\n  - endpoints: [a, d]\n    bandwidth: 10mbit\n"
      "    schedule: {steps: [{at: 15s, state: down}, {at: 30s, state: up}]}\n";
  EXPECT_EQ(errors_of(scheduled + "partitions:\n  - {nodes: [d], at: 10s, heal: 20s}\n"),
            (std::vector<std::string>{
                "p.yaml:8:5: partition: it cuts a->d from 10s to 20s, while its schedule has it "
                "down from 15s: overlapping down intervals",
                "p.yaml:8:5: partition: it cuts d->a from 10s to 20s, while its schedule has it "
                "down from 15s: overlapping down intervals"}));
}

}  // namespace
}  // namespace testbed
