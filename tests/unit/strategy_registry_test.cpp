// The strategy registry (controller/training/strategy_registry.h): one entry per strategy,
// whose traits the controller runs it by in place of comparing its name.
#include "controller/training/strategy_registry.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "controller/options/workload_settings.h"
#include "controller/training/strategies.h"
#include "internet2_graph.h"

namespace testbed {
namespace {

TEST(StrategyRegistry, EachNameOnceEachTreeWithABuilderAndNoOtherWithOne) {
  std::set<std::string> seen;
  for (const auto& t : strategy_registry()) {
    EXPECT_TRUE(seen.insert(t.name).second) << t.name << " twice";
    EXPECT_FALSE(t.about.empty()) << t.name;
    EXPECT_EQ(t.build != nullptr, t.kind == StrategyKind::kTree) << t.name;
    EXPECT_EQ(t.ps(), t.kind != StrategyKind::kTree) << t.name;
    // A workload names it, and the profile check accepts what the registry holds.
    EXPECT_EQ(check_workload_setting("strategy", t.name), "") << t.name;
    // Only the strategies with one server take NAME@NODE.
    EXPECT_EQ(check_workload_setting("strategy", t.name + "@chicago").empty(), t.at_node) << t.name;
  }
  EXPECT_EQ(seen.size(), strategy_registry().size());
}

TEST(StrategyRegistry, TheTraitsSayWhatEachPaperBuilt) {
  // MLfabric's two servers (Sec. 5-6): A asynchronous within a delay bound, S synchronous.
  EXPECT_EQ(strategy_traits("mlfabric-a").scheduling, Scheduling::kBoundedDelay);
  EXPECT_EQ(strategy_traits("mlfabric-a").consistency, "async");
  EXPECT_EQ(strategy_traits("mlfabric-s").scheduling, Scheduling::kPerClock);
  EXPECT_EQ(strategy_traits("mlfabric-s").consistency, "bsp");
  EXPECT_FALSE(strategy_traits("bsp").scheduled());
  // Its baselines: all-reduce without a server, BSP's model.
  EXPECT_EQ(strategy_traits("rr-sync").all_reduce, "ring");
  EXPECT_EQ(strategy_traits("tr-sync").all_reduce, "tree");
  EXPECT_EQ(strategy_traits("rr-sync").kind, StrategyKind::kAllReduce);
  // DRPS: on disk only, its model chosen by --parallel (an empty consistency).
  EXPECT_TRUE(strategy_traits("drps").disk_store);
  EXPECT_TRUE(strategy_traits("drps").consistency.empty());
  EXPECT_EQ(find_option(strategy_traits("gaia"), "store"), nullptr);  // no store choice
  EXPECT_NE(find_option(strategy_traits("ssp"), "store"), nullptr);
  EXPECT_TRUE(strategy_traits("gaia").clocks_in_passes);
  // NetStorm's stages (Sec. IX-B): only std and pro (= netstorm) follow the network.
  EXPECT_FALSE(strategy_traits("netstorm-lite").aware);
  EXPECT_TRUE(strategy_traits("netstorm-std").aware);
  EXPECT_FALSE(strategy_traits("netstorm-std").aux);
  EXPECT_TRUE(strategy_traits("netstorm").aux);
  // APSP's rules.
  EXPECT_EQ(placement_rule("apsp", ""), "apsp");
  EXPECT_EQ(placement_rule("ps-random", ""), "random");
  EXPECT_EQ(placement_rule("ps-most-connected", ""), "most-connected");
  EXPECT_EQ(placement_rule("apsp", "chicago"), "chicago");
}

TEST(StrategyRegistry, AnUnknownNameIsRefusedWithTheKnownOnes) {
  EXPECT_EQ(find_strategy("netstrom"), nullptr);
  try {
    strategy_traits("netstrom");
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'netstrom'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("mlfabric-a"), std::string::npos);
  }
  // A strategy that is no tree has no tree policy.
  EXPECT_THROW(build_policy("bsp", internet2_graph()), std::invalid_argument);
}

TEST(StrategyRegistry, TheTreeNamesAreTheTreeEntriesInOrder) {
  const std::vector<std::string> trees = {
      "ps", "bkt", "mst", "fapt", "netstorm-lite", "netstorm-std", "netstorm-pro", "netstorm"};
  EXPECT_EQ(strategy_names(), trees);
  EXPECT_EQ(strategy_names_of(StrategyKind::kPlacement),
            (std::vector<std::string>{"apsp", "ps-most-connected", "ps-random"}));
  // Each tree entry's builder names its policy after the entry.
  for (const auto& name : trees) EXPECT_EQ(build_policy(name, internet2_graph()).strategy, name);
}

}  // namespace
}  // namespace testbed
