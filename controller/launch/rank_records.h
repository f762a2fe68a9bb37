// A launched job's processes as the lab's recorded processes (lab_state.h): recorded as each
// rank starts, so that `down` and `clean` end them whatever happens to the command that
// started them, and forgotten when the job is over. Used on the controller's host and, for a
// lab spread over hosts, by each other host's `testbed agents` (host_ranks.h).
#pragma once

#include <sys/types.h>

#include <string>

#include "controller/lab/lab_state.h"
#include "controller/launch/job_runner.h"

namespace testbed {

void record_rank(const LabStore& store, const std::string& lab, const RankPlan& rank, pid_t pid);

// Every pid the job's ranks had, restarts included.
void forget_ranks(const LabStore& store, const std::string& lab, const JobOutcome& outcome);

}  // namespace testbed
