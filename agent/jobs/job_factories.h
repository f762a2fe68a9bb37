// Factories of the jobs, one per file; job_registry.cpp names them.
#pragma once

#include <memory>

#include "agent/jobs/job.h"

namespace testbed {

std::unique_ptr<Job> make_logreg_job(const JobConfig& config, int worker);
std::unique_ptr<Job> make_mf_job(const JobConfig& config, int worker);
std::unique_ptr<Job> make_lmf_job(const JobConfig& config, int worker);
std::unique_ptr<Job> make_sparse_lr_job(const JobConfig& config, int worker);
std::unique_ptr<Job> make_dense_job(const JobConfig& config, int worker);

}  // namespace testbed
