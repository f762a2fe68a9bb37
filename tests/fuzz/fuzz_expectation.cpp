// One expectation of a scenario ("netstorm.mean_iteration_s < 0.9 * ps.mean_iteration_s"):
// parsed or refused with a reason, never thrown.
#include "controller/scenario/scenario.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string why;
  const auto e = testbed::parse_expectation(testbed::fuzz::text(data, size), why);
  if (!e && why.empty()) __builtin_trap();  // a refusal always says why
  return 0;
}
