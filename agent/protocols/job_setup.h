// The job a training setup names (agent/contracts/training_setup.h's JobSetup), as the
// JobConfig the jobs are built from. Every protocol builds its job this way; only the
// worker count differs (a protocol's workers, times the workers a node stands for).
#pragma once

#include "agent/contracts/training_setup.h"
#include "agent/jobs/job.h"

namespace testbed {

JobConfig job_config(const JobSetup& job, int workers);

}  // namespace testbed
