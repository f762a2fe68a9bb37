// A slice applied inside namespaces someone else made (a pod's): plan steps survive a trip
// through plan.json, and `down` undoes what the slice did there without deleting them.
#include <gtest/gtest.h>

#include "controller/hosts/host_placement.h"
#include "controller/hosts/plan_slices.h"
#include "controller/lab/applier.h"
#include "controller/lab/lab_state.h"
#include "controller/lab/planner.h"
#include "controller/lab/step_json.h"
#include "controller/lab/teardown.h"
#include "controller/options/workload_settings.h"
#include "cross_host_links.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

Plan internet2() {
  return make_plan(parse_profile_file(TESTBED_PROFILES_DIR + "/internet2.yaml"), false);
}

TEST(StepJson, EveryStepOfASliceSurvivesTheTrip) {
  const Plan plan = internet2();
  const PlanSlice slice = slice_for_host(plan, compute_host_placement(plan, 3), "host1");
  ASSERT_GT(slice.expected_interfaces, 0u);
  HostPlacement plain = compute_host_placement(plan, 3);  // plain hosts: the slice's VXLANs
  for (const auto& h : plain.hosts) plain.underlay[h] = {Ipv4Address{0x0A000001}, "eth0"};
  const PlanSlice vxlans = slice_for_host(plan, plain, "host1");
  ASSERT_GT(vxlans.vxlan_interfaces, 0u);
  std::set<std::string> ops;
  for (const Plan* p : {&plan, &slice.plan, &vxlans.plan}) {
    for (const Step& step : p->steps) {
      const nlohmann::json j = step_to_json(step);
      const Step back = step_from_json(j);
      ops.insert(step_op(step));
      if (std::holds_alternative<AddRoutes>(step)) {
        // Its routes stay in the plan (as their rule): read back, the step stands for the
        // testbed's own routes in its namespace, which is all undoing it needs.
        EXPECT_EQ(step_op(back), "add_routes");
        EXPECT_EQ(step_namespaces(back), step_namespaces(step));
        EXPECT_EQ(j["count"], std::get<AddRoutes>(step).routes.size());
        continue;
      }
      EXPECT_EQ(step_to_json(back), j);
      EXPECT_EQ(describe_step(back), describe_step(step));
      ops.insert(step_op(step));
    }
  }
  // Every kind of step the delay-line backend plans, and the slice's own.
  for (const char* op :
       {"create_namespace", "create_veth", "expect_interface", "set_link_up", "add_address",
        "set_sysctl", "shape_egress", "add_ingress_hooks", "add_routes"}) {
    EXPECT_TRUE(ops.count(op)) << op;
  }
}

TEST(StepJson, AMalformedStepNamesItsField) {
  const auto message = [](const nlohmann::json& j) -> std::string {
    try {
      step_from_json(j);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(message({{"op", "add_routes"}}).find("'ns'"), std::string::npos);
  EXPECT_NE(message({{"op", "add_address"}, {"ns", "a"}, {"dev", "d"}, {"address", "x"}})
                .find("'address' is no prefix"),
            std::string::npos);
  EXPECT_NE(message({{"op", "mount"}}).find("unknown step op 'mount'"), std::string::npos);
  EXPECT_NE(message(nlohmann::json::array()).find("not an object"), std::string::npos);
}

TEST(AdoptedSlice, DownUndoesWhatTheSliceDidAndKeepsThePodsNamespaces) {
  const Plan plan = internet2();
  const HostPlacement placement = compute_host_placement(plan, 3);
  const PlanSlice slice = slice_for_host(plan, placement, "host2");
  FakeKernel kernel;
  make_cross_host_links(kernel, plan, placement);  // kubelet's namespaces, meshnet's links
  const auto before = kernel.namespaces();

  LabState state;                                         // as `up --adopt` fills it
  state.plan = plan_from_json(plan_to_json(slice.plan));  // as `down` reads plan.json
  for (const auto& n : slice.plan.nodes) state.adopted.push_back(n.ns);
  ApplyHooks hooks;
  hooks.before_step = [&](size_t index, const Step& step) {
    if (acts_only_in(step, state.adopted)) state.adopted_steps.push_back(index);
  };
  Applier(kernel, hooks).apply(slice.plan);
  ASSERT_FALSE(state.adopted_steps.empty());
  for (const auto& ns : state.adopted) {
    EXPECT_FALSE(kernel.namespaces().at(ns).routes.empty()) << "the slice routed in " << ns;
  }

  const TeardownReport report = teardown_lab(state, kernel);
  EXPECT_TRUE(report.errors.empty()) << report.errors.front();
  EXPECT_EQ(report.namespaces_deleted, 0);
  EXPECT_EQ(report.steps_undone, static_cast<int>(state.adopted_steps.size()));
  ASSERT_EQ(kernel.namespaces().size(), before.size()) << "no namespace was deleted";
  for (const auto& [name, was] : before) {
    const auto& now = kernel.namespaces().at(name);
    EXPECT_EQ(now.routes, was.routes) << name;
    ASSERT_EQ(now.links.size(), was.links.size()) << name << ": the slice's own veths are gone";
    for (const auto& [dev, link] : was.links) {
      const auto& l = now.links.at(dev);
      EXPECT_EQ(l.up, link.up) << dev << "@" << name;
      EXPECT_EQ(l.addresses, link.addresses) << dev << "@" << name;
      EXPECT_EQ(l.shaping, link.shaping) << dev << "@" << name;
      EXPECT_EQ(l.ingress, link.ingress) << dev << "@" << name;
    }
  }
}

TEST(AdoptedSlice, OnlyStepsWhollyInsideAdoptedNamespacesAreRecorded) {
  const std::vector<std::string> adopted = {"tb-l-a", "tb-l-b"};
  EXPECT_TRUE(acts_only_in(AddRoutes{"tb-l-a", {}}, adopted));
  EXPECT_TRUE(acts_only_in(CreateVeth{"tb-l-a", "x", "tb-l-b", "y"}, adopted));
  EXPECT_FALSE(acts_only_in(CreateVeth{"tb-l-a", "x", "tb-l-c", "y"}, adopted))
      << "deleting tb-l-c, which the slice made, removes the pair";
  EXPECT_FALSE(acts_only_in(ExpectInterface{"tb-l-a", "x", "h", "tb-l-c", "y"}, adopted));
  EXPECT_FALSE(acts_only_in(AddRoutes{"tb-l-a", {}}, {}));
}

}  // namespace
}  // namespace testbed
