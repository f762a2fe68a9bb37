// The session's side of a parameter-server variant as a policy (controller/runs/ps/
// ps_run_policy.h), over a fake session: MLfabric's is made only for a strategy whose
// updates are scheduled, adds its part of the agents' setup, and takes only its own events
// and only the deaths it can carry on from.
#include "controller/runs/ps/ps_run_policy.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "agent/contracts/mlfabric/mlfabric_events.h"
#include "controller/runs/apsp/placement_run.h"
#include "controller/runs/drps/disk_store_run.h"
#include "controller/runs/gaia/gaia_run.h"
#include "controller/runs/mlfabric/mlfabric_run.h"
#include "controller/runs/ps/membership_ledger.h"
#include "controller/runs/ps_run_policies.h"

namespace testbed {
namespace {

// A star: node 0 serves, nodes 1 and 2 are workers, 10 Mbit/s each way.
class FakeRun : public PsRun {
 public:
  explicit FakeRun(const std::string& strategy) : traits_(strategy_traits(strategy)) {
    o_.strategy = strategy;
    o_.job = "logreg";
    const char* const ends[][2] = {{"s", "w1"}, {"w1", "s"}, {"s", "w2"}, {"w2", "s"}};
    for (const auto& e : ends) {
      LiveDirection d;
      d.from = e[0];
      d.to = e[1];
      d.params.rate.bits_per_s = 10'000'000;
      directions_.push_back(d);
    }
  }
  const TrainOptions& options() const override { return o_; }
  const StrategyTraits& traits() const override { return traits_; }
  const std::vector<std::string>& names() const override { return names_; }
  const std::vector<LiveDirection>& directions() const override { return directions_; }
  std::vector<LiveDirection> directions_now() const override { return directions_; }
  const std::vector<int>& servers() const override { return servers_; }
  void set_servers(std::vector<int> s) override { servers_ = std::move(s); }
  const std::vector<int>& worker_nodes() const override { return workers_; }
  int worker_of_node(size_t node) const override {
    return node == 0 ? -1 : static_cast<int>(node) - 1;
  }
  AgentGroup& agents() override { throw std::logic_error("no agents in this test"); }
  std::ostream& progress() override { return progress_; }
  const std::vector<nlohmann::json>& node_stats() const override { return stats_; }
  const std::string& lab_dir() const override { return lab_dir_; }
  double wall_s() const override { return 0; }
  std::vector<WorkerClockStamps> worker_stamps() const override { return {}; }
  void handle_event(size_t, const nlohmann::json&, double) override {}
  void publish(nlohmann::json event) override { published_.push_back(std::move(event)); }
  bool finished(size_t) const override { return false; }
  uint64_t clocks(size_t) const override { return 0; }

