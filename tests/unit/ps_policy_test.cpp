// The parameter server's variants as policies (agent/protocols/ps/ps_policy.h), each over a
// fake core: a policy is made only when the setup asks for it, takes only the messages that
// are its own, and does its part through the core's narrow interface.
#include "agent/protocols/ps/ps_policy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "agent/protocols/apsp/source_routes_policy.h"
#include "agent/protocols/drps/disk_store_policy.h"
#include "agent/protocols/drps/wsp_policy.h"
#include "agent/protocols/mlfabric/mlfabric_policy.h"
#include "agent/protocols/ps_elastic/elastic_worker_policy.h"

namespace testbed {
namespace {

// Node 0 serves the one shard of 8 keys; nodes 1 and 2 are workers. This node is `self`.
class FakeCore : public PsCore {
 public:
  explicit FakeCore(int self, Consistency model = {}) : self_(self), model_(model) {}
  int self() const override { return self_; }
  const std::vector<int>& workers() const override { return workers_; }
  const std::vector<int>& servers() const override { return servers_; }
  int worker_index(int node) const override {
    for (size_t i = 0; i < workers_.size(); ++i)
      if (workers_[i] == node) return static_cast<int>(i);
    return -1;
  }
  const Consistency& consistency() const override { return model_; }
  const KeyMap& keys() const override { return keys_; }
  float initial_value(uint32_t job_key) const override { return 0.5f * job_key; }
  ServerShard* shard() override { return shard_.get(); }
  int shard_index() const override { return shard_ ? 0 : -1; }
  int checked_sender(const WireHeader& h) const override {
    const int w = worker_index(h.origin);
    if (!shard_ || w < 0) throw std::runtime_error("not for this shard");
    return w;
  }
  uint64_t read_version() const override { return 7; }
  RoutedTransfer& transfer() override { throw std::logic_error("no transfer in this test"); }
  void send_replies(const std::vector<PullReply>& r) override { replies_ += r.size(); }
  void reply(const nlohmann::json& event) override { events_.push_back(event); }
  void deliver_params(const Received&) override { ++delivered_; }
  void count_densified_push() override {}
  void set_servers(std::vector<int> s) override { servers_ = std::move(s); }
  void replace_shard(std::unique_ptr<ServerShard> s) override { shard_ = std::move(s); }
  bool ask_again() override { return false; }
  void resume_pulls() override { ++resumed_; }

