#include "agent/contracts/training_setup.h"

#include <climits>

#include "agent/contracts/gaia/gaia_setup.h"
#include "agent/contracts/message_fields.h"

namespace testbed {
namespace {

// The most clocks a run may ask for (the options' own bound, controller/options/).
constexpr int kMostIterations = 1'000'000'000;
// A route's pace: a terabyte per second is past any link the testbed emulates.
constexpr double kFastestPaceBytesPerS = 1e12;
// The slowest emulated compute per clock: ten minutes.
constexpr int kLongestComputeMs = 600'000;

JobSetup job_from(const FieldReader& r) {
  r.refuse_unknown({"name", "seed", "scale", "parameters", "workers_per_node", "t"});
  JobSetup j;
  j.name = r.required<std::string>("name");
  j.seed = r.required<uint64_t>("seed");
  j.scale = r.required<double>("scale");
  if (!(j.scale > 0)) throw r.error("scale", "must be above 0");
  j.parameters = r.optional<uint64_t>("parameters", 0);
  j.workers_per_node =
      r.in_range("workers_per_node", r.optional<int>("workers_per_node", 1), 1, 1 << 16);
  const auto t = r.optional<std::string>("t", "clock");
  if (t != "clock" && t != "pass") throw r.error("t", "is '" + t + "', not clock or pass");
  j.t_in_passes = t == "pass";
  return j;
}

ComputeSetup compute_from(const FieldReader& r) {
  r.refuse_unknown({"min_ms", "max_ms", "straggler_share", "straggler_factor", "as"});
  ComputeSetup c;
  c.min_ms = r.in_range("min_ms", r.required<int>("min_ms"), 0, kLongestComputeMs);
  c.max_ms = r.in_range("max_ms", r.required<int>("max_ms"), c.min_ms, kLongestComputeMs);
  c.straggler_share =
      r.in_range("straggler_share", r.optional<double>("straggler_share", 0.0), 0.0, 1.0);
  c.straggler_factor =
      r.in_range("straggler_factor", r.optional<double>("straggler_factor", 1.0), 1.0, 1e6);
  const auto as = r.optional<std::string>("as", "wait");
  if (as != "wait" && as != "cpu") throw r.error("as", "is '" + as + "', not wait or cpu");
  c.on_cpu = as == "cpu";
  return c;
}

std::vector<int> nodes_from(const FieldReader& r, const char* field, size_t nodes, bool required) {
  const auto list =
      required ? r.required<std::vector<int>>(field) : r.optional<std::vector<int>>(field, {});
  for (int n : list)
    if (n < 0 || static_cast<size_t>(n) >= nodes)
      throw r.error(field, "names node " + std::to_string(n) + ", not one of the " +
                               std::to_string(nodes) + " endpoints");
  return list;
}

std::vector<SourceRoute> routes_from(const FieldReader& r, size_t nodes) {
  const auto& list = r.json().at("routes");
  if (!list.is_array()) throw r.error("routes", "is not a list");
  std::vector<SourceRoute> routes;
  for (size_t i = 0; i < list.size(); ++i) {
    const FieldReader route(list[i], r.where() + ".routes." + std::to_string(i));
    route.refuse_unknown({"nodes", "pace_bytes_per_s"});
    SourceRoute s;
    s.nodes = nodes_from(route, "nodes", nodes, true);
    if (s.nodes.size() < 2) throw route.error("nodes", "holds fewer than two nodes");
    s.pace_bytes_per_s = route.in_range(
        "pace_bytes_per_s", route.required<double>("pace_bytes_per_s"), 0.0, kFastestPaceBytesPerS);
    routes.push_back(std::move(s));
  }
  return routes;
}

}  // namespace

double TrainingSetup::slowdown(int node) const {
  const auto it = slow.find(node);
  return it == slow.end() ? 1.0 : it->second;
}

nlohmann::json to_json(const TrainingSetup& s) {
  nlohmann::json slow = nlohmann::json::object();
  for (const auto& [node, factor] : s.slow) slow[std::to_string(node)] = factor;
  nlohmann::json j = {{"cmd", "setup"},
                      {"protocol", s.protocol},
                      {"algorithm", s.algorithm},
                      {"job",
                       {{"name", s.job.name},
                        {"seed", s.job.seed},
                        {"scale", s.job.scale},
                        {"parameters", s.job.parameters},
                        {"workers_per_node", s.job.workers_per_node},
                        {"t", s.job.t_in_passes ? "pass" : "clock"}}},
                      {"slow", slow},
                      {"workers", s.workers},
                      {"servers", s.servers},
                      {"staleness", s.staleness},
                      {"iterations", s.iterations},
                      {"compute",
                       {{"min_ms", s.compute.min_ms},
                        {"max_ms", s.compute.max_ms},
                        {"straggler_share", s.compute.straggler_share},
                        {"straggler_factor", s.compute.straggler_factor}}},
                      {"seed", s.seed},
                      {"eval_interval_ms", s.eval_interval_ms}};
  if (s.compute.on_cpu) j["compute"]["as"] = "cpu";
  if (!s.consistency.empty()) j["consistency"] = s.consistency;
  if (s.routes) {
    j["routes"] = nlohmann::json::array();
    for (const auto& route : *s.routes)
      j["routes"].push_back({{"nodes", route.nodes}, {"pace_bytes_per_s", route.pace_bytes_per_s}});
  }
  if (!s.transfer.empty()) j["transfer"] = s.transfer;
  if (s.gaia) j["gaia"] = to_json(*s.gaia);
  if (s.store) j["store"] = to_json(*s.store);
  if (!s.key_partition.empty()) j["key_partition"] = s.key_partition;
  if (s.scheduled) j["scheduled"] = true;
  if (s.distribution) j["distribution"] = true;
  if (s.pull_batch_ms > 0) j["pull_batch_ms"] = s.pull_batch_ms;
  if (s.replica >= 0) j["replica"] = s.replica;
  if (!s.policy.is_null()) j["policy"] = s.policy;
  write_van_setup(j, s.van);
  if (s.checkpoint.every > 0)
    j["checkpoint"] = {{"every", s.checkpoint.every},
                       {"path", s.checkpoint.path},
                       {"standby", s.checkpoint.standby}};
  return j;
}

TrainingSetup training_setup_from_json(const nlohmann::json& j) {
  const FieldReader r(j, "setup");
  r.refuse_unknown({"cmd",     "protocol",   "algorithm",        "job",          "slow",
                    "workers", "servers",    "consistency",      "staleness",    "iterations",
                    "compute", "seed",       "eval_interval_ms", "routes",       "transfer",
                    "gaia",    "store",      "scheduled",        "distribution", "pull_batch_ms",
                    "replica", "checkpoint", "policy",           "key_partition"},
                   kVanSetupFields);
  if (r.required<std::string>("cmd") != "setup") throw r.error("cmd", "is not setup");
  TrainingSetup s;
  s.van = van_setup_from(r);
  s.protocol = r.required<std::string>("protocol");
  if (s.protocol.empty()) throw r.error("protocol", "is empty");
  s.algorithm = r.optional<std::string>("algorithm", "");
  if ((s.protocol == "allreduce" || !s.algorithm.empty()) && s.algorithm != "ring" &&
      s.algorithm != "tree")
    throw r.error("algorithm", "is '" + s.algorithm + "', not ring or tree");
  s.job = job_from(r.object("job"));
  const auto slow = r.optional<nlohmann::json>("slow", nlohmann::json::object());
  if (!slow.is_object()) throw r.error("slow", "is not an object");
  for (const auto& [node, factor] : slow.items()) {
    int n = -1;
    try {
      n = std::stoi(node);
    } catch (const std::exception&) {
    }
    if (n < 0 || std::to_string(n) != node || static_cast<size_t>(n) >= s.van.nodes() ||
        !factor.is_number() || !(factor.get<double>() > 0))
      throw r.error("slow", "has '" + node + "': " + factor.dump() +
                                " (a node's index and a factor above 0)");
    s.slow[n] = factor.get<double>();
  }
  s.workers = nodes_from(r, "workers", s.van.nodes(), true);
  if (s.workers.empty()) throw r.error("workers", "is empty");
  s.servers = nodes_from(r, "servers", s.van.nodes(), false);
  s.consistency = r.optional<std::string>("consistency", "");
  if (s.protocol == "ps" && s.consistency != "bsp" && s.consistency != "ssp" &&
      s.consistency != "async" && s.consistency != "wsp")
    throw r.error("consistency", s.consistency.empty()
                                     ? "is missing"
                                     : "is '" + s.consistency + "', not bsp, ssp, async or wsp");
  if (s.protocol != "ps" && !s.consistency.empty())
    throw r.error("consistency", "is the parameter server's, not " + s.protocol + "'s");
  s.staleness = r.in_range("staleness", r.required<int>("staleness"), 0, TrainingSetup::kNoBound);
  s.iterations = r.in_range("iterations", r.required<int>("iterations"), 1, kMostIterations);
  s.compute = compute_from(r.object("compute"));
  s.seed = r.required<uint64_t>("seed");
  s.eval_interval_ms =
      r.in_range("eval_interval_ms", r.required<int>("eval_interval_ms"), 1, INT_MAX);
  if (r.json().contains("routes")) s.routes = routes_from(r, s.van.nodes());
  s.transfer = r.optional<std::string>("transfer", "");
  if (!s.transfer.empty() && s.transfer != "native" && s.transfer != "model")
    throw r.error("transfer", "is '" + s.transfer + "', not native or model");
  if (r.json().contains("gaia")) s.gaia = gaia_setup_from(r.object("gaia"), s.van.nodes());
  if (s.protocol == "gaia" && !s.gaia) throw r.error("gaia", "is missing");
  if (r.json().contains("store")) s.store = store_setup_from(r.object("store"));
  s.key_partition = r.optional<std::string>("key_partition", "");
  if (!s.key_partition.empty() && s.key_partition.front() != '/')
    throw r.error("key_partition", "is not an absolute path");
  s.scheduled = r.optional<bool>("scheduled", false);
  s.distribution = r.optional<bool>("distribution", false);
  s.pull_batch_ms = r.in_range("pull_batch_ms", r.optional<int>("pull_batch_ms", 0), 0, INT_MAX);
  s.replica = r.optional<int>("replica", -1);
  if (s.replica >= static_cast<int>(s.van.nodes()))
    throw r.error("replica", "names node " + std::to_string(s.replica) + ", not an endpoint");
  s.policy = r.optional<nlohmann::json>("policy", nullptr);
  if (!s.policy.is_null() && !s.policy.is_object()) throw r.error("policy", "is not an object");
  if (const auto c = r.optional<nlohmann::json>("checkpoint", nullptr); !c.is_null()) {
    const FieldReader cr(c, "setup.checkpoint");
    cr.refuse_unknown({"every", "path", "standby"});
    s.checkpoint.every = cr.required<uint64_t>("every");
    s.checkpoint.path = cr.required<std::string>("path");
    s.checkpoint.standby = cr.required<int>("standby");
    if (s.checkpoint.every == 0) throw cr.error("every", "is 0");
    if (s.checkpoint.path.empty() || s.checkpoint.path.front() != '/')
      throw cr.error("path", "is not an absolute path");
    if (s.checkpoint.standby < 0 || s.checkpoint.standby >= static_cast<int>(s.van.nodes()))
      throw cr.error("standby", "names no endpoint");
  }
  return s;
}

}  // namespace testbed