  TrainOptions o_;
  const StrategyTraits& traits_;
  std::vector<std::string> names_{"s", "w1", "w2"};
  std::vector<LiveDirection> directions_;
  std::vector<int> servers_{0}, workers_{1, 2};
  std::ostringstream progress_;
  std::vector<nlohmann::json> stats_;
  std::string lab_dir_;
  std::vector<nlohmann::json> published_;
};

TEST(PsRunPolicy, OnlyAScheduledStrategyMakesMlfabricsPolicy) {
  FakeRun bsp("bsp"), async("async"), a("mlfabric-a"), s("mlfabric-s");
  EXPECT_EQ(make_mlfabric_run(bsp), nullptr);
  EXPECT_EQ(make_mlfabric_run(async), nullptr);
  EXPECT_NE(make_mlfabric_run(a), nullptr);
  EXPECT_NE(make_mlfabric_run(s), nullptr);
  // The list the session is given holds it: a plain parameter server makes none of them.
  size_t made = 0;
  for (PsRunPolicyMaker make : ps_run_policies()) made += make(bsp) != nullptr;
  EXPECT_EQ(made, 0u);
}

TEST(PsRunPolicy, EachPolicyIsMadeOnlyForTheRunThatAsksForIt) {
  FakeRun plain("bsp");
  EXPECT_EQ(make_placement_run(plain), nullptr);
  EXPECT_EQ(make_gaia_run(plain), nullptr);
  EXPECT_EQ(make_disk_store_run(plain), nullptr);
  EXPECT_EQ(make_wsp_run(plain), nullptr);
  FakeRun disk("drps");
  disk.o_.store = "disk";
  disk.o_.consistency = "wsp";
  EXPECT_NE(make_disk_store_run(disk), nullptr);
  EXPECT_NE(make_wsp_run(disk), nullptr);
  FakeRun placed("apsp");
  placed.o_.placement = true;
  EXPECT_NE(make_placement_run(placed), nullptr);
}

TEST(PsRunPolicy, GaiasDataCentersAreEachTheirOwnServer) {
  FakeRun run("gaia");
  const auto gaia = make_gaia_run(run);
  ASSERT_NE(gaia, nullptr);
  std::vector<int> workers{0, 1, 2}, servers;
  EXPECT_TRUE(gaia->roles(workers, servers));
  EXPECT_EQ(servers, workers);
  EXPECT_FALSE(gaia->consistency_label().empty());  // Gaia names its own model
  // Its agents' events, and no other: a malformed one is counted, never thrown.
  EXPECT_TRUE(gaia->event(1, {{"event", "mirror_cut"}, {"node", 99}, {"cut", true}}, 1.0));
  EXPECT_FALSE(gaia->event(1, {{"event", "update"}}, 1.0));
}

TEST(PsRunPolicy, MlfabricSetsTheAgentsUpAndTakesOnlyItsOwnEvents) {
  FakeRun run("mlfabric-a");
  const auto policy = make_mlfabric_run(run);
  TrainingSetup setup;
  policy->setup(setup, JobConfig{}, 100);
  EXPECT_TRUE(setup.scheduled);
  EXPECT_EQ(setup.replica, -1);
  EXPECT_TRUE(setup.distribution);    // --distribution's default: distributors on the workers
  EXPECT_GT(setup.pull_batch_ms, 0);  // MLfabric-A batches pulls at the scheduler's interval
  EXPECT_TRUE(policy->event(1, to_json(UpdateAnnounced{0, 0, 400, 1.5}), 0.1));
  EXPECT_FALSE(policy->event(1, {{"event", "eval"}, {"loss", 0.5}}, 0.1));
  // Without a replica or a standby no death is carried on from: the session ends the run.
  EXPECT_FALSE(policy->node_died(0, 0.2));
  EXPECT_FALSE(policy->node_died(1, 0.2));
}

TEST(PsRunPolicy, MlfabricRefusesTwoServers) {
  FakeRun run("mlfabric-s");
  run.servers_ = {0, 1};
  run.workers_ = {2};
  TrainingSetup setup;
  EXPECT_ANY_THROW(make_mlfabric_run(run)->setup(setup, JobConfig{}, 100));
}

// An elastic run's ledger (runs/ps/membership_ledger.h): each change with the members
// after it, published as it happens, and each worker's time in, from which compute
// utilization over time in follows.
TEST(MembershipLedger, ChangesPublishedAndUtilizationOverEachWorkersTimeIn) {
  FakeRun run("async");
  MembershipLedger ledger(run, "clock");
  ledger.start({1, 2});
  ledger.record({4.0, "w2", "leave", 40}, {1});
  const size_t join = ledger.record({6.0, "w2", "join", 40}, {1, 2});
  ledger.change(join).catch_up_bytes = 128;
  ASSERT_EQ(run.published_.size(), 3u);
  EXPECT_EQ(run.published_[0]["members"], nlohmann::json({"w1", "w2"}));
  EXPECT_FALSE(run.published_[0].contains("change"));
  EXPECT_EQ(run.published_[1]["outside"], nlohmann::json({"w2"}));
  EXPECT_EQ(run.published_[1]["change"]["what"], "leave");
  EXPECT_EQ(run.published_[2]["members"], nlohmann::json({"w1", "w2"}));

  const nlohmann::json s = {{"wall_s", 10.0},
                            {"compute_utilization", {{"per_worker", {{"w1", 0.5}, {"w2", 0.4}}}}}};
  nlohmann::json m;
  ledger.summary(m, s, {1, 2});
  EXPECT_EQ(m["changes"].size(), 2u);
  EXPECT_EQ(m["changes"][0]["clock"], 40);
  EXPECT_EQ(m["changes"][1]["catch_up_bytes"], 128);
  EXPECT_EQ(m["members_over_time"][1]["members"], 1);
  const auto& in = m["compute_utilization_of_member_time"];
  EXPECT_DOUBLE_EQ(in["per_worker"]["w1"]["member_s"].get<double>(), 10.0);
  // w2: in 0-4 s and 6-10 s, 8 s; it computed 0.4 of the 10 s wall time: 4 s of 8.
  EXPECT_DOUBLE_EQ(in["per_worker"]["w2"]["member_s"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(in["per_worker"]["w2"]["utilization"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(in["mean"].get<double>(), 9.0 / 18.0);
}

}  // namespace
}  // namespace testbed