  int self_;
  Consistency model_;
  std::vector<int> workers_{1, 2}, servers_{0};
  KeyMap keys_{8, 1};
  std::unique_ptr<ServerShard> shard_;
  std::vector<nlohmann::json> events_;
  size_t replies_ = 0, delivered_ = 0, resumed_ = 0;
};

WireHeader header(WireKind kind, uint8_t flags = 0, int origin = 1) {
  WireHeader h;
  h.kind = kind;
  h.flags = flags;
  h.origin = origin;
  return h;
}

TEST(PsPolicy, APlainParameterServerMakesNoPolicy) {
  FakeCore core(1);
  const TrainingSetup plain;  // BSP, keys in memory, the kernel's routes
  EXPECT_EQ(make_source_routes_policy(plain, core), nullptr);
  EXPECT_EQ(make_disk_store_policy(plain, core), nullptr);
  EXPECT_EQ(make_wsp_policy(plain, core), nullptr);
  EXPECT_EQ(make_mlfabric_policy(plain, core), nullptr);
}

TEST(PsPolicy, WspTakesItsOwnKindsOnly) {
  FakeCore core(1, {Consistency::Kind::kWsp, 2});
  const auto wsp = make_wsp_policy(TrainingSetup{}, core);
  ASSERT_NE(wsp, nullptr);
  for (WireKind k : {WireKind::kWspAsk, WireKind::kWspStart, WireKind::kWspGrant})
    EXPECT_TRUE(wsp->takes(header(k)));
  for (WireKind k : {WireKind::kPush, WireKind::kPull, WireKind::kParams})
    EXPECT_FALSE(wsp->takes(header(k)));
  // A worker's node is not the master: a request reaching it is refused, not answered.
  Received ask;
  ask.header = header(WireKind::kWspAsk);
  EXPECT_THROW(wsp->message(ask), std::runtime_error);
}

TEST(PsPolicy, MlfabricHoldsAComputedUpdateAndAnnouncesIt) {
  FakeCore core(1);
  TrainingSetup s;
  s.scheduled = true;
  const auto mf = make_mlfabric_policy(s, core);
  ASSERT_NE(mf, nullptr);
  // Its own messages: scheduled updates, parts for an aggregator, a distributor's copy.
  EXPECT_TRUE(mf->takes(header(WireKind::kPush, kOrdered)));
  EXPECT_TRUE(mf->takes(header(WireKind::kPush, kToAggregator)));
  EXPECT_TRUE(mf->takes(header(WireKind::kParams, kToDistributor)));
  EXPECT_FALSE(mf->takes(header(WireKind::kPush)));
  EXPECT_FALSE(mf->takes(header(WireKind::kParams)));
  EXPECT_FALSE(mf->takes(header(WireKind::kPull, kDense)));  // no pull batches asked for

  SparseUpdate u;
  u.values = std::vector<float>(8, 1.0f);
  ASSERT_TRUE(mf->computed(3, u));  // taken: the core pushes nothing
  ASSERT_EQ(core.events_.size(), 1u);
  EXPECT_EQ(core.events_[0]["event"], "update");
  EXPECT_EQ(core.events_[0]["clock"], 3);
  EXPECT_EQ(core.events_[0]["version"], 7);    // what the core says the values reflect
  EXPECT_EQ(core.events_[0]["bytes"], 8 * 4);  // dense: every value of the one shard
  EXPECT_DOUBLE_EQ(core.events_[0]["norm"], std::sqrt(8.0));
  // The scheduler's word for it: dropped once; a word for an update not held is refused.
  EXPECT_TRUE(mf->command("drop", {{"clock", 3}}));
  EXPECT_THROW(mf->command("drop", {{"clock", 3}}), std::runtime_error);
  EXPECT_FALSE(mf->command("start", {}));  // the core's own
  nlohmann::json stats;
  mf->stats(stats, nullptr);
  EXPECT_EQ(stats["scheduled"]["dropped"], 1);
}

TEST(PsPolicy, MlfabricRefusesWhatThePaperDoesNotRun) {
  FakeCore bsp(1);
  TrainingSetup batches;
  batches.pull_batch_ms = 100;  // MLfabric-A's batches answer pulls at once: async only
  EXPECT_THROW(make_mlfabric_policy(batches, bsp), std::runtime_error);
  FakeCore two(1);
  two.servers_ = {0, 2};
  TrainingSetup scheduled;
  scheduled.scheduled = true;
  EXPECT_THROW(make_mlfabric_policy(scheduled, two), std::runtime_error);
}

TEST(PsPolicy, MlfabricsReplicaHoldsACopyUnderItsOwnName) {
  TrainingSetup s;
  s.scheduled = true;
  s.replica = 2;
  FakeCore replica(2), worker(1);
  const auto at_replica = make_mlfabric_policy(s, replica);
  const auto at_worker = make_mlfabric_policy(s, worker);
  EXPECT_TRUE(at_replica->holds_shard_copy());
  EXPECT_STREQ(at_replica->shard_role(), "replica");
  EXPECT_FALSE(at_worker->holds_shard_copy());
  EXPECT_EQ(at_worker->shard_role(), nullptr);
}

TEST(PsPolicy, DiskStoreKeepsTheShardFromTheJobsInitialValuesAndReportsItsCounters) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("tb-ps-policy-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  FakeCore core(0);
  TrainingSetup s;
  s.store = StoreSetup{.dir = dir.string(), .memory_budget_bytes = 1 << 20, .pibs = {{1, 2, 3}}};
  const auto store = make_disk_store_policy(s, core);
  ASSERT_NE(store, nullptr);
  auto values = store->shard_values(0, core.keys().ranges()[0]);
  ASSERT_NE(values, nullptr);
  EXPECT_EQ(values->read({0, 2, 7}), (std::vector<float>{0.0f, 1.0f, 3.5f}));
  EXPECT_TRUE(std::filesystem::exists(dir / "shard-0"));
  nlohmann::json node, shard;
  store->stats(node, &shard);
  EXPECT_EQ(shard["store"]["blocks"], 6);  // the PIB as one block, the 5 other keys alone
  EXPECT_TRUE(node.is_null());             // nothing of the node's own
  values.reset();
  std::filesystem::remove_all(dir);
}

// The elastic asynchronous server's worker (ps_elastic/elastic_worker_policy.h): told to
// leave, it holds the pull after the clock it computes and says so; told to join, it pulls
// again from where it was. Outside from the start, its first pull waits.
TEST(PsPolicy, AnElasticWorkerHoldsItsPullsOutsideAndResumesOnAJoin) {
  FakeCore core(1);
  TrainingSetup setup;
  setup.policy = {{"elastic", "on"}};
  EXPECT_EQ(make_elastic_worker_policy(TrainingSetup{}, core), nullptr);
  FakeCore server(0);
  EXPECT_EQ(make_elastic_worker_policy(setup, server), nullptr) << "a server only serves";
  auto policy = make_elastic_worker_policy(setup, core);
  ASSERT_NE(policy, nullptr);
  EXPECT_FALSE(policy->holds_pull(0));
  EXPECT_TRUE(policy->command("ps_leave", {{"cmd", "ps_leave"}}));
  EXPECT_TRUE(core.events_.empty()) << "it leaves once its clock is pushed";
  // Clock 0 pushed, the pull of clock 1 is held, and the worker says so.
  EXPECT_TRUE(policy->holds_pull(1));
  ASSERT_EQ(core.events_.size(), 1u);
  EXPECT_EQ(core.events_[0], (nlohmann::json{{"event", "ps_left"}, {"clock", 1}}));
  EXPECT_TRUE(policy->command("ps_join", {{"cmd", "ps_join"}}));
  EXPECT_EQ(core.resumed_, 1u);
  EXPECT_EQ(core.events_.back(), (nlohmann::json{{"event", "ps_joined"}, {"clock", 1}}));
  EXPECT_FALSE(policy->holds_pull(2));
  // A join before the leave took effect calls it off; a join of one in changes nothing.
  policy->command("ps_leave", {});
  policy->command("ps_join", {});
  EXPECT_FALSE(policy->holds_pull(3));
  EXPECT_EQ(core.resumed_, 1u);
  EXPECT_FALSE(policy->command("stats", {}));

  setup.policy["away"] = {1};
  auto away = make_elastic_worker_policy(setup, core);
  EXPECT_TRUE(away->holds_pull(0)) << "outside from the start";
  setup.policy["away"] = "n1";
  EXPECT_THROW(make_elastic_worker_policy(setup, core), std::invalid_argument);
}

}  // namespace
}  // namespace testbed
