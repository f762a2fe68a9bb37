#include "controller/runs/gaia/gaia_run.h"

#include <algorithm>
#include <stdexcept>

#include "agent/contracts/gaia/gaia_report.h"
#include "agent/contracts/node_replies.h"
#include "controller/options/usage_error.h"

namespace testbed {

std::unique_ptr<PsRunPolicy> make_gaia_run(PsRun& run) {
  if (run.traits().kind != StrategyKind::kGaia) return nullptr;
  return std::make_unique<GaiaRun>(run);
}

bool GaiaRun::roles(std::vector<int>& workers, std::vector<int>& servers) {
  servers = workers;
  return true;
}

// Each data center's mirrors and the window of data their links may have in flight, from
// the lab's configured rates and delays as they are now.
void GaiaRun::setup(TrainingSetup& setup, const JobConfig&, size_t parameters) {
  const std::vector<std::string>& names = run_.names();
  const std::vector<int>& data_centers = run_.worker_nodes();
  std::vector<PathDirection> paths;
  const auto at = [&](const std::string& n) {
    return static_cast<int>(std::find(names.begin(), names.end(), n) - names.begin());
  };
  for (const auto& d : run_.directions())
    paths.push_back({at(d.from), at(d.to), static_cast<double>(d.params.rate.bits_per_s),
                     static_cast<double>(d.params.delay.us) / 1e6});
  try {
    overlay_ =
        gaia_overlay(knobs().groups, data_centers, names, data_center_rates(data_centers, paths));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  setup.gaia = gaia_agent_setup(knobs(), data_centers, paths, overlay_, parameters);
}

void GaiaRun::started(double start_unix_s) {
  start_unix_s_ = start_unix_s;
  divergence_ = std::make_unique<ReplicaDivergence>(run_.worker_nodes().size());
}

// The reports arrived checked (agent_reply.h): read by their contract.
void GaiaRun::summary(nlohmann::json& s) const {
  std::vector<std::optional<GaiaSection>> sections;
  for (const nlohmann::json& st : run_.node_stats())
    sections.push_back(is_final_report(st) ? gaia_section_from(st, run_.names().size())
                                           : std::nullopt);
  s["gaia"] = gaia_summary(sections, run_.names(), knobs());
  s["gaia"]["overlay"] = overlay_to_json(overlay_, run_.names());
  s["gaia"].update(partition_summary());
}

}  // namespace testbed
