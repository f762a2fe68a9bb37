// MLfabric-A's failover to its replica (Sec. 5.3) in a parameter-server session. The
// scheduler runs here and hears every agent; when the server's agent dies (a node crash,
// docs/faults.md) the controller's liveness check finds it within 200 ms, and the scheduler
// tells every node that the replica is the server now (agent/protocols/mlfabric/
// failover.cpp says what each node does with what was under way). A fresh scheduler takes
// over, with the replica as its server and no replica of its own, and numbers its places
// after every place the dead one gave: the replica's version counts the lost ones,
// so versions (and the delay bound's deadlines) stay comparable across the failover.
#include <algorithm>
#include <chrono>

#include "controller/dynamics/node_faults.h"
#include "controller/runs/mlfabric/mlfabric_run.h"

namespace testbed {
namespace {

double wall_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

// Any other death is not this policy's to carry: the session ends the run, naming the node.
bool MlfabricRun::node_died(size_t node, double now_s) {
  if (static_cast<int>(node) != server() || (replica_ < 0 && standby_ < 0) || !scheduler_ ||
      !failover_.is_null())
    return false;
  const bool checkpoint = replica_ < 0;
  const int dead = server(), replica = checkpoint ? standby_ : replica_;
  const uint64_t ordered = scheduler_->ordered(), replica_had = scheduler_->replica_reported();
  const std::vector<std::string>& names = run_.names();
  failover_ = {{"server", names[static_cast<size_t>(dead)]},
               {"recovery", checkpoint ? "checkpoint" : "replica"},
               {checkpoint ? "standby" : "replica", names[static_cast<size_t>(replica)]},
               {"detected_s", now_s},
               {"detected_unix_s", wall_now_s()},
               {"ordered_before", ordered},
               {"ordered_unsent", scheduler_->unsent_places()},
               {"scheduler_before", scheduler_->stats()}};
  if (checkpoint) {
    failover_["checkpoint_every"] = knobs_.checkpoint_every;
  } else {
    failover_["div_max"] = scheduler_->options().div_max.value_or(0);
    failover_["replica_applied_reported"] = replica_had;
  }
  std::ostream& progress = run_.progress();
  progress << o_.strategy << ": the server " << names[static_cast<size_t>(dead)] << " died; "
           << (checkpoint ? "the standby " : "the replica ") << names[static_cast<size_t>(replica)]
           << " is the server now, from place " << ordered;
  if (checkpoint)
    progress << " (from the server's last checkpoint)\n";
  else
    progress << " (it had applied " << replica_had << ")\n";
  progress << std::flush;
  run_.set_servers({replica});
  replica_ = -1;
  standby_ = -1;
  setup_scheduler(run_.worker_nodes(), parameters_, ordered);
  next_monitor_s_ = 0;  // the new scheduler reads the network at once
  for (size_t n = 0; n < names.size(); ++n)
    if (!run_.agents().dead(n))
      run_.agents().send(n, {{"cmd", "failover"},
                             {"server", replica},
                             {"first_seq", ordered},
                             {"from_checkpoint", checkpoint}});
  return true;
}

// The failover's figures: when the server died (the crash's record, when a fault of the
// lab killed it), when it was found dead, when the first update of the new order reached
// the promoted replica (it is applied on arrival: it is the next place), and the work lost.
nlohmann::json MlfabricRun::failover_summary() const {
  nlohmann::json f = failover_;
  f.erase("scheduler_before");
  const nlohmann::json states =
      run_.lab_dir().empty() ? nlohmann::json::object() : read_node_states(run_.lab_dir());
  const std::string server = failover_["server"];
  const nlohmann::json rec = states.value(server, nlohmann::json::object());
  if (rec.value("event", "") == "crash" && rec.contains("at_unix_s")) {
    const double crash_unix = rec["at_unix_s"];
    const double detected_unix = failover_["detected_unix_s"];
    // The crash on the run's clock: the detection less the time between them.
    f["crash_s"] = failover_["detected_s"].get<double>() - (detected_unix - crash_unix);
    f["detection_s"] = detected_unix - crash_unix;
    if (f.contains("first_arrival_s"))
      f["crash_to_first_update_applied_s"] =
          f["first_arrival_s"].get<double>() - f["crash_s"].get<double>();
  }
  uint64_t stale = 0, reannounced = 0, repulled = 0;
  for (const MlfabricReport& r : reports()) {
    if (!r.failover) continue;
    const MlfabricFailoverSection& x = *r.failover;
    stale += x.stale_messages_dropped;
    reannounced += x.updates_announced_again;
    repulled += x.pulls_asked_again;
    if (!x.promoted) continue;
    f["places_skipped"] = x.promoted->places_lost;
    if (x.promoted->checkpoint) f["checkpoint_loaded"] = *x.promoted->checkpoint;
  }
  // The places the promoted replica skipped, less those whose update was never sent (its
  // worker still held it, and announced it again to the new order): what the server had
  // applied or had on its way, gone with it.
  if (f.contains("places_skipped"))
    f["updates_lost"] =
        f["places_skipped"].get<uint64_t>() -
        std::min(f["places_skipped"].get<uint64_t>(), failover_["ordered_unsent"].get<uint64_t>());
  f["stale_messages_dropped"] = stale;
  f["held_updates_announced_again"] = reannounced;
  f["pulls_asked_again"] = repulled;
  // The paper's claim: at most Div_max updates applied at the server are missing at the
  // replica. The places lost also count those ordered but still on their way.
  if (f.contains("updates_lost") && f.contains("div_max"))
    f["updates_lost_within_div_max"] =
        f["updates_lost"].get<uint64_t>() <= f["div_max"].get<uint64_t>();
  return f;
}

}  // namespace testbed
