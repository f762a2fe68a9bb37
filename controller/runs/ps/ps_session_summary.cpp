// A parameter-server or Gaia run's results (PsSession::summary) and its one-line headline:
// roles, iteration times, traffic, the consistency model's own figures and convergence.
#include <algorithm>
#include <iomanip>
#include <sstream>

#include "agent/contracts/model_report.h"
#include "agent/contracts/node_replies.h"
#include "agent/contracts/ps_node_report.h"
#include "agent/contracts/training_setup.h"
#include "controller/observe/peer_refusals.h"
#include "controller/runs/ps/ps_session.h"
#include "controller/topology/units.h"
#include "controller/training/clock_communication.h"

namespace testbed {

nlohmann::json PsSession::summary(const std::string& lab) const {
  nlohmann::json s = {
      {"lab", lab},
      {"strategy", o_.strategy},
      {"runtime", !traits_.protocol.empty() ? traits_.protocol
                  : all_reduce()            ? traits_.all_reduce + "-allreduce"
                                            : "parameter-server"},
      // The strategy's own options as its agents ran them (defaults filled), or null.
      {"policy", o_.policy},
      {"consistency", consistency_label()},
      {"workers_per_dc", o_.workers_per_dc},
      {"slow_dc", o_.slow},
      {"stragglers", {{"share", o_.stragglers.share}, {"factor", o_.stragglers.factor}}},
      {"compute_as", o_.compute_on_cpu ? "cpu" : "wait"},
      {"staleness_bound", !bounded()                                ? nlohmann::json(nullptr)
                          : o_.staleness == TrainingSetup::kNoBound ? nlohmann::json("none")
                                                                    : nlohmann::json(o_.staleness)},
      {"model", o_.job},
      {"job", {{"name", o_.job}, {"scale", o_.scale}}},
      {"scale", o_.scale},
      {"iterations", o_.iterations},
      {"compute_ms", {{"min", o_.compute_min_ms}, {"max", o_.compute_max_ms}}},
      {"seed", o_.seed},
      {"eval_every_s", o_.eval_every_s},
      {"wall_s", wall_s_},
      {"stopped_by_budget", stopped_early_},
      // The budget ended a stalled run: workers did not finish; "final_loss" is then the
      // last loss reported, not an evaluation (see "stalls").
      {"ended", run_ending(ended_stalled_, stopped_early_)},
      {"node_names", names_}};
  nlohmann::json servers = nlohmann::json::array(), roles = nlohmann::json::object();
  for (size_t n = 0; n < names_.size(); ++n)
    roles[names_[n]] =
        worker_of_node_[n] >= 0 ? nlohmann::json::array({"worker"}) : nlohmann::json::array();
  std::string server_role;  // a policy's name for its servers (Gaia's replicas), or none
  for (const auto& policy : policies_)
    if (server_role.empty()) server_role = policy->server_role();
  for (size_t k = 0; k < servers_.size(); ++k) {
    servers.push_back(names_[static_cast<size_t>(servers_[k])]);
    roles[names_[static_cast<size_t>(servers_[k])]].push_back(
        !server_role.empty() ? server_role : "server-shard-" + std::to_string(k));
  }
  s["servers"] = servers;
  s["roles"] = roles;

  // Iteration times: per clock, the mean over the workers that ran it.
  std::vector<double> iteration_s;
  double all = 0, count = 0;
  uint64_t samples = 0;
  nlohmann::json workers = nlohmann::json::object();
  const std::vector<WorkerClockStamps> stamps = worker_stamps();
  for (size_t n = 0; n < names_.size(); ++n) {
    if (worker_of_node_[n] < 0) continue;
    // A worker the budget stopped while stalled never reported: no clocks of its own.
    const bool finished = finished_[n].has_value();
    const WorkerFinished f = finished_[n].value_or(WorkerFinished{});
    const std::vector<double>& times = f.iteration_s;
    double sum = 0;
    for (double x : times) sum += x;
    all += sum;
    count += static_cast<double>(times.size());
    samples += f.samples;
    workers[names_[n]] = {
        {"clocks", times.size()},
        {"finished", finished},
        {"iterations_per_s", sum > 0 ? static_cast<double>(times.size()) / sum : 0},
        {"mean_iteration_s", times.empty() ? 0 : sum / static_cast<double>(times.size())},
        {"started_ns", f.started_ns}};
  }
  // Synchronous runs: what each iteration waited on communication once every update was
  // ready (an asynchronous run's workers end their clocks apart: no such moment exists).
  if (o_.consistency == "bsp")
    s["communication"] = communication_summary(clock_communication_s(stamps));
  // What a clock's compute took, measured (a straggler's and the node's limit included):
  // the readings of --compute-as compare by it.
  s["clock_compute"] = communication_summary(clock_compute_s(stamps));
  s["clock_compute"].erase("per_clock_s");
  // Compute utilization (time computing over wall time, as INTELLECT-1 and Streaming
  // DiLoCo report it): each worker's clocks' compute over the run's wall time, and the
  // workers' mean. What is left of the wall time went to waiting on the network.
  nlohmann::json utilization = nlohmann::json::object();
  double utilization_sum = 0;
  for (size_t w = 0, n = 0; n < names_.size(); ++n) {
    if (worker_of_node_[n] < 0) continue;
    double computing = 0;
    for (double x : clock_compute_s({stamps[w++]})) computing += x;
    // A worker whose record died with it (an elastic run's crash) computed all the same:
    // its clocks' compute as each clock ended told it.
    if (!finished_[n]) computing = reported_compute_s_[n];
    const double u = wall_s_ > 0 ? std::min(1.0, computing / wall_s_) : 0;
    utilization[names_[n]] = u;
    utilization_sum += u;
  }
  s["compute_utilization"] = {
      {"mean", stamps.empty() ? 0 : utilization_sum / static_cast<double>(stamps.size())},
      {"per_worker", utilization}};
  for (const auto& [clock, times] : per_clock_s_) {
    double mean = 0;
    for (double x : times) mean += x / static_cast<double>(times.size());
    iteration_s.push_back(mean);
  }
  s["workers"] = workers;
  s["iteration_s"] = iteration_s;
  s["mean_iteration_s"] = count > 0 ? all / count : 0;
  s["samples_per_s"] = wall_s_ > 0 ? static_cast<double>(samples) / wall_s_ : 0;
  // What the t of the job's step schedule counted (Gaia's --gaia-t; the same for a Baseline).
  s["step_t"] = o_.t_in_passes ? "pass" : "clock";
  s["peers"] = peer_refusals(counters_of_reports(stats_), names_);

  // Convergence.
  s["loss_curve"] = curve_.to_json();
  s["final_loss"] = final_loss_;
  s["target_loss"] = target_;
  s["target_source"] = target_source_;
  if (!long_run_.is_null()) s["target_long_run"] = long_run_;
  s["reference_loss_curve"] = reference_curve_;  // single-process BSP, before clock 0..n
  const auto t = curve_.time_to(target_);
  s["time_to_target_s"] = t ? nlohmann::json(*t) : nlohmann::json(nullptr);

  // What crossed the emulated links, by the kernel's counters of the lab's links.
  uint64_t wan = 0;
  nlohmann::json per_direction = nlohmann::json::object();
  for (const auto& [key, bytes] : wan_bytes_) {
    per_direction[key] = bytes;
    wan += bytes;
  }
  s["wan_bytes"] = wan;
  s["wan_bytes_per_direction"] = per_direction;

  // The shards' view: staleness of applied updates, when each update took effect, values.
  // The reports arrived checked (agent_reply.h): read by their contract.
  std::vector<PsNodeReport> reports(stats_.size());
  for (size_t n = 0; n < stats_.size(); ++n)
    if (is_ps_node_report(stats_[n])) reports[n] = ps_node_report_from(stats_[n]);
  std::map<uint64_t, uint64_t> histogram;
  nlohmann::json shards = nlohmann::json::object();
  size_t parameters = 0;
  for (const auto& r : reports)
    if (r.shard && r.shard->role == "server")
      parameters = std::max(parameters, static_cast<size_t>(r.shard->end));
  std::vector<float> model(parameters, 0.0f);
  bool have_values = true;
  // A shard's values are in its server keys: a policy's (DRPS's partition), or the job's own.
  const KeyMap* placed = nullptr;
  for (const auto& policy : policies_)
    if (!placed) placed = policy->key_map();
  for (size_t n = 0; n < reports.size(); ++n) {
    if (!reports[n].shard || reports[n].shard->role != "server") continue;
    const ShardReport& sv = *reports[n].shard;
    for (const auto& [staleness, k] : sv.staleness) histogram[staleness] += k;
    shards[names_[n]] = {{"shard", sv.shard},
                         {"keys", {sv.begin, sv.end}},
                         {"updates", sv.updates},
                         {"applied_ns", sv.applied_ns}};
    if (!sv.values) {
      have_values = false;
      continue;
    }
    for (uint32_t k = 0; k < sv.values->size(); ++k) {
      const auto key = static_cast<uint32_t>(sv.begin) + k;
      model.at(placed ? placed->to_job(key) : key) = (*sv.values)[k];
    }
  }
  // RR-Sync: the ring's model (every worker holds the same), for the same check.
  for (const auto& st : stats_)
    if (auto ring = servers_.empty() ? ring_model_from(st) : std::nullopt) model = *ring;
  if (servers_.empty() && model.empty()) have_values = false;
  // DRPS's network figure (Sec. 7.2): the parameters training pulls asked of other nodes.
  uint64_t local = 0, remote = 0;
  for (const auto& r : reports)
    if (r.pulled) {
      local += r.pulled->local;
      remote += r.pulled->remote;
    }
  const double asked = static_cast<double>(local + remote);
  s["pulled_parameters"] = {
      {"local", local},
      {"remote", remote},
      {"remote_share", asked > 0 ? static_cast<double>(remote) / asked : 0.0}};
  nlohmann::json h = nlohmann::json::object();
  uint64_t max_staleness = 0;
  for (const auto& [staleness, k] : histogram) {
    h[std::to_string(staleness)] = k;
    max_staleness = std::max(max_staleness, staleness);
  }
  s["staleness_histogram"] = h;
  s["max_staleness"] = max_staleness;
  s["shards"] = shards;
  // All-reduce runs have no server to read the model's end from: the job's own size.
  s["job"]["parameters"] = std::max({parameters, model.size(), o_.job_parameters});
  s["store"] = {{"kind", o_.store}};
  // BSP is the single-process run by definition: check it, as the tree strategies are.
  if (!reference_.empty() && have_values && !stopped_early_) {
    double diff = 0;
    for (size_t k = 0; k < model.size(); ++k)
      diff = std::max(diff, std::fabs(static_cast<double>(model[k]) - reference_[k]));
    s["reference_max_abs_diff"] = diff;
    s["reference_tolerance"] = kReferenceTolerance;
  }
  // Each policy's own figures (a scheduler's, a store's, a placement's, replicas'), read
  // beside the session's: their sections of the nodes' reports are theirs to read.
  for (const auto& policy : policies_) policy->summary(s);
  return s;
}

std::vector<WorkerClockStamps> PsSession::worker_stamps() const {
  std::vector<WorkerClockStamps> stamps;
  for (size_t n = 0; n < names_.size(); ++n) {
    if (worker_of_node_[n] < 0) continue;
    // A worker the budget stopped while stalled never reported: no clocks of its own.
    const WorkerFinished f = finished_[n].value_or(WorkerFinished{});
    stamps.push_back({f.started_ns, f.computed_ns});
  }
  return stamps;
}

std::string PsSession::consistency_label() const {
  for (const auto& policy : policies_)
    if (std::string own = policy->consistency_label(); !own.empty()) return own;
  const std::string bound =
      o_.staleness == TrainingSetup::kNoBound ? std::string("none") : std::to_string(o_.staleness);
  const std::string model = bounded() ? o_.consistency + "(" + bound + ")" : o_.consistency;
  // A scheduled server and the all-reduces are their own model (a policy may name it
  // more closely, above); a store whose --parallel chose the model (DRPS) names both.
  if (traits_.scheduled() || all_reduce()) return traits_.name;
  return traits_.consistency.empty() ? traits_.name + " " + model : model;
}

std::string PsSession::headline() const {
  std::ostringstream out;
  const auto t = curve_.time_to(target_);
  uint64_t wan = 0;
  for (const auto& [key, bytes] : wan_bytes_) wan += bytes;
  out << consistency_label() << ": " << o_.job << " x" << format_factor(o_.scale) << " on "
      << servers_.size() << " shard" << (servers_.size() == 1 ? "" : "s") << ", " << std::fixed
      << std::setprecision(1) << wall_s_ << " s; final loss " << std::setprecision(4) << final_loss_
      << ", target " << target_ << (t ? " reached at " : " not reached");
  if (t) out << std::setprecision(1) << *t << " s";
  out << "; WAN " << std::setprecision(1) << static_cast<double>(wan) / 1e6 << " MB";
  return out.str();
}

}  // namespace testbed
