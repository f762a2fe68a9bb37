#include "controller/placement/placement_report.h"

#include <iomanip>
#include <ostream>
#include <stdexcept>

namespace testbed::placement {

const std::vector<std::string>& placement_choices() {
  static const std::vector<std::string> kChoices = {
      "paths: every simple path of a flow (the paper's P_f is not defined)",
      "capacity: a link's rate is shared by both directions, as the paper's constraint reads "
      "(--capacity directed gives push and pull a direction each)",
      "rounding: one categorical draw of a path per flow, probability z_fp / m* (best of "
      "--draws); the paper's per-variable outline would break one path per flow",
      "epoch time: T_v = 2 / m' (push, then pull), store-and-forward of the whole model per hop",
      "most connected: the most links, then the most incident capacity, then the lower id",
      "random: a node drawn from the seed; Table III's random is the mean of T_v over nodes",
      "baselines route as APSP does at their server (the paper does not say)",
      "model mode: relays store whole messages and every hop of flow f is paced at "
      "b_f x 1448/1514 of payload; native mode: cut-through segments, unpaced TCP"};
  return kChoices;
}

int chosen_server(const PlacementGraph& g, const PlacementResult& r, const std::string& how,
                  uint64_t seed) {
  if (how == "apsp") return r.apsp;
  if (how == "most-connected") return r.most_connected;
  if (how == "random") {
    // SplitMix64's finalizer: a well-spread node index from any seed.
    uint64_t x = seed + 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return static_cast<int>((x ^ (x >> 31)) % static_cast<uint64_t>(g.nodes()));
  }
  for (int v = 0; v < g.nodes(); ++v)
    if (g.names[static_cast<size_t>(v)] == how) return v;
  throw std::invalid_argument("no node named '" + how + "'");
}

nlohmann::json placement_report(const PlacementGraph& g, const PlacementResult& r, int server,
                                double model_bytes, const PlacementOptions& options) {
  const auto name = [&](int v) { return g.names[static_cast<size_t>(v)]; };
  const Candidate& c = r.candidates[static_cast<size_t>(server)];
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& k : r.candidates)
    candidates.push_back({{"server", name(k.server)},
                          {"lp_bound_s", k.lp_bound_s()},
                          {"epoch_s", k.epoch_s},
                          {"load_factor", k.load_factor},
                          {"theorem2_rho", k.rho},
                          {"path_columns", k.path_columns}});
  nlohmann::json flows = nlohmann::json::array();
  for (const auto& f : c.flows) {
    nlohmann::json path = nlohmann::json::array();
    for (int v : f.path.nodes) path.push_back(name(v));
    flows.push_back({{"worker", name(f.worker)},
                     {"path", path},
                     {"hops", f.path.hops()},
                     {"rate_bps", f.rate_bps}});
  }
  return {{"algorithm",
           "APSP (Li et al.): Problem 4 by GLPK's simplex, randomized rounding, closed-form rates"},
          {"model_bytes", model_bytes},
          {"capacity", capacity_model_name(options.capacity)},
          {"seed", options.seed},
          {"draws", options.draws},
          {"server", name(server)},
          {"apsp", name(r.apsp)},
          {"most_connected", name(r.most_connected)},
          {"random_mean_s", r.random_mean_s},
          {"lp_bound_s", c.lp_bound_s()},
          {"epoch_s", c.epoch_s},
          {"paced_s", c.epoch_s / kTcpGoodput},
          {"candidates", candidates},
          {"flows", flows},
          {"choices", placement_choices()}};
}

void print_placement(const nlohmann::json& p, std::ostream& out) {
  out << std::fixed << std::setprecision(3);
  out << "placement of one parameter server, model " << p["model_bytes"].get<double>() / 1e6
      << " MB, capacity " << p["capacity"].get<std::string>() << ", seed " << p["seed"]
      << ", best of " << p["draws"] << " rounding(s)\n";
  out << "  SERVER          LP BOUND S   T_V S   LOAD/B   COLUMNS\n";
  for (const auto& k : p["candidates"]) {
    const std::string s = k["server"];
    std::string mark = s == p["apsp"] ? "  v*" : "";
    if (s == p["most_connected"]) mark += "  most connected";
    out << "  " << std::left << std::setw(14) << s << std::right << std::setw(12)
        << k["lp_bound_s"].get<double>() << std::setw(8) << k["epoch_s"].get<double>()
        << std::setw(9) << std::setprecision(2) << k["load_factor"].get<double>()
        << std::setprecision(3) << std::setw(10) << k["path_columns"].get<size_t>() << mark << "\n";
  }
  out << "  random (mean of T_v over servers): " << p["random_mean_s"].get<double>() << " s\n";
  out << "server " << p["server"].get<std::string>() << ": LP bound "
      << p["lp_bound_s"].get<double>() << " s, T_v " << p["epoch_s"].get<double>()
      << " s, paced over TCP " << p["paced_s"].get<double>() << " s\n";
  for (const auto& f : p["flows"]) {
    out << "  " << std::left << std::setw(14) << f["worker"].get<std::string>() << std::right
        << std::setw(9) << std::setprecision(1) << f["rate_bps"].get<double>() / 1e6 << " Mbit/s  ";
    std::string sep;
    for (const auto& n : f["path"]) {
      out << sep << n.get<std::string>();
      sep = " > ";
    }
    out << "\n" << std::setprecision(3);
  }
  out << "choices where the paper is silent:\n";
  for (const auto& c : p["choices"]) out << "  - " << c.get<std::string>() << "\n";
}

}  // namespace testbed::placement
