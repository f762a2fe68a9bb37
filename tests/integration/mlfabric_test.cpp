// MLfabric on a real lab: MLfabric-A's scheduler orders the workers' updates over the
// control socket and the server applies exactly those, once each, in order, within the
// delay bound; RR-Sync's ring all-reduce is BSP, the single-process run, with no server.
#include <gtest/gtest.h>

#include "testbed_cli.h"

namespace testbed::it {
namespace {

const std::string kLab = "tbt-line4";

class Mlfabric : public Line4Lab {
 protected:
  nlohmann::json train(std::vector<std::string> args) { return train_json(kLab, std::move(args)); }
};

TEST_F(Mlfabric, EveryOrderedUpdateIsAppliedOnceInOrderWithinTheDelayBound) {
  // Three workers behind the line's links, stragglers 4x now and then (C2), and a bound of
  // 2 versions: the stale updates of the slow clocks must be dropped, not applied.
  const auto s = train({"--strategy", "mlfabric-a", "--model", "logreg", "--iterations", "12",
                        "--servers", "n1", "--workers", "n2,n3,n4", "--compute-ms", "50",
                        "--stragglers", "30%:4", "--delay-bound", "2"});
  ASSERT_FALSE(s.is_null());
  ASSERT_TRUE(s.contains("mlfabric")) << s.dump();
  const auto& m = s["mlfabric"];
  EXPECT_EQ(m["delay_bound"], 2);
  const uint64_t announced = m["announced"], ordered = m["ordered"], dropped = m["dropped"];
  EXPECT_EQ(announced, ordered + dropped) << m.dump();
  EXPECT_EQ(announced, 3u * 12u) << "every clock's update is announced once";
  EXPECT_GT(ordered, 0u);
  // The servers' side: exactly the ordered updates arrived and were applied, in order
  // (a second arrival of one would have failed the run), and the workers agree.
  EXPECT_TRUE(m["every_ordered_update_applied"].get<bool>()) << m.dump();
  EXPECT_EQ(m["server_applied_in_order"], ordered);
  EXPECT_EQ(m["workers_dropped"], dropped);
  EXPECT_LT(m["max_delay"].get<uint64_t>(), 2u) << m["delays"];
  EXPECT_EQ(s["consistency"], "mlfabric-a(2)");
  EXPECT_LT(s["loss_curve"].back()[1].get<double>(), s["loss_curve"][0][1].get<double>());
  EXPECT_TRUE(m["choices"].contains("deadline_positions"));
}

TEST_F(Mlfabric, RingAllReduceIsTheSingleProcessRunWithoutAServer) {
  const auto s = train({"--strategy", "rr-sync", "--model", "logreg", "--iterations", "8"});
  ASSERT_FALSE(s.is_null());
  EXPECT_EQ(s["runtime"], "ring-allreduce");
  EXPECT_TRUE(s["servers"].empty());
  ASSERT_TRUE(s.contains("reference_max_abs_diff")) << "the ring's model is checked";
  EXPECT_LE(s["reference_max_abs_diff"].get<double>(), 1e-4);
  EXPECT_GT(s["wan_bytes"].get<double>(), 0) << "the ring talks across the links";
  EXPECT_EQ(s["workers"].size(), 4u);
  EXPECT_LT(s["loss_curve"].back()[1].get<double>(), s["loss_curve"][0][1].get<double>());
  EXPECT_TRUE(agents_of(kLab).empty());
}

TEST_F(Mlfabric, BadOptionsAreRefusedBeforeAnyAgentStarts) {
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--strategy", "async", "--delay-bound", "4"}, "--delay-bound is for mlfabric-a"},
           {{"--strategy", "mlfabric-a", "--delay-bound", "0"}, "delay-bound"},
           {{"--strategy", "rr-sync", "--store", "disk"}, "--store disk is for"},
           // Refused when the session sets up, its agents already started: none is left.
           {{"--strategy", "mlfabric-a", "--model", "logreg", "--servers", "all"}, "one server"}}) {
    expect_train_refused(kLab, args, says);
  }
}

}  // namespace
}  // namespace testbed::it
