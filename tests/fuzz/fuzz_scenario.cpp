// A scenario file (YAML): its topology reference, variants, events and expectations. A bad
// one is a ValidationError naming file, line and field; anything else is a finding.
#include "controller/scenario/scenario.h"
#include "controller/topology/diagnostics.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    testbed::parse_scenario_text(testbed::fuzz::text(data, size), "fuzz-scenario.yaml");
  } catch (const testbed::ValidationError&) {
  }
  return 0;
}
