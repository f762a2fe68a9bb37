// The fit of a lab to the machine (controller/lab/fit, docs/fit.md) on real labs, against
// a budget this test writes (so that nothing here depends on this machine's speed): a lab
// over it is refused and nothing is made, scaled (the kernel's shaping at the scaled rate,
// the factor on the exporter's metrics, the run's model scaled alike and the factor in its
// --json), or brought up as written with the excess said.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "controller/lab/fit/emulation_budget.h"
#include "controller/lab/fit/fit_decision.h"
#include "controller/lab/fit/run_demand.h"
#include "controller/observe/prometheus_server.h"
#include "controller/options/workload_settings.h"
#include "netns/cpu_allowance.h"
#include "testbed_cli.h"

namespace testbed::it {
namespace {

const char* const kLab = "tbt-fit";

// Three nodes in a line at 20 Mbit/s and 10 ms: four delayed directions, each with its
// ACKs delayed the other way.
std::string line_profile() {
  const std::string path = temp_file(std::string(kLab) + ".yaml");
  std::ofstream(path) << "lab: " << kLab << R"(
nodes: {a: {}, b: {}, c: {}}
links:
  - {endpoints: [a, b], bandwidth: 20mbit, delay: 10ms}
  - {endpoints: [b, c], bandwidth: 20mbit, delay: 10ms}
)";
  return path;
}

// A budget of a little over half the line's demand at this process's CPUs: a fit of 0.5.
std::string half_budget() {
  const double demand = 4 * 2 * 20e6 / 8 / kBytesPerDataPacket;
  const double cpus = read_cpu_allowance().effective();
  EmulationBudget b;
  b.packets_per_cpu_s = 0.505 * demand / cpus;
  b.cpu_us_per_packet = kFitBusyShare * 1e6 / b.packets_per_cpu_s;
  b.bits_per_packet = 16000;
  b.cpus = cpus;
  b.cpu_scope = "written by the test";
  b.backend = "delayline";
  b.measured_at = "now";
  const std::string path = temp_file("tbt-fit-budget.json");
  save_budget(b, path);
  return path;
}

TEST(Fit, ALabOverTheBudgetIsRefusedScaledOrRunAsWrittenAsAsked) {
  REQUIRE_ROOT();
  LabGuard guard(kLab);
  const std::map<std::string, std::string> env = {{"TESTBED_BUDGET_FILE", half_budget()}};
  const std::string profile = line_profile();

  const Result refused =
      run_testbed({"up", profile, "--fit", "refuse", "--prometheus", "off"}, env);
  EXPECT_NE(refused.status, 0) << refused.output;
  EXPECT_NE(refused.output.find("refused"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("by 0.5"), std::string::npos) << refused.output;
  EXPECT_FALSE(std::filesystem::exists(std::string("/run/netns/") + kLab + "-a"))
      << "a refused lab made a namespace";
  EXPECT_NE(run_testbed({"status", kLab}).status, 0) << "a refused lab is up";

  const Result up = run_testbed({"up", profile, "--fit", "scale", "--prometheus", "off"}, env);
  ASSERT_EQ(up.status, 0) << up.output;
  EXPECT_NE(up.output.find("scaled by 0.5"), std::string::npos) << up.output;
  // The kernel shapes the scaled rate, on a's end of the link to b (its TBF).
  const std::string dev = nlohmann::json::parse(
      std::ifstream(std::string("/run/testbed/") + kLab + "/plan.json"))["links"][0]["if_a"];
  const Result tc =
      run_testbed({"exec", "--lab", kLab, "a", "--", "tc", "qdisc", "show", "dev", dev});
  ASSERT_EQ(tc.status, 0) << tc.output;
  EXPECT_NE(tc.output.find("rate 10Mbit"), std::string::npos) << tc.output;

  // The factor on the metrics, beside the scaled rates.
  const Result st = run_testbed({"status", kLab, "--json"});
  ASSERT_EQ(st.status, 0) << st.output;
  const std::string metrics_url = nlohmann::json::parse(st.output)["metrics_url"];
  const int port = std::stoi(metrics_url.substr(metrics_url.rfind(':') + 1));
  const auto metrics = http_get(port, "/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->find("testbed_fit_factor{lab=\"tbt-fit\",mode=\"scale\"} 0.5"),
            std::string::npos)
      << *metrics;

  // A run on it: the model scaled with the rates, the factor in its --json.
  const Result train = run_testbed({"train", kLab, "--strategy", "ps", "--iterations", "2",
                                    "--model", "resnet50", "--scale", "0.02", "--json"},
                                   env);
  ASSERT_EQ(train.status, 0) << train.output;
  const auto summary = nlohmann::json::parse(train.output.substr(train.output.rfind("\n{") + 1));
  ASSERT_TRUE(summary.contains("fit")) << train.output;
  EXPECT_DOUBLE_EQ(summary["fit"]["factor"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(summary["fit"]["model_factor"].get<double>(), 0.5);
  EXPECT_EQ(summary["fit"]["mode"], "scale");
  EXPECT_DOUBLE_EQ(summary["scale"].get<double>(), 0.01);
  const auto parameters = static_cast<double>(find_model("resnet50").parameters);
  EXPECT_NEAR(summary["model_bytes"].get<double>(), parameters * 0.02 * 0.5 * 4, 8.0);
  ASSERT_EQ(run_testbed({"down", kLab}).status, 0);

  // Off: the profile's rates, the excess said and recorded.
  const Result as_written = run_testbed({"up", profile, "--prometheus", "off"}, env);
  ASSERT_EQ(as_written.status, 0) << as_written.output;
  EXPECT_NE(as_written.output.find("run as written"), std::string::npos) << as_written.output;
  const Result tc_off =
      run_testbed({"exec", "--lab", kLab, "a", "--", "tc", "qdisc", "show", "dev", dev});
  EXPECT_NE(tc_off.output.find("rate 20Mbit"), std::string::npos) << tc_off.output;
}

}  // namespace
}  // namespace testbed::it
