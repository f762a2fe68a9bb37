// Each bad profile in tests/data/bad with every message it must produce, in order.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "controller/options/workload_settings.h"
#include "controller/topology/diagnostics.h"
#include "controller/training/strategies.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

struct BadCase {
  std::string file;
  std::vector<std::string> expected;  // "LINE:COL: message"
};

// Every strategy's name, as the refusal lists them (the registry's order).
std::string known_strategies() {
  std::string known;
  for (const auto& s : all_strategy_names()) known += (known.empty() ? "" : ", ") + s;
  return known;
}

const std::vector<BadCase> kCases = {
    {"unknown_keys.yaml",
     {"4:7: unknown key 'colour' in node 'b'",
      "6:16: link a-b: no bandwidth for direction a2b (set 'bandwidth' on the link or under "
      "'defaults')",
      "6:16: link a-b: no bandwidth for direction b2a (set 'bandwidth' on the link or under "
      "'defaults')",
      "7:5: unknown key 'bandwith' in link (did you mean 'bandwidth'?)",
      "8:11: unknown key 'dealy' in a2b (did you mean 'delay'?)"}},
    {"duplicate_node.yaml", {"6:3: duplicate node 'a' (first defined on line 4)"}},
    {"missing_node.yaml", {"8:20: link endpoint 'c' is not a node defined under 'nodes'"}},
    {"self_loop_and_duplicate.yaml",
     {"8:16: link a-a connects a node to itself",
      "9:16: duplicate link b-a (first defined on line 7)"}},
    {"bad_values.yaml",
     {"7:16: bandwidth: must not be negative",
      "8:12: delay: '30' is not a duration; write e.g. 250us, 30ms or 1s",
      "9:11: loss: '0.5' is not a percentage; write e.g. 0.02%",
      "10:13: jitter: '3 ms' is not a duration; write e.g. 250us, 30ms or 1s",
      "11:12: queue: '0' must be a whole number greater than zero",
      "12:22: bandwidth: unit 'mbps' is ambiguous (tc reads it as bytes per second); write "
      "'mbit' for bits per second"}},
    {"pool_too_small.yaml",
     {"2:7: pool: 198.18.0.0/28 is too small for 4 nodes and 3 links (nodes take the lower "
      "half, one address each; links the upper half, a /30 each); use a /27 or larger"}},
    {"structure.yaml",
     {"1:6: lab: 'Bad_Name' must be 1-24 characters of a-z, 0-9 and '-', starting with a "
      "letter or digit",
      "2:7: pool: '10.0.0.1/8' is not a network prefix like 198.18.0.0/15",
      "3:10: routing: 'fastest' must be 'hops' or 'delay'",
      "8:16: endpoints: expected exactly two node names, e.g. [seattle, chicago]",
      "9:5: a link must be a mapping with 'endpoints: [a, b]'"}},
    {"no_bandwidth_disconnected.yaml",
     {"5:3: node 'c' has no path to node 'a': the topology is not connected",
      "7:16: link a-b: no bandwidth for direction a2b (set 'bandwidth' on the link or under "
      "'defaults')",
      "7:16: link a-b: no bandwidth for direction b2a (set 'bandwidth' on the link or under "
      "'defaults')"}},
    {"syntax.yaml", {"5:6: YAML syntax: end of sequence flow not found"}},
    {"bad_workload.yaml",
     {"3:13: workload.strategy: unknown strategy 'netstrom' (known: " + known_strategies() + ")",
      "4:10: workload.scale: expected a positive number",
      "5:15: workload.compute-ms: compute-ms: expected milliseconds, MS or MIN-MAX, got "
      "'300-100'",
      "6:3: unknown key 'epochs' in workload"}},
};

class BadProfile : public testing::TestWithParam<BadCase> {};

TEST_P(BadProfile, ReportsEveryErrorWithPosition) {
  const BadCase& c = GetParam();
  const std::string path = TESTBED_TEST_DATA + "/bad/" + c.file;
  try {
    parse_profile_file(path);
    FAIL() << c.file << " was accepted";
  } catch (const ValidationError& e) {
    std::vector<std::string> got;
    for (const auto& d : e.diagnostics()) {
      EXPECT_EQ(d.file, path);
      got.push_back(std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message);
    }
    EXPECT_EQ(got, c.expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Table, BadProfile, testing::ValuesIn(kCases), [](const auto& info) {
  std::string n = info.param.file.substr(0, info.param.file.find('.'));
  return n;
});

TEST(BadProfiles, DiagnosticFormatIsFileLineColumn) {
  EXPECT_EQ((Diagnostic{"x.yaml", 3, 7, "boom"}).str(), "x.yaml:3:7: boom");
}

}  // namespace
}  // namespace testbed
