// Host keys in a placement (controller/hosts/): `testbed keys`' placement with keys reads
// back with every host's key; keys for some hosts only, a key that is not one, or one key for
// two hosts are refused naming file, line and field.
#include <gtest/gtest.h>

#include "agent/transport/curve_keys.h"
#include "controller/hosts/host_placement.h"
#include "controller/hosts/placement_keys.h"
#include "controller/lab/planner.h"
#include "controller/options/workload_settings.h"
#include "controller/topology/diagnostics.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

const std::string kTwo = "hosts:\n  east: [n1, n2]\n  west: [n3, n4]\n";

Plan line4() {
  return make_plan(parse_profile_file(TESTBED_PROFILES_DIR + "/tiny/line4.yaml"), false);
}

std::string first_error(const std::string& text) {
  try {
    parse_host_placement_text(text, "p.yaml", line4());
  } catch (const ValidationError& e) {
    return e.diagnostics().front().str();
  }
  return "no error";
}

TEST(PlacementKeys, KeysMadeForEveryHostReadBack) {
  const auto hosts = placement_host_names(kTwo, "p.yaml");
  ASSERT_EQ(hosts, (std::vector<std::string>{"east", "west"}));
  const std::map<std::string, std::string> keys = {{"east", make_curve_key_pair().public_key},
                                                   {"west", make_curve_key_pair().public_key}};
  const HostPlacement p =
      parse_host_placement_text(placement_with_keys(kTwo, keys, hosts), "p.yaml", line4());
  EXPECT_EQ(p.keys, keys);
  const auto record = placement_record(p);
  EXPECT_EQ(record["hosts"]["west"]["key"], keys.at("west"));
  EXPECT_EQ(record["hosts"]["east"]["nodes"], (std::vector<std::string>{"n1", "n2"}));
}

TEST(PlacementKeys, BadKeysAreRefusedByFileLineAndField) {
  const std::string k1 = make_curve_key_pair().public_key, k2 = make_curve_key_pair().public_key;
  EXPECT_EQ(first_error(kTwo + "keys:\n  east: \"" + k1 + "\"\n"),
            "p.yaml:5:3: keys: every host needs one, or none does; none for west");
  EXPECT_EQ(first_error(kTwo + "keys:\n  east: \"" + k1 + "\"\n  west: abc\n"),
            "p.yaml:6:9: keys.west: a CURVE public key, 40 characters of Z85 (testbed keys)");
  EXPECT_EQ(first_error(kTwo + "keys:\n  east: \"" + k1 + "\"\n  west: \"" + k1 + "\"\n"),
            "p.yaml:6:9: keys.west: the same key as another host's; each host has its own");
  EXPECT_EQ(first_error(kTwo + "keys:\n  east: \"" + k1 + "\"\n  north: \"" + k2 + "\"\n"),
            "p.yaml:6:3: keys.north: no host 'north' under hosts");
  try {
    placement_host_names(kTwo + "keys:\n  east: \"" + k1 + "\"\n", "p.yaml");
    FAIL() << "keys were made over keys";
  } catch (const ValidationError& e) {
    EXPECT_NE(e.diagnostics().front().str().find("has keys already"), std::string::npos);
  }
}

}  // namespace
}  // namespace testbed
