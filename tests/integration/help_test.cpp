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

}  // namespace
}  // namespace testbed::it
