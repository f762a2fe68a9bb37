// plan.json as a contract (lab/plan.h): what `up` writes reads back into the same plan, and
// a missing, mistyped, out-of-range or unknown field is refused with its path. The lab's
// store keeps a lab whose plan.json is damaged removable and says why.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "agent/contracts/message_fields.h"
#include "controller/lab/lab_state.h"
#include "controller/lab/plan.h"
#include "controller/lab/planner.h"
#include "controller/options/workload_settings.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

// Every optional part a plan can carry: compute, a schedule of node events, a straggler,
// bursty loss, a scheduled link, a partition, rerouting and cross traffic.
const std::string kEverything =
    "lab: every\n"
    "reroute: {convergence: 50ms}\n"
    "nodes:\n"
    "  a: {cpus: 1, straggler: {chance: 10%, slowdown: 4, every: 1s, seed: 3},\n"
    "      schedule: [{at: 10s, event: pause, for: 2s}, {at: 20s, event: cpus, cpus: 0.5},\n"
    "                 {at: 30s, event: cpus, cpus: all}]}\n"
    "  b: {}\n"
    "  c: {}\n"
    "links:\n"
    "  - endpoints: [a, b]\n"
    "    bandwidth: 10mbit\n"
    "    delay: 5ms\n"
    "    loss: {gilbert_elliott: {p: 1%, r: 25%}}\n"
    "  - endpoints: [b, c]\n"
    "    bandwidth: 20mbit\n"
    "    delay: 10ms\n"
    "    schedule: {steps: [{at: 5s, bandwidth: 5mbit}]}\n"
    "  - {endpoints: [a, c], bandwidth: 30mbit, delay: 40ms}\n"
    "partitions:\n"
    "  - {nodes: [c], at: 15s, heal: 25s}\n"
    "cross_traffic:\n"
    "  - {from: a, to: c, kind: bulk}\n";

Plan everything(bool netem) {
  return make_plan(parse_profile_text(kEverything, "e.yaml"), netem);
}

// The JSON of a plan without its routes, which plan_from_json leaves to route_book_of: the
// "routes" rule and count, and the count of each node's route step (step_json.h: its
// routes are the book's, made again when needed).
nlohmann::json without_routes(nlohmann::json j) {
  j.erase("routes");
  for (auto& step : j["steps"])
    if (step["op"] == "add_routes") step.erase("count");
  return j;
}

std::string refusal(const nlohmann::json& j) {
  std::string from_tree = "accepted", from_text = "accepted";
  try {
    plan_from_json(j);
  } catch (const ContractError& e) {
    from_tree = e.what();
  }
  // Read from its text, each list's element as it is parsed: the same words.
  try {
    plan_from_json_text(j.dump(), true);
  } catch (const ContractError& e) {
    from_text = e.what();
  }
  EXPECT_EQ(from_text, from_tree);
  return from_tree;
}

TEST(PlanJson, EveryPlanReadsBackAsItWasWritten) {
  std::vector<Plan> plans = {everything(false), everything(true)};
  for (const char* profile : {"internet2.yaml", "tiny/triangle.yaml", "drps-cluster.yaml",
                              "internet2-dynamic-flows.yaml"}) {
    plans.push_back(make_plan(parse_profile_file(TESTBED_PROFILES_DIR + "/" + profile), false));
  }
  for (const Plan& plan : plans) {
    const nlohmann::json written = plan_to_json(plan);
    const Plan back = plan_from_json(written);
    EXPECT_EQ(without_routes(plan_to_json(back)), without_routes(written)) << plan.lab;
    // From its text, as the verbs read plan.json: the same plan.
    EXPECT_EQ(without_routes(plan_to_json(plan_from_json_text(written.dump(1), true))),
              without_routes(written))
        << plan.lab;
    // The typed fields, not only their JSON: the verbs read these.
    ASSERT_EQ(back.nodes.size(), plan.nodes.size());
    for (size_t i = 0; i < plan.nodes.size(); ++i) {
      EXPECT_EQ(back.nodes[i].address, plan.nodes[i].address);
      EXPECT_EQ(back.nodes[i].compute, plan.nodes[i].compute);
      EXPECT_EQ(back.nodes[i].straggler, plan.nodes[i].straggler);
    }
    ASSERT_EQ(back.links.size(), plan.links.size());
    for (size_t i = 0; i < plan.links.size(); ++i) {
      EXPECT_EQ(back.links[i].a2b.shaping, plan.links[i].a2b.shaping);
      EXPECT_EQ(back.links[i].b2a.netem, plan.links[i].b2a.netem);
      EXPECT_EQ(back.links[i].b2a.params.faults, plan.links[i].b2a.params.faults);
    }
    EXPECT_EQ(back.traffic, plan.traffic);
    EXPECT_EQ(back.backend, plan.backend);
    EXPECT_EQ(back.reroute_convergence_us, plan.reroute_convergence_us);
    EXPECT_EQ(back.steps.size(), plan.steps.size());
    // The routes made again from the nodes and links are the planned ones.
    std::vector<std::string> names;
    for (const auto& n : plan.nodes) names.push_back(n.name);
    EXPECT_EQ(routes_to_json(route_book_of(back), names, true), plan_to_json(plan, true)["routes"])
        << plan.lab;
  }
}

