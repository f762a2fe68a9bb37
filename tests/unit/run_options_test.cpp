// The one place that turns `testbed train`'s command line and a profile's workload into a
// run's options (run_options.h), without a lab: the command line wins over the profile,
// the profile over the defaults, each value is checked wherever it came from, and an error
// names the option and its origin. The topology parser takes the workload's rules from
// here and knows no strategy itself.
#include "controller/options/run_options.h"

#include <gtest/gtest.h>

#include "controller/options/workload_settings.h"
#include "controller/topology/diagnostics.h"
#include "controller/training/apsp/apsp_options.h"
#include "controller/training/drps/disk_store_options.h"
#include "controller/training/gaia/gaia_options.h"
#include "controller/training/mlfabric/mlfabric_options.h"

namespace testbed {
namespace {

std::string usage_error(const CommandLine& cli, const nlohmann::json& workload) {
  try {
    resolve_train_options(cli, workload);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(RunOptions, CommandLineOverProfileOverDefaults) {
  const nlohmann::json workload = {
      {"strategy", "netstorm"}, {"iterations", "7"}, {"scale", "0.05"}};
  const TrainOptions from_profile = resolve_train_options({}, workload);
  EXPECT_EQ(from_profile.strategy, "netstorm");
  EXPECT_EQ(from_profile.iterations, 7);
  EXPECT_DOUBLE_EQ(from_profile.scale, 0.05);
  EXPECT_EQ(from_profile.model.name, "resnet50");  // the default model

  CommandLine cli;
  cli.options = {{"iterations", "3"}, {"strategy", "mst"}};
  cli.flags = {"json"};
  const TrainOptions o = resolve_train_options(cli, workload);
  EXPECT_EQ(o.strategy, "mst");
  EXPECT_EQ(o.iterations, 3);
  EXPECT_DOUBLE_EQ(o.scale, 0.05);  // the profile's, the command line said nothing
  EXPECT_TRUE(o.json);
  EXPECT_GT(o.chunk, 0u);  // computed from the model's size when nobody sets it

  const TrainOptions defaults = resolve_train_options({}, nlohmann::json::object());
  EXPECT_EQ(defaults.strategy, "netstorm");
  EXPECT_EQ(defaults.iterations, kDefaultIterations);
}

TEST(RunOptions, ErrorsNameTheOptionAndWhereItsValueCameFrom) {
  CommandLine cli;
  cli.options = {{"iterations", "0"}};
  EXPECT_NE(usage_error(cli, nlohmann::json::object()).find("--iterations '0'"), std::string::npos);
  EXPECT_NE(usage_error({}, {{"strategy", "bsp"}, {"staleness", "x"}})
                .find("the profile's workload.staleness"),
            std::string::npos);
  // WSP may have no bound; SSP without one is async, and is said so.
  cli.options = {{"strategy", "drps"}, {"parallel", "wsp"}, {"staleness", "none"}};
  EXPECT_EQ(usage_error(cli, nlohmann::json::object()), "");
  cli.options = {{"strategy", "drps"}, {"parallel", "ssp"}, {"staleness", "none"}};
  EXPECT_NE(usage_error(cli, nlohmann::json::object()).find("--staleness none is for WSP"),
            std::string::npos);
  // An option of another strategy's: refused, naming it.
  cli.options = {{"strategy", "bsp"}, {"parallel", "wsp"}};
  EXPECT_NE(usage_error(cli, nlohmann::json::object()).find("--parallel"), std::string::npos);
}

TEST(RunOptions, AnotherSystemsOptionIsRefusedNotIgnored) {
  // On the command line: refused, for a tree strategy as for the parameter server's.
  for (const char* key : {"staleness", "parallel", "gaia-threshold", "target-loss", "servers"}) {
    CommandLine cli;
    cli.options = {{"strategy", "netstorm"},
                   {key, key == std::string("gaia-threshold") ? "2%" : "2"}};
    if (key == std::string("parallel")) cli.options[key] = "wsp";
    if (key == std::string("servers")) cli.options[key] = "all";
    EXPECT_NE(usage_error(cli, nlohmann::json::object()).find(std::string("--") + key),
              std::string::npos)
        << key;
  }
  // In the profile: one workload serves several strategies, so another's key is left alone.
  CommandLine cli;
  cli.options = {{"strategy", "netstorm"}};
  EXPECT_EQ(usage_error(cli, {{"staleness", "4"}, {"iterations", "2"}}), "");
}

TEST(RunOptions, EachSystemGetsItsOwnDefaults) {
  CommandLine cli;
  cli.options = {{"strategy", "drps"}};
  const TrainOptions drps = resolve_train_options(cli, nlohmann::json::object());
  EXPECT_TRUE(drps.ps);
  EXPECT_EQ(drps.store, "disk");  // DRPS keeps its parameters on disk
  EXPECT_EQ(drps.consistency, "bsp");
  cli.options = {{"strategy", "apsp"}};
  const TrainOptions apsp = resolve_train_options(cli, nlohmann::json::object());
  EXPECT_TRUE(apsp.placement);
  EXPECT_EQ(apsp.job, "dense");  // a named model's size, as APSP's Table II runs it
  cli.options = {{"strategy", "gaia"}};
  const TrainOptions gaia = resolve_train_options(cli, nlohmann::json::object());
  EXPECT_DOUBLE_EQ(gaia_knobs(gaia.policy, gaia.t_in_passes).threshold, 0.01);  // the paper's 1%
  EXPECT_EQ(gaia_knobs(gaia.policy, gaia.t_in_passes).ds, 2);  // our choice (docs/gaia.md)
  cli.options = {{"strategy", "mlfabric-a"}};
  EXPECT_EQ(resolve_train_options(cli, nlohmann::json::object()).consistency, "async");
}

// Each system's options come from its table: typed once, refused for another system naming
// every system that takes them, and crossed by the table's own rules, without a lab.
TEST(RunOptions, SystemsOptionsAreTypedOnceFromTheirTables) {
  CommandLine cli;
  cli.options = {{"strategy", "drps"}, {"parallel", "wsp"}, {"staleness", "none"}};
  const TrainOptions wsp = resolve_train_options(cli, nlohmann::json::object());
  EXPECT_EQ(wsp.consistency, "wsp");                  // DRPS's --parallel is the run's model
  EXPECT_EQ(wsp.staleness, TrainingSetup::kNoBound);  // the word, read as its number
  cli.options = {{"strategy", "ssp"}, {"staleness", "16"}};
  EXPECT_EQ(resolve_train_options(cli, nlohmann::json::object()).staleness, 16);
  cli.options = {{"strategy", "mlfabric-a"}, {"delay-bound", "4"}, {"aggregators", "all"}};
  const TrainOptions a = resolve_train_options(cli, nlohmann::json::object());
  EXPECT_EQ(mlfabric_knobs(a.policy).delay_bound, 4);
  EXPECT_EQ(mlfabric_knobs(a.policy).aggregators, -1);  // all: one per worker
  EXPECT_TRUE(mlfabric_knobs(a.policy).replica.empty());
  cli.options = {{"strategy", "gaia"}, {"gaia-ds", "off"}, {"gaia-local", "ssp:3"}};
  const TrainOptions g = resolve_train_options(cli, {{"gaia-threshold", "2%"}});
  const GaiaKnobs k = gaia_knobs(g.policy, g.t_in_passes);
  EXPECT_EQ(k.ds, -1);
  EXPECT_EQ(k.local_staleness, 3);
  EXPECT_DOUBLE_EQ(k.threshold, 0.02);  // the profile's
  cli.options = {{"strategy", "bsp"}, {"store", "disk"}, {"index", "on"}, {"index-k", "7"}};
  const TrainOptions d = resolve_train_options(cli, nlohmann::json::object());
  EXPECT_EQ(d.store, "disk");
  EXPECT_EQ(disk_store_knobs(d.policy).index_k, 7);
  cli.options = {{"strategy", "apsp"}, {"draws", "3"}};
  EXPECT_EQ(apsp_knobs(resolve_train_options(cli, nlohmann::json::object()).policy).draws, 3);

  const auto refused = [&](std::map<std::string, std::string> options) {
    CommandLine c;
    c.options = std::move(options);
    return usage_error(c, nlohmann::json::object());
  };
  EXPECT_EQ(refused({{"strategy", "async"}, {"aggregators", "2"}}),
            "--aggregators is for mlfabric-a and mlfabric-s, not async");
  EXPECT_EQ(refused({{"strategy", "mst"}, {"store", "disk"}}),
            "--store is for bsp, ssp, async and drps, not mst");
  EXPECT_EQ(refused({{"strategy", "bsp"}, {"index", "on"}}), "--index is for --store disk");
  EXPECT_NE(refused({{"strategy", "mlfabric-a"}, {"div-max", "4"}}).find("--replica NODE"),
            std::string::npos);
  EXPECT_NE(refused({{"strategy", "drps"}, {"store", "memory"}}).find("on disk"),
            std::string::npos);
  EXPECT_EQ(refused({{"strategy", "gaia"}, {"gaia-threshold", "0%"}}),
            "--gaia-threshold '0%': expected a percentage, above 0% and below 100%");
  EXPECT_EQ(refused({{"strategy", "gaia"}, {"gaia-ds", "soon"}}),
            "--gaia-ds 'soon': expected clocks, from 0 to 1000, or off");
  // A profile's key for another system is no error: one workload serves several strategies.
  EXPECT_EQ(usage_error({}, {{"strategy", "bsp"}, {"gaia-ds", "off"}}), "");
}

TEST(RunOptions, TheTopologyTakesTheWorkloadRulesItIsGiven) {
  const std::string profile = R"(
lab: t
nodes: {a: {}, b: {}}
links: [{endpoints: [a, b], bandwidth: 10Mbit}]
workload: {strategy: gaia, colour: blue}
)";
  // With the run options' rules an unknown key is an error at its line...
  try {
    parse_profile_text(profile, "t.yaml");
    FAIL() << "colour was accepted";
  } catch (const ValidationError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].line, 5);
    EXPECT_NE(e.diagnostics()[0].message.find("colour"), std::string::npos);
  }
  // ...and other rules are other words: the parser holds no list of its own.
  const SettingRules colours{{"colour"}, [](const std::string&, const std::string& v) {
                               return v == "blue" ? "" : "expected blue";
                             }};
  const std::string only_colour = R"(
lab: t
nodes: {a: {}, b: {}}
links: [{endpoints: [a, b], bandwidth: 10Mbit}]
workload: {colour: blue}
)";
  EXPECT_EQ(parse_topology_text(only_colour, "t.yaml", colours).workload.at("colour"), "blue");
}

}  // namespace
}  // namespace testbed
