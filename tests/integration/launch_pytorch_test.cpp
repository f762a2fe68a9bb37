// A real framework in the emulated WAN: PyTorch's own scripts, unmodified, through
// `testbed launch` on all nine Internet2 data centers. setup.sh installs Debian's
// python3-torch (CPU, gloo); /usr/bin/python3 is the interpreter it installs for.
#include <gtest/gtest.h>

#include <string>

#include "host_snapshot.h"
#include "testbed_cli.h"
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

const std::string kPython = "/usr/bin/python3";

std::string example(const std::string& path) {
  return TESTBED_EXAMPLES_DIR + "/" + path;
}

bool has_torch() {
  return shell_output(kPython +
                      " -c 'import torch.distributed as d; print(d.is_gloo_available())'"
                      " 2>/dev/null") == "True\n";
}

nlohmann::json launch_json(const std::string& lab, std::vector<std::string> args) {
  args.insert(args.begin(), {"launch", lab, "--json"});
  const Result r = run_testbed(args);
  EXPECT_EQ(r.status, 0) << r.output;
  return r.status == 0 ? summary_of(r.output) : nlohmann::json();
}

TEST(LaunchPytorch, UnmodifiedJobsRunOnEveryInternet2Node) {
  REQUIRE_ROOT();
  ASSERT_TRUE(has_torch()) << kPython << " cannot import torch: run scripts/setup.sh";
  const HostSnapshot before = take_host_snapshot();
  {
    LabGuard guard("tbt-i2");
    ASSERT_EQ(run_testbed({"up", profile_as_lab("internet2.yaml", "tbt-i2"), "--prometheus", "off"})
                  .status,
              0);

    // init_process_group("gloo") with nothing but torchrun's environment; a tensor of
    // ones all-reduced over all nine: every rank gets 9, on a host named after its node.
    const Result r =
        run_testbed({"launch", "tbt-i2", "--", kPython, example("pytorch-allreduce/allreduce.py")});
    ASSERT_EQ(r.status, 0) << r.output;
    const std::vector<std::string> nodes = {"seattle",    "losangeles", "saltlakecity",
                                            "kansascity", "houston",    "chicago",
                                            "atlanta",    "washington", "newyork"};
    for (size_t rank = 0; rank < nodes.size(); ++rank) {
      const std::string line = "[" + nodes[rank] + "] rank " + std::to_string(rank) + " on " +
                               nodes[rank] + ": every element is 9";
      EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
    }

    // DistributedDataParallel: every node steps, the held-out loss falls. Seeded data and
    // gloo's fixed reduction order make the losses the same on every run.
    const auto ddp = launch_json("tbt-i2", {"--", kPython, example("pytorch-ddp/train.py"),
                                            "--steps", "8", "--eval-every", "7"});
    ASSERT_TRUE(ddp.is_object());
    for (const auto& n : ddp["nodes"]) EXPECT_EQ(n["iterations"], 8) << n.dump();
    const auto& curve = ddp["loss_curve"];
    ASSERT_GE(curve.size(), 2u) << ddp.dump();
    EXPECT_LT(curve.back()[1].get<double>(), curve.front()[1].get<double>()) << curve.dump();
    EXPECT_GT(ddp["wan_bytes"].get<double>(), 0);
    EXPECT_TRUE(ddp.contains("health"));

    // The parameter server on four nodes, the first of them the server.
    const auto ps = launch_json("tbt-i2", {"--nodes", "chicago,seattle,houston,newyork", "--",
                                           kPython, example("pytorch-ps/ps.py"), "--steps", "5"});
    ASSERT_TRUE(ps.is_object());
    EXPECT_EQ(ps["master"], ps["nodes"][0]["address"].get<std::string>() + ":29500");
    EXPECT_EQ(ps["loss_reporting_nodes"], 1);  // the server evaluates
    ASSERT_FALSE(ps["final_loss"].is_null());
    EXPECT_LT(ps["final_loss"].get<double>(), 0.69);  // log 2: where it starts
    for (const auto& n : ps["nodes"]) EXPECT_EQ(n["iterations"], 5) << n.dump();
  }
  EXPECT_EQ(take_host_snapshot(), before);
}

}  // namespace
}  // namespace testbed::it
