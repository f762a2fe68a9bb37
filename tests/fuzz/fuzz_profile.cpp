// The topology profile (YAML): parsed and validated to the pure model, every check of the
// workload's settings included. A bad profile is an exception naming file, line and field;
// anything else (a crash, a sanitizer's report, an unexpected exception type) is a finding.

#include "controller/options/workload_settings.h"
#include "controller/topology/diagnostics.h"
#include "controller/topology/topology_parser.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    testbed::parse_profile_text(testbed::fuzz::text(data, size), "fuzz.yaml");
  } catch (const testbed::ValidationError&) {
  }
  return 0;
}
