// Bandwidth traces from files: "time,rate" CSV and Mahimahi's delivery opportunities. The
// first byte picks the format; the rest is the file. A bad line is a diagnostic naming it;
// an exception or a crash is a finding.
#include "controller/topology/schedule.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::vector<testbed::Diagnostic> errors;
  if (data[0] % 2 == 0) {
    testbed::load_csv_trace(testbed::fuzz::as_file(data + 1, size - 1, ".csv"), errors);
  } else {
    int64_t period_us = 0;
    // 100 ms bins, as a profile's Mahimahi trace gets by default (schedule_parser.cpp).
    testbed::load_mahimahi_trace(testbed::fuzz::as_file(data + 1, size - 1, ".trace"), 100'000,
                                 period_us, errors);
  }
  return 0;
}
