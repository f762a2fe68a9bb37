#include "agent/protocols/job_setup.h"

namespace testbed {

JobConfig job_config(const JobSetup& job, int workers) {
  JobConfig c;
  c.name = job.name;
  c.seed = job.seed;
  c.workers = workers;
  c.scale = job.scale;
  c.parameters = job.parameters;
  c.t_in_passes = job.t_in_passes;
  return c;
}

}  // namespace testbed
