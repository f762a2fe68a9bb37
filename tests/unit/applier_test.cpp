#include "controller/lab/applier.h"
#include "controller/lab/route_aggregation.h"

#include <gtest/gtest.h>

#include "controller/lab/planner.h"
#include "controller/options/workload_settings.h"
#include "netns/fake_kernel.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

Plan internet2_plan() {
  return make_plan(parse_profile_file(TESTBED_PROFILES_DIR + "/internet2.yaml"), false);
}

TEST(Applier, BuildsEverythingInAnOrderTheKernelAccepts) {
  // The fake refuses what the kernel refuses (a route before its device is up and
  // addressed, an address before its link), so a wrong step order fails here.
  FakeKernel kernel;
  const Plan plan = internet2_plan();
  const ApplyResult r = Applier(kernel).apply(plan);
  EXPECT_EQ(r.changed, plan.steps.size());
  EXPECT_EQ(r.unchanged, 0u);
  ASSERT_EQ(kernel.namespaces().size(), 9u);
  const auto& seattle = kernel.namespaces().at("tb-internet2-seattle");
  EXPECT_EQ(seattle.sysctls.at("net/ipv4/ip_forward"), "1");
  // Each of its two links delivers into it through a delay hook.
  int hooked = 0;
  for (const auto& [dev, link] : seattle.links) hooked += link.ingress.has_value();
  EXPECT_EQ(hooked, 2);
  // A route to each of the 8 other nodes, held as a router would hold them: fewer prefixes.
  for (const auto& n : plan.nodes) {
    if (n.ns == "tb-internet2-seattle") continue;
    EXPECT_NE(longest_match(seattle.routes, n.address), nullptr) << n.name;
  }
  EXPECT_LT(seattle.routes.size(), 8u);
  EXPECT_EQ(seattle.links.size(), 3u);  // lo and two links
  for (const auto& [dev, link] : seattle.links) {
    EXPECT_TRUE(link.up) << dev;
    if (dev != "lo") {
      EXPECT_TRUE(link.shaping.has_value()) << dev;
    }
  }
}

TEST(Applier, SecondApplyChangesNothing) {
  FakeKernel kernel;
  const Plan plan = internet2_plan();
  Applier(kernel).apply(plan);
  const int mutations = kernel.mutations();
  const ApplyResult again = Applier(kernel).apply(plan);
  EXPECT_EQ(again.changed, 0u);
  EXPECT_EQ(again.unchanged, plan.steps.size());
  EXPECT_EQ(kernel.mutations(), mutations);
}

TEST(Applier, ReapplyRepairsOnlyWhatIsMissing) {
  FakeKernel kernel;
  const Plan plan = internet2_plan();
  Applier(kernel).apply(plan);
  const auto& routes = std::get<AddRoutes>(plan.steps.back());
  auto want = routes.routes;
  std::sort(want.begin(), want.end());
  // A node's routes all gone, then all but one: only the missing are asked for, as the
  // kernel refuses a route that exists.
  for (const bool keep_one : {false, true}) {
    kernel.delete_routes(routes.ns);
    if (keep_one) kernel.add_routes(routes.ns, {routes.routes.front()});
    EXPECT_EQ(Applier(kernel).apply(plan).changed, 1u) << keep_one;
    auto now = kernel.routes(routes.ns);
    std::sort(now.begin(), now.end());
    EXPECT_EQ(now, want) << keep_one;
  }
}

TEST(Applier, TimesEachKindOfStep) {
  FakeKernel kernel;
  const Plan plan = internet2_plan();
  const ApplyResult r = Applier(kernel).apply(plan);
  size_t steps = 0;
  for (const auto& [op, t] : r.by_op) {
    steps += t.steps;
    EXPECT_GE(t.seconds, 0) << op;
  }
  EXPECT_EQ(steps, plan.steps.size());
  EXPECT_EQ(r.by_op.at("add_routes").steps, 9u);  // one per node
}

struct Injection {
  std::string op;
  int nth;
};

class Rollback : public testing::TestWithParam<Injection> {};