TEST(PlanJson, TheExamplePlanCarriesEveryPart) {
  const Plan plan = everything(false);
  EXPECT_TRUE(plan.reroute_convergence_us);
  EXPECT_EQ(plan.nodes[0].events.size(), 3u);
  EXPECT_TRUE(plan.nodes[0].straggler);
  EXPECT_TRUE(plan.links[0].a2b.params.burst_loss);
  EXPECT_EQ(plan.links[1].a2b.params.schedule.kind, Schedule::Kind::kSteps);
  EXPECT_FALSE(plan.links[1].a2b.params.faults.empty());
  EXPECT_EQ(plan.traffic.size(), 1u);
  EXPECT_TRUE(everything(true).links[0].a2b.netem);
}

TEST(PlanJson, AMissingMistypedOrUnknownFieldIsNamed) {
  const nlohmann::json good = plan_to_json(everything(true));
  auto with = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json j = good;
    change(j);
    return refusal(j);
  };
  EXPECT_EQ(with([](auto& j) { j["nodes"][1].erase("address"); }),
            "plan.nodes[1].address is missing");
  EXPECT_EQ(with([](auto& j) { j["nodes"][1]["address"] = "198.18.0.300"; }),
            "plan.nodes[1].address is no IPv4 address");
  EXPECT_EQ(with([](auto& j) { j["links"][2]["a2b"]["colour"] = "red"; }),
            "plan.links[2].a2b.colour is not a field of this message");
  EXPECT_EQ(with([](auto& j) { j["links"][0]["b2a"]["loss_fraction"] = 1.5; }),
            "plan.links[0].b2a.loss_fraction is 1.500000, outside [0.000000, 1.000000]");
  EXPECT_EQ(with([](auto& j) { j["seed"] = "one"; }), "plan.seed has the wrong type (string)");
  EXPECT_EQ(with([](auto& j) { j["backend"] = "auto"; }), "plan.backend is no resolved backend");
  EXPECT_EQ(with([](auto& j) { j["nodes"][0]["events"][0]["event"] = "explode"; }),
            "plan.nodes[0].events[0].event is no node event");
  EXPECT_EQ(with([](auto& j) { j["links"][1]["a2b"]["receiver"].erase("dev"); }),
            "plan.links[1].a2b.receiver.dev is missing");
  EXPECT_EQ(with([](auto& j) { j["nodes"][2]["name"] = "a"; }),
            "plan.nodes[2].name 'a' is a second node of that name");
  // A part read by its own reader (the HTB's) is named where it sits.
  EXPECT_EQ(with([](auto& j) {
              j["links"][0]["a2b"]["shaping"].erase("burst_bytes");
            }).rfind("plan.links[0].a2b.shaping is not as written", 0),
            0u);
  EXPECT_EQ(with([](auto& j) { j["steps"][0]["op"] = "launch_rocket"; }),
            "plan.steps[0]: unknown step op 'launch_rocket'");
  EXPECT_EQ(refusal(nlohmann::json::array()), "plan: not an object");
  EXPECT_EQ(with([](auto& j) { j["links"][1] = 7; }), "plan.links[1]: not an object");
  EXPECT_EQ(with([](auto& j) { j["delay_lines"][0] = nlohmann::json::array({1}); }),
            "plan.delay_lines[0]: not an object");
  EXPECT_EQ(with([](auto& j) { j["nodes"] = {{"n", 1}}; }), "plan.nodes is not a list");
  EXPECT_EQ(with([](auto& j) { j.erase("links"); }), "plan.links is missing");
}

class PlanFileTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ = testing::TempDir() + "/tb-plan-json";
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  // A lab "every", up, with the plan of every optional part, saved in `store`.
  static LabState saved_lab(const LabStore& store) {
    LabState s;
    s.lab = "every";
    s.phase = "up";
    s.plan = everything(false);
    store.save(s);
    store.save_plan(s.lab, s.plan);
    return s;
  }
  std::string root_;
};

