// The jobs by name, and the single-process reference every parameter-server run of BSP
// must reproduce.
#include <map>
#include <stdexcept>

#include "agent/jobs/job_factories.h"

namespace testbed {
namespace {

using Factory = std::unique_ptr<Job> (*)(const JobConfig&, int);

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> kJobs = {{"logreg", make_logreg_job},
                                                       {"mf", make_mf_job},
                                                       {"lmf", make_lmf_job},
                                                       {"sparse-lr", make_sparse_lr_job},
                                                       {"dense", make_dense_job}};
  return kJobs;
}

}  // namespace

const std::vector<std::string>& job_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> v;
    for (const auto& [name, f] : factories()) v.push_back(name);
    return v;
  }();
  return kNames;
}

bool is_job(const std::string& name) {
  return factories().count(name) > 0;
}

std::unique_ptr<Job> make_job(const JobConfig& config, int worker) {
  const auto it = factories().find(config.name);
  if (it == factories().end()) {
    std::string known;
    for (const auto& n : job_names()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown job '" + config.name + "' (known: " + known + ")");
  }
  return it->second(config, worker);
}

void add_update(const SparseUpdate& u, std::vector<double>& total) {
  for (size_t i = 0; i < u.values.size(); ++i) total[u.keys.empty() ? i : u.keys[i]] += u.values[i];
}

uint64_t schedule_t(uint64_t clocks_ended, uint64_t clocks_per_pass, bool in_passes) {
  if (!in_passes || clocks_per_pass <= 1) return clocks_ended;
  return (clocks_ended + clocks_per_pass - 1) / clocks_per_pass;
}

ReferenceRun reference_run(const JobConfig& config, int iterations) {
  std::vector<std::unique_ptr<Job>> jobs;
  for (int w = 0; w < config.workers; ++w) jobs.push_back(make_job(config, w));
  ReferenceRun r;
  r.parameters.resize(jobs.front()->parameters());
  for (size_t k = 0; k < r.parameters.size(); ++k)
    r.parameters[k] = jobs.front()->initial_value(static_cast<uint32_t>(k));
  const auto held_out = [&] {
    double sum = 0;
    for (const auto& j : jobs) sum += j->held_out_loss(r.parameters);
    return sum / static_cast<double>(jobs.size());
  };
  std::vector<double> total(r.parameters.size());
  for (int c = 0; c < iterations; ++c) {
    r.held_out.push_back(held_out());
    std::fill(total.begin(), total.end(), 0.0);
    for (const auto& j : jobs) {
      add_update(j->update(static_cast<uint64_t>(c), r.parameters), total);
    }
    for (size_t k = 0; k < total.size(); ++k) r.parameters[k] += static_cast<float>(total[k]);
  }
  r.held_out.push_back(held_out());
  return r;
}

}  // namespace testbed