TEST_P(Rollback, FailureHalfWayLeavesNothing) {
  FakeKernel kernel;
  kernel.fail_on(GetParam().op, GetParam().nth);
  std::vector<std::string> created, rolled_back;
  ApplyHooks hooks;
  hooks.after_create_namespace = [&](const CreateNamespace& s, uint64_t) {
    created.push_back(s.ns);
  };
  hooks.after_rollback_namespace = [&](const CreateNamespace& s) { rolled_back.push_back(s.ns); };
  try {
    Applier(kernel, hooks).apply(internet2_plan());
    FAIL() << "the injected failure did not surface";
  } catch (const ApplyError& e) {
    EXPECT_NE(std::string(e.what()).find("injected failure"), std::string::npos) << e.what();
    EXPECT_TRUE(e.rollback_errors().empty());
  }
  EXPECT_TRUE(kernel.namespaces().empty());
  std::sort(created.begin(), created.end());
  std::sort(rolled_back.begin(), rolled_back.end());
  EXPECT_EQ(created, rolled_back);
}

INSTANTIATE_TEST_SUITE_P(Injected, Rollback,
                         testing::Values(Injection{"create_namespace", 1},
                                         Injection{"create_namespace", 5},
                                         Injection{"create_veth", 7}, Injection{"set_shaping", 20},
                                         Injection{"add_routes", 5}),
                         [](const auto& info) {
                           return info.param.op + "_" + std::to_string(info.param.nth);
                         });

TEST(Applier, NetemDelaysOnAnIfbDeviceOfTheReceiverAndReappliesAsNothing) {
  // Where the kernel has netem: the sender's HTB keeps its FIFO queue (as with the delay
  // line) and each delayed direction arrives through an IFB device with netem.
  FakeKernel kernel;
  const Plan plan = make_plan(parse_profile_file(TESTBED_PROFILES_DIR + "/internet2.yaml"), true);
  Applier(kernel).apply(plan);
  const auto& seattle = kernel.namespaces().at("tb-internet2-seattle");
  int redirected = 0;
  for (const auto& [dev, link] : seattle.links) {
    if (link.redirect.empty()) continue;
    ++redirected;
    EXPECT_EQ(link.redirect.rfind("tbi", 0), 0u) << dev;
    ASSERT_TRUE(seattle.links.count(link.redirect)) << link.redirect;
    ASSERT_TRUE(seattle.links.at(link.redirect).netem) << link.redirect;
    EXPECT_GT(seattle.links.at(link.redirect).netem->delay_us, 0u);
    EXPECT_FALSE(link.ingress) << "no delay line with netem";
  }
  EXPECT_EQ(redirected, 2);
  const int mutations = kernel.mutations();
  EXPECT_EQ(Applier(kernel).apply(plan).changed, 0u);
  EXPECT_EQ(kernel.mutations(), mutations);
}

TEST(Applier, NetemFailureHalfWayLeavesNothing) {
  FakeKernel kernel;
  kernel.fail_on("set_ingress_netem", 11);
  EXPECT_THROW(Applier(kernel).apply(
                   make_plan(parse_profile_file(TESTBED_PROFILES_DIR + "/internet2.yaml"), true)),
               ApplyError);
  EXPECT_TRUE(kernel.namespaces().empty());
}

TEST(Applier, RollbackOverExistingLabRestoresWhatWasThere) {
  // A re-apply that changes a rate and then fails must put the old rate back and keep
  // everything that existed before it started.
  FakeKernel kernel;
  Plan plan = internet2_plan();
  Applier(kernel).apply(plan);
  auto& shape =
      std::get<ShapeEgress>(*std::find_if(plan.steps.begin(), plan.steps.end(), [](const Step& s) {
        return std::holds_alternative<ShapeEgress>(s);
      }));
  const uint64_t old_rate = shape.shaping.rate_bytes_per_s;
  shape.shaping.rate_bytes_per_s = 1000;
  const auto& routes = std::get<AddRoutes>(plan.steps.back());
  kernel.delete_routes(routes.ns);
  kernel.fail_on("add_routes", 1);
  EXPECT_THROW(Applier(kernel).apply(plan), ApplyError);
  EXPECT_EQ(kernel.namespaces().size(), 9u);
  EXPECT_EQ(kernel.shaping(shape.ns, shape.dev)->config.rate_bytes_per_s, old_rate);
}

TEST(Applier, InterruptRollsBack) {
  FakeKernel kernel;
  std::atomic<bool> interrupted{false};
  ApplyHooks hooks;
  hooks.before_step = [&](size_t index, const Step&) {
    if (index == 40) interrupted = true;
  };
  EXPECT_THROW(Applier(kernel, hooks, &interrupted).apply(internet2_plan()), ApplyError);
  EXPECT_TRUE(kernel.namespaces().empty());
}

}  // namespace
}  // namespace testbed