TEST_F(PlanFileTest, ADamagedPlanLeavesTheLabRemovableAndSaysWhy) {
  LabStore store(root_);
  const LabState s = saved_lab(store);
  const LabState back = store.load("every");
  EXPECT_TRUE(back.plan_problem.empty()) << back.plan_problem;
  EXPECT_EQ(back.plan.nodes.size(), 3u);
  EXPECT_EQ(plan_namespaces(back.plan), plan_namespaces(s.plan));

  nlohmann::json j = plan_to_json(s.plan);
  j["links"][0].erase("subnet");
  std::ofstream(store.plan_path("every")) << j.dump();
  const LabState damaged = store.load("every");
  EXPECT_EQ(damaged.phase, "up");  // the state itself still reads: `down` can remove it
  EXPECT_TRUE(damaged.plan.nodes.empty());
  EXPECT_EQ(damaged.plan_problem, store.plan_path("every") + ": plan.links[0].subnet is missing");

  std::ofstream(store.plan_path("every")) << "{not json";
  EXPECT_EQ(store.load("every").plan_problem, store.plan_path("every") + ": not JSON");
}

// What only reads a lab loads its plan without the steps: the rest is the same plan, and
// steps damaged beyond reading do not stop it (they are checked as JSON, not read).
TEST_F(PlanFileTest, APlanLoadedWithoutItsStepsIsTheSamePlanWithNone) {
  LabStore store(root_);
  const LabState s = saved_lab(store);
  ASSERT_FALSE(s.plan.steps.empty());
  const LabState whole = store.load("every");
  const LabState reading = store.load("every", LabStore::PlanSteps::kSkipped);
  EXPECT_TRUE(reading.plan_problem.empty()) << reading.plan_problem;
  EXPECT_EQ(whole.plan.steps.size(), s.plan.steps.size());
  EXPECT_TRUE(reading.plan.steps.empty());
  // The same plan but its steps (a link's schedule of steps included).
  nlohmann::json without = plan_to_json(whole.plan);
  without["steps"] = nlohmann::json::array();
  EXPECT_EQ(plan_to_json(reading.plan), without);
  EXPECT_NE(without.dump().find("\"kind\":\"steps\""), std::string::npos);

  nlohmann::json j = plan_to_json(s.plan);
  j["steps"][0] = {{"op", "no_such_step"}};
  std::ofstream(store.plan_path("every")) << j.dump();
  EXPECT_FALSE(store.load("every").plan_problem.empty());
  EXPECT_TRUE(store.load("every", LabStore::PlanSteps::kSkipped).plan_problem.empty());
}

// `status` reads a lab's records first and its plan after (the kernel and the delay lines
// are asked meanwhile): the two parts make the same state as load(), a damaged plan
// included.
TEST_F(PlanFileTest, TheRecordsReadFirstAndThePlanAfterMakeTheSameState) {
  LabStore store(root_);
  saved_lab(store);
  LabState records = store.load_records("every");
  EXPECT_EQ(records.phase, "up");
  EXPECT_TRUE(records.plan.nodes.empty());
  store.load_plan("every", records, LabStore::PlanSteps::kSkipped);
  const LabState at_once = store.load("every", LabStore::PlanSteps::kSkipped);
  EXPECT_EQ(plan_to_json(records.plan), plan_to_json(at_once.plan));
  EXPECT_EQ(records.plan.nodes.size(), 3u);

  std::ofstream(store.plan_path("every")) << "{not json";
  LabState damaged = store.load_records("every");
  store.load_plan("every", damaged, LabStore::PlanSteps::kSkipped);
  EXPECT_EQ(damaged.plan_problem, store.plan_path("every") + ": not JSON");
  EXPECT_EQ(damaged.phase, "up");
}

// `down` and `clean` read the steps only where a slice adopted namespaces: it undoes those
// steps one by one, where a lab's own namespaces take theirs with them.
TEST_F(PlanFileTest, DownReadsTheStepsOnlyOfALabThatAdoptedNamespaces) {
  LabStore store(root_);
  LabState s = saved_lab(store);
  EXPECT_TRUE(store.load("every", LabStore::PlanSteps::kIfAdopted).plan.steps.empty());
  s.host = "h1";  // adopting is what a host's slice does (up --adopt)
  s.adopted = {s.plan.nodes[0].ns};
  s.adopted_steps = {0, 2};
  store.save(s);
  const LabState adopting = store.load("every", LabStore::PlanSteps::kIfAdopted);
  EXPECT_EQ(adopting.plan.steps.size(), s.plan.steps.size());
  EXPECT_EQ(adopting.adopted_steps, s.adopted_steps);
}

}  // namespace
}  // namespace testbed
