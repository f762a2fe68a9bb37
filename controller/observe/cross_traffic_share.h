// What the cross traffic (topology/cross_traffic.h) took of each link during a run, and
// what was left to the job: read from the kernel's counters at the run's start and end,
// so a run's summary says how shared its WAN was.
//
// Per direction the cross traffic crossed: `background_bytes` and `job_bytes` (the
// receiver's counters, kernel.h TrafficCounters: the cross traffic's ports, and the rest,
// each packet in one of them, both IP bytes after GRO), `job_share` (of the bytes the
// link delivered) and, beside it,
// `job_fair_share`: what a max-min fair split of the link's rate would give the job, with
// the job as one flow, each bulk TCP flow as one, and each UDP stream and poisson entry
// taking its (mean) rate first (`inelastic_bits_per_s`: a stream does not back off, and
// short flows mostly end before they would). Entries count in proportion to the part of
// the run they were on. The job's share of the rate itself is `job_share_of_rate` (IP bytes
// against a rate of frames: about 4% under for full TCP segments): below its fair share
// either the job did not need more (compute between its transfers) or the flows took it.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "controller/dynamics/link_control.h"
#include "controller/lab/cross_traffic_plan.h"
#include "netns/kernel.h"

namespace testbed {

struct ShareInputs {
  std::vector<PlannedTraffic> traffic;
  std::map<std::string, uint64_t> background_bytes;  // "from>to": in the run
  std::map<std::string, uint64_t> job_bytes;         // "from>to": the rest, in the run
  std::map<std::string, uint64_t> rate_bits_per_s;   // "from>to": the direction's rate
  double run_start_s = 0, run_end_s = 0;             // on the lab's clock (scaled)
  double time_scale = 1;
};

// The run's "cross_traffic" section. Pure.
nlohmann::json cross_traffic_shares(const ShareInputs& in);

// Reads the counters at construction and in summary(); inert in a lab without cross
// traffic (summary() is then null).
class CrossTrafficWatch {
 public:
  CrossTrafficWatch(const Plan& plan, std::vector<LiveDirection> directions, std::string lab_dir,
                    double time_scale, Kernel& kernel);
  nlohmann::json summary();

 private:
  std::vector<PlannedTraffic> traffic_;
  std::vector<LiveDirection> directions_;
  std::string lab_dir_;
  double time_scale_;
  Kernel& kernel_;
  std::map<std::string, uint64_t> background_before_, job_before_;
  double start_s_ = 0;
};

}  // namespace testbed
