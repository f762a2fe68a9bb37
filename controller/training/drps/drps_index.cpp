#include "controller/training/drps/drps_index.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace testbed {

DrpsIndex plan_drps_index(const JobConfig& job, int shards, const DrpsIndexOptions& options) {
  DrpsIndex r;
  r.options = options;
  // The workers' own batches: each is a function of the seed, so these are the keys the
  // workers will read. Every worker's job agrees on the model's size, hence the ranges.
  std::vector<std::vector<uint32_t>> batches;
  size_t parameters = 0;
  for (int w = 0; w < job.workers; ++w) {
    const auto worker = make_job(job, w);
    parameters = worker->parameters();
    for (int c = 0; c < options.sample_clocks; ++c)
      batches.push_back(worker->keys_for(static_cast<uint64_t>(c)));
  }
  const std::vector<KeyRange> ranges = split_keys(parameters, shards);
  r.batches = batches.size();
  IndexOptions o = options.index;
  o.prune_below = static_cast<uint32_t>(
      std::max(1.0, std::ceil(options.prune_share * static_cast<double>(batches.size()))));
  const auto start = std::chrono::steady_clock::now();
  r.built = build_index(batches, o);
  r.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!options.split_at_ranges) {
    r.pibs = r.built.pibs;
    return r;
  }
  for (const auto& pib : r.built.pibs) {
    for (const KeyRange& range : ranges) {
      std::vector<uint32_t> part;
      for (uint32_t key : pib)
        if (range.contains(key)) part.push_back(key);
      if (part.size() >= 2) r.pibs.push_back(std::move(part));
    }
  }
  return r;
}

nlohmann::json DrpsIndex::to_json() const {
  size_t keys = 0, largest = 0;
  for (const auto& p : pibs) {
    keys += p.size();
    largest = std::max(largest, p.size());
  }
  return {{"sampled_batches", batches},
          {"indexed_keys", built.indexed_keys},
          {"rounds", built.rounds},
          {"merges", built.merges},
          {"build_s", build_s},
          {"model_cost_before_s", built.cost_before_s},
          {"model_cost_after_s", built.cost_after_s},
          {"pibs", pibs.size()},
          {"keys_in_pibs", keys},
          {"largest_pib", largest},
          {"choices",
           {{"sample_clocks_per_worker", options.sample_clocks},
            {"prune_share", options.prune_share},
            {"top_k", options.index.top_k},
            {"seek_s", options.index.seek_s},
            {"per_parameter_s", options.index.per_parameter_s},
            {"min_gain_s", options.index.min_gain_s}}}};
}

}  // namespace testbed
