// Every verb answers --help with its usage and exit status 0, before it does anything
// (no root, no lab needed).
#include <gtest/gtest.h>

#include "testbed_cli.h"

namespace testbed::it {
namespace {

TEST(Help, EveryVerbAnswersHelp) {
  for (const std::string verb : {"validate", "plan", "up", "down", "status", "exec", "clean",
                                 "link", "train", "report", "run", "regress", "doctor"}) {
    const Result r = run_testbed({verb, "--help"});
    EXPECT_EQ(r.status, 0) << verb << ": " << r.output;
    EXPECT_EQ(r.output.rfind("usage: testbed " + verb, 0), 0u) << r.output;
  }
  const Result train = run_testbed({"train", "-h"});
  EXPECT_NE(train.output.find("--staleness"), std::string::npos) << train.output;
  // After "--", --help belongs to the command exec runs.
  EXPECT_NE(run_testbed({"exec", "n1", "--", "ls", "--help"}).output.rfind("usage", 0), 0u);
}

TEST(Help, AUsageErrorPrintsTheUsageHelpPrints) {
  // One source for both (controller/cli/verbs.cpp): they once differed, `up`'s error
  // listing --release-window and --timings and its --help not.
  for (const std::string verb : {"up", "exec", "launch", "link", "report", "run", "regress"}) {
    const std::string help = run_testbed({verb, "--help"}).output;
    const std::string line = help.substr(0, help.find('\n'));
    ASSERT_EQ(line.rfind("usage: testbed " + verb, 0), 0u) << help;
    // More arguments than any of these verbs takes: refused with the usage.
    const Result bad = run_testbed({verb, "x1", "x2", "x3", "x4", "x5", "x6"});
    EXPECT_EQ(bad.status, 2) << verb << ": " << bad.output;
    EXPECT_NE(bad.output.find(line.substr(std::string("usage: ").size())), std::string::npos)
        << verb << ": " << bad.output << "\n--help: " << line;
  }
}

}  // namespace
}  // namespace testbed::it
