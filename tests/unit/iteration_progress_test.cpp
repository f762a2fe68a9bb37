// A child's progress as `regress` and `run` read it (controller/runs/iteration_progress.h):
// the writer's line reads back whole; anything else on the child's stderr is not progress.
#include "controller/runs/iteration_progress.h"

#include <gtest/gtest.h>

#include <sstream>

namespace testbed {
namespace {

TEST(IterationProgress, TheWritersLineReadsBackWhole) {
  IterationProgress ps;
  ps.iteration = 3;
  ps.iterations = 10;
  ps.strategy = "ssp";
  ps.seconds = 0.41;
  ps.fastest_clock = 5;
  ps.loss = 0.25;
  IterationProgress tree;
  tree.iteration = 1;
  tree.iterations = 2;
  tree.strategy = "netstorm";
  tree.seconds = 1.5;
  tree.samples_per_s = 42.5;
  tree.policy_version = 2;
  tree.aux_share = 0.125;
  for (const auto& p : {ps, tree}) {
    std::ostringstream out;
    write_json_line(out, p);
    const std::string line = out.str();
    ASSERT_EQ(line.back(), '\n');
    EXPECT_EQ(line.rfind(R"({"event":"iteration",)", 0), 0u) << line;  // told apart by it
    EXPECT_EQ(iteration_progress_from_line(line.substr(0, line.size() - 1)), p) << line;
  }
}

TEST(IterationProgress, AnyOtherLineIsNotProgress) {
  for (const std::string line :
       {"", "iteration 3/10  ssp  0.41 s  fastest at 5", "waiting for the agents of n2",
        R"({"event":"stall"})", R"({"event":"iteration")",
        R"({"event":"iteration","iteration":3,"iterations":10,"strategy":"ssp"})",
        R"({"event":"iteration","iteration":11,"iterations":10,"strategy":"s","seconds":1})",
        R"({"event":"iteration","iteration":"3","iterations":10,"strategy":"s","seconds":1})",
        R"({"event":"iteration","iteration":3,"iterations":10,"strategy":"s","seconds":1,"x":1})"})
    EXPECT_FALSE(iteration_progress_from_line(line)) << line;
}

TEST(IterationProgress, ALossThatIsNotANumberIsLeftOut) {
  // A diverged run's loss is NaN, which JSON writes as null: the progress still counts.
  const auto p = iteration_progress_from_line(
      R"({"event":"iteration","iteration":1,"iterations":2,"strategy":"async","seconds":1,"loss":null})");
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->loss);
}

}  // namespace
}  // namespace testbed
