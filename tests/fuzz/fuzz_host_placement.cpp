// A placement file (YAML): which host each node of a lab goes on (controller/hosts/). A bad
// one is a ValidationError naming file, line and field; anything else is a finding.
#include "controller/hosts/host_placement.h"
#include "controller/lab/planner.h"
#include "controller/options/workload_settings.h"
#include "controller/topology/diagnostics.h"
#include "fuzz_input.h"

namespace {

// A four-node line, planned once: the placement is checked against its nodes.
const testbed::Plan& line4() {
  static const testbed::Plan plan = testbed::make_plan(
      testbed::parse_profile_text("lab: tbf-line\nnodes:\n  n1: {}\n  n2: {}\n  n3: {}\n  n4: {}\n"
                                  "links:\n  - endpoints: [n1, n2]\n    bandwidth: 10mbit\n"
                                  "  - endpoints: [n2, n3]\n    bandwidth: 10mbit\n"
                                  "  - endpoints: [n3, n4]\n    bandwidth: 10mbit\n",
                                  "line4.yaml"),
      false);
  return plan;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    testbed::parse_host_placement_text(testbed::fuzz::text(data, size), "fuzz-placement.yaml",
                                       line4());
  } catch (const testbed::ValidationError&) {
  }
  return 0;
}
