#include "gaia_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

namespace testbed {

std::vector<MirrorWindow> mirror_windows(int self, const std::vector<int>& data_centers,
                                         const std::vector<PathDirection>& directions) {
  std::map<int, std::vector<const PathDirection*>> out_of;
  for (const auto& d : directions) out_of[d.from].push_back(&d);
  // Breadth-first from self: the fewest hops, as the lab's routes take them.
  std::map<int, const PathDirection*> via;  // node -> the direction that reached it
  std::vector<int> queue{self};
  std::map<int, bool> seen{{self, true}};
  for (size_t i = 0; i < queue.size(); ++i)
    for (const auto* d : out_of[queue[i]])
      if (!seen[d->to]) {
        seen[d->to] = true;
        via[d->to] = d;
        queue.push_back(d->to);
      }
  const auto back_delay = [&](int a, int b) {
    for (const auto& d : directions)
      if (d.from == a && d.to == b) return d.delay_s;
    return 0.0;
  };
  std::vector<MirrorWindow> out;
  for (int dc : data_centers) {
    if (dc == self) continue;
    MirrorWindow w;
    w.node = dc;
    double rate = std::numeric_limits<double>::infinity(), rtt = 0;
    for (int n = dc; n != self && via.count(n); n = via[n]->from) {
      const auto* d = via[n];
      if (d->bits_per_s > 0) rate = std::min(rate, d->bits_per_s);
      rtt += d->delay_s + back_delay(d->to, d->from);
    }
    w.path_bits_per_s = std::isinf(rate) ? 0 : rate;
    w.rtt_s = rtt;
    const double bdp = std::isinf(rate) ? 0 : rate / 8 * rtt;
    w.window_bytes = std::max(kMinWindowBytes, static_cast<size_t>(2 * bdp));
    out.push_back(w);
  }
  return out;
}

std::optional<size_t> converged_at(const std::vector<double>& objective, double change,
                                   size_t over) {
  for (size_t c = over; c < objective.size(); ++c) {
    const double before = objective[c - over];
    if (before != 0 && std::fabs(objective[c] - before) / std::fabs(before) < change) return c;
  }
  return std::nullopt;
}

nlohmann::json gaia_choices() {
  return {
      "a data center's workers run in its node's process: the LAN inside it costs nothing, and "
      "they synchronize by BSP (the paper's SSP inside a data center is not built)",
      "the objective is the held-out loss the runtime measures (RMSE for mf)",
      "DS (data-center staleness) defaults to 2; the paper gives no default",
      "the soft threshold is off by default (Sec. 4.3's WAN-cost goal); when on, it halves per "
      "clock the WAN is idle, down to 1/16 of the hard threshold",
      "the selective barrier fires when a mirror link has twice its configured bandwidth-delay "
      "product of data in flight; waiting updates are merged into one message",
      "a message naming at least half the parameters goes dense (values only)",
      "data-center groups and hubs (Sec. 4.3) are not built: every data center sends to every "
      "other"};
}

nlohmann::json gaia_figures(const std::vector<nlohmann::json>& stats,
                            const std::vector<std::string>& names) {
  std::map<std::string, double> sum;
  nlohmann::json per_dc = nlohmann::json::object();
  for (size_t n = 0; n < stats.size() && n < names.size(); ++n) {
    if (!stats[n].contains("gaia")) continue;
    const auto& g = stats[n]["gaia"];
    per_dc[names[n]] = g;
    for (const auto& [key, v] : g.items())
      if (v.is_number() && key != "slowest_mirror_clock" && key != "clocks")
        sum[key] += v.get<double>();
  }
  nlohmann::json f = nlohmann::json::object();
  for (const auto& [key, v] : sum) f[key] = v;
  const double updates = sum["updates"];
  const double sent = sum["significant"] + sum["soft_significant"];
  // The paper's figure (Sec. 2.3): the share of updates that are insignificant, here the
  // share of (parameter, clock) local updates that the filter held back.
  f["held_back_share"] = updates > 0 ? 1 - sent / updates : 0;
  f["per_data_center"] = per_dc;
  return f;
}

nlohmann::json gaia_agent_setup(const GaiaKnobs& knobs, const std::vector<int>& data_centers,
                                const std::vector<PathDirection>& directions) {
  nlohmann::json mirrors = nlohmann::json::object();
  for (int dc : data_centers) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& w : mirror_windows(dc, data_centers, directions))
      list.push_back({{"node", w.node}, {"window_bytes", w.window_bytes}});
    mirrors[std::to_string(dc)] = list;
  }
  return {
      {"threshold", knobs.threshold}, {"ds", knobs.ds}, {"soft", knobs.soft}, {"mirrors", mirrors}};
}

std::string gaia_label(const GaiaKnobs& knobs) {
  std::ostringstream out;
  out << "gaia(v=" << knobs.threshold * 100
      << "%, DS=" << (knobs.ds < 0 ? std::string("off") : std::to_string(knobs.ds))
      << (knobs.soft ? ", soft" : "") << ")";
  return out.str();
}

nlohmann::json gaia_summary(const std::vector<nlohmann::json>& stats,
                            const std::vector<std::string>& names, const GaiaKnobs& knobs) {
  nlohmann::json g = gaia_figures(stats, names);
  g["threshold"] = knobs.threshold;
  g["ds"] = knobs.ds < 0 ? nlohmann::json("off") : nlohmann::json(knobs.ds);
  g["soft_threshold"] = knobs.soft;
  g["choices"] = gaia_choices();
  return g;
}

}  // namespace testbed
