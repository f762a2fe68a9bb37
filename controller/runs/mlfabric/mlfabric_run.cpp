// MLfabric's scheduler in a parameter-server session (mlfabric_run.h): its set-up, the
// agents' events it reads, the words it sends, the wait for the last ordered updates, and
// its figures.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>

#include "agent/contracts/node_replies.h"
#include "agent/jobs/job.h"
#include "controller/options/usage_error.h"
#include "controller/runs/mlfabric/mlfabric_run.h"

namespace testbed {
namespace {

// The network monitor reads the lab's rates this often; the scheduler sees a change
// t_lag (0.2 s) after it was read, so 0.2-0.3 s after the timeline made it.
constexpr double kMonitorPeriodS = 0.1;
// After the workers finish, the updates still ordered reach the server within a few of
// their transfer times (seconds at the slowest rates of the profiles); 60 s bounds the wait
// without letting a lost update hang the run. Its applied count is asked every 200 ms.
constexpr double kSettleS = 60;
constexpr int kSettlePollMs = 200;

}  // namespace

std::unique_ptr<PsRunPolicy> make_mlfabric_run(PsRun& run) {
  if (!run.traits().scheduled()) return nullptr;
  return std::make_unique<MlfabricRun>(run);
}

void check_mlfabric_roles(const TrainOptions& o, const std::vector<std::string>& names,
                          const std::vector<int>& servers, const std::vector<int>& workers) {
  if (!strategy_traits(o.strategy).scheduled()) return;
  if (servers.size() != 1)
    throw UsageError(o.strategy +
                     " schedules the updates to one server (the paper's setting): "
                     "--servers names one node");
  const MlfabricKnobs k = mlfabric_knobs(o.policy);
  replica_node(k.replica, names, servers.front(), workers);
  replica_node(k.standby, names, servers.front(), workers, "--standby");
}

void MlfabricRun::setup(TrainingSetup& setup, const JobConfig&, size_t parameters) {
  const std::vector<int>& workers = run_.worker_nodes();
  parameters_ = parameters;
  replica_ = replica_node(knobs_.replica, run_.names(), server(), workers);
  standby_ = replica_node(knobs_.standby, run_.names(), server(), workers, "--standby");
  setup_scheduler(workers, parameters_);
  const bool bounded_delay = run_.traits().scheduling == Scheduling::kBoundedDelay;
  // MLfabric-A's replica, or its standby with the checkpoints, is there to take over
  // (Sec. 5.3, 7.3): the server's death fails over.
  if ((replica_ >= 0 || standby_ >= 0) && bounded_delay)
    run_.agents().allow_death(static_cast<size_t>(server()));
  if (standby_ >= 0)
    setup.checkpoint = {static_cast<uint64_t>(knobs_.checkpoint_every),
                        o_.store_dir + "/checkpoint.bin", standby_};
  setup.scheduled = true;
  setup.distribution = distributors_ > 0;
  // MLfabric-A batches its pulls at the server as the scheduler batches updates: one
  // interval (the paper's 100 ms, Sec. 7) governs both.
  if (distributors_ > 0 && bounded_delay)
    setup.pull_batch_ms =
        static_cast<int>(std::lround(scheduler_->options().batch_interval_s * 1000));
  setup.replica = replica_;
}

bool MlfabricRun::event(size_t node, const nlohmann::json& e, double t) {
  // The server's events arrive checked (AgentGroup, agent_reply.h): read by their contract.
  constexpr uint64_t kAnyClock = UINT64_MAX;
  const std::string kind = e.value("event", "");
  if (kind == UpdateAnnounced::kEvent) {
    on_update(node, update_announced_from_json(e, kAnyClock), t);
  } else if (kind == PullBatch::kEvent && distributors_ > 0) {
    plan_pull_batch(pull_batch_from_json(e, run_.names().size(), kAnyClock), t);
  } else if (kind == UpdateArrived::kEvent) {
    scheduler_->arrived(update_arrived_from_json(e).seq, t);
    if (!failover_.is_null() && !failover_.contains("first_arrival_s"))
      failover_["first_arrival_s"] = t;
  } else if (kind == ReplicaApplied::kEvent) {
    scheduler_->replica_applied(replica_applied_from_json(e).applied, t);
  } else {
    return false;
  }
  return true;
}

std::map<size_t, double> MlfabricRun::configured_rates() const {
  const auto directions = run_.directions_now();
  std::map<size_t, double> rates;
  for (size_t l = 0; l < directions.size(); ++l)
    if (directions[l].params.rate.bits_per_s > 0)  // 0: unshaped, never the bottleneck
      rates[l] = static_cast<double>(directions[l].params.rate.bits_per_s);
  return rates;
}

void MlfabricRun::setup_scheduler(const std::vector<int>& workers, size_t parameters,
                                  uint64_t first_seq) {
  if (run_.servers().size() != 1)
    throw UsageError(o_.strategy +
                     " schedules the updates to one server (the paper's setting): "
                     "--servers names one node");
  std::vector<std::pair<int, int>> links;
  const auto at = [&](const std::string& n) {
    return static_cast<int>(std::find(run_.names().begin(), run_.names().end(), n) -
                            run_.names().begin());
  };
  for (const auto& d : run_.directions()) links.emplace_back(at(d.from), at(d.to));
  AggregationPaths paths, to_replica;
  for (int node : workers) {
    paths.to_server.push_back(hop_path(links, node, server()));
    if (replica_ >= 0) to_replica.to_server.push_back(hop_path(links, node, replica_));
    paths.between.emplace_back();
    for (int aggregator : workers)
      paths.between.back().push_back(hop_path(links, node, aggregator));
  }
  SchedulerOptions so;
  // The paper's tau_max is 30 with its 30 workers: by default, one per worker.
  so.delay_bound =
      knobs_.delay_bound > 0 ? static_cast<uint64_t>(knobs_.delay_bound) : workers.size();
  delay_bound_ = so.delay_bound;
  // Aggregators are co-hosted with the workers (Sec. 7): by default one on every worker's node.
  so.aggregators =
      knobs_.aggregators >= 0 ? static_cast<size_t>(knobs_.aggregators) : workers.size();
  so.model_bytes = static_cast<double>(parameters * sizeof(float));  // a dense sum's size
  so.seed = o_.seed;
  so.synchronous = run_.traits().scheduling == Scheduling::kPerClock;
  so.hold_overdue = knobs_.monitor_arrivals;
  so.first_seq = first_seq;
  // Sec. 7.3 bounds the lead by 30 or 600 updates with 30 workers: by default, one per worker.
  if (replica_ >= 0)
    so.div_max = knobs_.div_max >= 0 ? static_cast<uint64_t>(knobs_.div_max) : workers.size();
  // The distributors are as many as the aggregators (co-hosted the same way). MLfabric-S
  // distributes a dense job's model only: a sparse job's pulls differ per worker.
  const bool dense =
      make_job({o_.job, o_.seed, 1, o_.scale, o_.job_parameters}, 0)->keys_for(0).empty();
  // MLfabric-A's pulls of a sparse job go dense when they name most keys (key_map.h), and
  // only those are batched and distributed; the others are answered on their own.
  if (knobs_.distribution && (dense || !so.synchronous))
    setup_distribution(links, workers, paths.between, parameters, so.aggregators);
  scheduler_ = std::make_unique<UpdateScheduler>(so, std::move(paths), std::move(to_replica));
  scheduler_->observe_rates(configured_rates(), 0);
}

double MlfabricRun::drive(double now_s) {
  if (now_s >= next_monitor_s_) {
    scheduler_->observe_rates(configured_rates(), now_s);
    next_monitor_s_ = now_s + kMonitorPeriodS;
  }
  const auto node_of = [&](int worker) { return run_.worker_nodes()[static_cast<size_t>(worker)]; };
  for (const auto& d : scheduler_->poll(now_s)) {
    nlohmann::json word;
    switch (d.word) {
      case SchedulerDecision::Word::kSend:
        on_sent(d.clock, now_s);
        word = {{"cmd", "send"},
                {"clock", d.clock},
                {"seq", d.seq},
                {"to", d.to < 0 ? server() : node_of(d.to)}};
        break;
      case SchedulerDecision::Word::kDrop:
        word = {{"cmd", "drop"}, {"clock", d.clock}};
        break;
      case SchedulerDecision::Word::kAggregate:
        word = {{"cmd", "aggregate"}, {"seq", d.seq}, {"count", d.count}, {"replica", d.replica}};
        break;
      case SchedulerDecision::Word::kReplicate:
        word = {{"cmd", "replicate"},
                {"clock", d.clock},
                {"seq", d.seq},
                {"to", d.to < 0 ? replica_ : node_of(d.to)}};
        break;
    }
    run_.agents().send(static_cast<size_t>(node_of(d.worker)), word);
  }
  return std::min(scheduler_->next_poll_s(), next_monitor_s_);
}

void MlfabricRun::on_update(size_t node, const UpdateAnnounced& u, double t) {
  // After a failover a held update is announced again; its first announcement may still
  // have been on its way when the failover went out, and reach the new scheduler too.
  if (!failover_.is_null() &&
      !announced_since_failover_.emplace(run_.worker_of_node(node), u.clock).second)
    return;
  scheduler_->announce(run_.worker_of_node(node), u.version, static_cast<double>(u.bytes), t,
                       u.clock, u.norm);
}

void MlfabricRun::settle(const std::function<double()>& now_s) {
  const double deadline = now_s() + kSettleS;
  scheduler_->flush_replica(now_s());  // the replica ends with the server's model
  while (now_s() < deadline) {
    drive(now_s());
    // The monitor always has a next reading; what matters is the scheduler's own work, and
    // sends waiting for the replica's reports.
    const double next = scheduler_->next_poll_s();
    if (!scheduler_->waits_for_replica() &&
        (next == std::numeric_limits<double>::infinity() || next >= deadline))
      break;
    const double wait = std::clamp(next - now_s(), 0.0, 0.1);
    if (auto e = run_.agents().next_event(std::chrono::milliseconds(static_cast<int>(1000 * wait))))
      run_.handle_event(e->first, e->second, now_s());
  }
  // Each copy of the model has every ordered update: the server's, and the replica's.
  for (int node : {server(), replica_}) {
    if (node < 0) continue;
    const char* role = node == replica_ ? "replica" : "server";
    bool settled = false;
    while (!settled && now_s() < deadline) {
      run_.agents().send(static_cast<size_t>(node), {{"cmd", "stats"}});
      std::optional<std::pair<size_t, nlohmann::json>> e;
      while ((e = run_.agents().next_event(std::chrono::milliseconds(1000))) &&
             e->second["event"] != "stats") {
      }
      // Checked whole as it arrived (decode_agent_reply): read through its contract.
      if (e) {
        const MlfabricReport r = mlfabric_report_from(e->second);
        settled = r.role == role && r.shard->ordered &&
                  r.shard->ordered->applied == scheduler_->ordered();
      }
      if (!settled) std::this_thread::sleep_for(std::chrono::milliseconds(kSettlePollMs));
    }
    if (!settled)
      run_.progress() << o_.strategy << ": the " << role << " had not applied every ordered update "
                      << kSettleS << " s after the workers finished\n";
  }
}

std::vector<MlfabricReport> MlfabricRun::reports() const {
  std::vector<MlfabricReport> out;
  for (const nlohmann::json& st : run_.node_stats())
    out.push_back(is_final_report(st) ? mlfabric_report_from(st) : MlfabricReport{});
  return out;
}

// The scheduler's figures, and the servers' check of its order: every update ordered was
// applied once, in order (ordered_pushes.h throws on one that arrives twice).
std::string MlfabricRun::consistency_label() const {
  if (run_.traits().scheduling != Scheduling::kBoundedDelay) return run_.traits().name;
  return run_.traits().name + "(" + std::to_string(delay_bound_) + ")";
}

void MlfabricRun::summary(nlohmann::json& s) const {
  // MLfabric-S: the updates' way to the server, and the model's way back, apart, from the
  // workers' stamps and the server's per-clock apply times.
  for (const MlfabricReport& r : reports()) {
    if (r.role != "server" || r.shard->clock_applied_ns.empty()) continue;
    add_server_legs(server_legs(run_.worker_stamps(), r.shard->clock_applied_ns),
                    s["communication"]);
  }
  nlohmann::json& m = s["mlfabric"];
  m = scheduler_->stats();
  uint64_t applied = 0, early = 0, pushed = 0, dropped = 0, sums = 0, summed = 0;
  for (const MlfabricReport& r : reports()) {
    if (r.role == "server" && r.shard->checkpoint) m["checkpoint"] = *r.shard->checkpoint;
    if (r.role == "server" && r.shard->ordered) {
      const auto& o = *r.shard->ordered;
      applied = o.applied;
      early = o.arrived_early;
      // What reached the server: the aggregators' sums and the updates sent directly.
      m["aggregation"]["server_received_messages"] = o.messages;
      m["aggregation"]["server_received_bytes"] = o.bytes;
    }
    if (r.worker) {
      sums += r.worker->aggregator.sums;
      summed += r.worker->aggregator.updates;
      pushed += r.worker->scheduled.pushed;
      dropped += r.worker->scheduled.dropped;
    }
  }
  m["server_applied_in_order"] = applied;
  m["arrived_before_an_earlier_update"] = early;
  m["workers_pushed"] = pushed;
  m["workers_dropped"] = dropped;
  m["aggregation"]["sums_sent"] = sums;
  m["aggregation"]["updates_summed"] = summed;
  // After a failover the workers' pushes include those lost with the server: the promoted
  // replica's check is that it applied every place of the new order after the lost ones.
  m["every_ordered_update_applied"] =
      applied == scheduler_->ordered() && (!failover_.is_null() || pushed == applied);
  if (!failover_.is_null()) m["failover"] = failover_summary();
  if (replica_ >= 0)
    m["replication"]["measured"] = replication_summary(m["replication"]["div_max"]);
  m["distribution"] = distribution_summary();
  m["choices"] = mlfabric_choices();
  m["server_link"] = server_link_reading();
  m["monitor"] = knobs_.monitor_arrivals
                     ? "arrivals: a message not at the server by its planned end keeps its path "
                       "busy, one batching interval at a time, until the server reports it"
                     : "plan: the configured rates less the scheduler's own reservations";
}

// The paper hosts the server (and replica) on a dedicated 10 Gbit/s machine and varies the
// hosts' NICs (Sec. 7); the cluster profiles default to that, and offer the server's link
// redrawn as every host's. Which reading this lab ran is read off its schedules.
nlohmann::json MlfabricRun::server_link_reading() const {
  const std::string& name = run_.names()[static_cast<size_t>(server())];
  bool redrawn = false;
  for (const auto& d : run_.directions()) {
    if (d.from != name && d.to != name) continue;
    const Schedule& s = d.params.schedule;
    redrawn |= s.kind == Schedule::Kind::kRandom || s.kind == Schedule::Kind::kTrace ||
               s.changes.size() > 1;
  }
  return {{"redrawn", redrawn},
          {"reading", redrawn ? "redrawn with the hosts' NICs (the other reading)"
                              : "not varied: the paper's dedicated 10 Gbit/s machine (Sec. 7)"}};
}

}  // namespace testbed
