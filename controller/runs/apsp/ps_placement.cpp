// The placement strategies' part of a parameter-server session: APSP (or a baseline's
// fixed server) over the lab's links at their rates now, the server it chooses, and each
// worker's source route with its pace (controller/placement).
#include <algorithm>
#include <iomanip>
#include <ostream>

#include "agent/jobs/job.h"
#include "controller/placement/placement_report.h"
#include "controller/runs/ps/ps_session.h"
#include "controller/training/strategies.h"

namespace testbed {
namespace {

// The lab's links at their rates now, as the placement sees them.
placement::PlacementGraph placement_graph(const std::vector<std::string>& names,
                                          const std::vector<LiveDirection>& directions) {
  placement::PlacementGraph g;
  g.names = names;
  const auto at = [&](const std::string& n) {
    return static_cast<int>(std::find(names.begin(), names.end(), n) - names.begin());
  };
  for (const auto& d : directions) {
    if (g.links.size() <= d.link) g.links.resize(d.link + 1);
    auto& l = g.links[d.link];
    const auto bps = static_cast<double>(d.params.rate.bits_per_s);
    if (d.b2a) {
      l.b2a_bps = bps;
    } else {
      l.a = at(d.from);
      l.b = at(d.to);
      l.a2b_bps = bps;
    }
  }
  return g;
}

}  // namespace

void PsSession::choose_placement() {
  using namespace placement;
  const PlacementGraph g = placement_graph(names_, directions_);
  const double model_bytes =
      4.0 * static_cast<double>(o_.job == "dense"
                                    ? o_.job_parameters
                                    : make_job({o_.job, o_.seed, 1, o_.scale}, 0)->parameters());
  const PlacementOptions options{capacity_model_from(o_.capacity), o_.seed, o_.draws};
  const PlacementResult r = placement::place(g, 8 * model_bytes, options);
  const std::string how = placement_rule(o_.strategy, o_.server);
  const int server = chosen_server(g, r, how, o_.seed);
  placement_ = placement_report(g, r, server, model_bytes, options);
  placement_["chosen_by"] = o_.server.empty() ? how : "fixed (" + o_.server + ")";
  placement_["mode"] = o_.apsp_mode;
  servers_ = {server};
  for (const auto& f : r.candidates[static_cast<size_t>(server)].flows)
    routes_.push_back(
        {{"nodes", f.path.nodes}, {"pace_bytes_per_s", f.rate_bps / 8 * kTcpGoodput}});
  progress_ << o_.strategy << ": server " << names_[static_cast<size_t>(server)] << " (v* "
            << placement_["apsp"].get<std::string>() << ", LP bound " << std::fixed
            << std::setprecision(3) << placement_["lp_bound_s"].get<double>() << " s, T_v "
            << placement_["epoch_s"].get<double>() << " s, " << o_.apsp_mode << " mode)\n";
}

}  // namespace testbed
