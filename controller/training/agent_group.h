// The controller's side of the agents of a run: a ROUTER on the lab's ipc:// socket, and on
// a TCP address too when some agents run on other hosts (docs/multihost.md); one DEALER per
// agent (its routing id is its node index). Commands go out as JSON, events come back; an
// agent that dies or reports an error is named, here by its pid, on another host by that
// host's `testbed agents` (remote_hosts.h).
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include <zmq.hpp>

#include "controller/training/curve_gate.h"
#include "controller/training/remote_hosts.h"
#include "netns/stop_signals.h"

namespace testbed {

// The bound on a frame an agent accepts ("max_message" in every setup, van.h), from the
// largest payload the run's protocol sends: twice it, so that a message of the run is never
// cut by a miscount of ours, while a stranger's declared gigabytes are refused unread.
inline uint64_t message_bound(uint64_t largest_payload) {
  return 2 * largest_payload;
}

// Thrown by a wait past the run's time budget while the run is stalled: the session ends the
// run there, with what it has, instead of waiting for data that does not move.
struct StalledPastBudget : std::runtime_error {
  StalledPastBudget() : std::runtime_error("stalled past the run's time budget") {}
};

// Thrown by a wait once a stop signal has arrived (Ctrl-C, a CI job's timeout): the run
// ends there, its agents stopped as after any failure (training_run.cpp).
struct Interrupted : std::runtime_error {
  explicit Interrupted(int sig)
      : std::runtime_error("interrupted by signal " + std::to_string(sig)), signal(sig) {}
  int signal;
};

// How a run ended, as every summary says it ("ended"): by its iterations, by its budget, or
// by its budget while stalled (see "stalls").
inline const char* run_ending(bool stalled, bool stopped_by_budget) {
  return stalled ? "max-seconds, stalled" : stopped_by_budget ? "max-seconds" : "iterations";
}

class AgentGroup {
 public:
  AgentGroup(zmq::context_t& context, const std::string& socket_path,
             std::vector<std::string> names);
  // The run's secret, new for every group: every setup carries it, and an agent hears only
  // connections that present it (van.h), so nothing else in a node can join the run.
  const std::string& secret() const { return secret_; }
  // The agents' pids, once started, so that gather() can tell a dead one from a slow one;
  // 0 for an agent on another host.
  void set_pids(std::vector<pid_t> pids) { pids_ = std::move(pids); }
  // Agents on other hosts: a second ROUTER listens on `tcp_endpoint` (tcp://ADDR:PORT) as a
  // CURVE server with this host's key, admitting only `admitted`'s host keys (curve_gate.h);
  // `host_of[n]` is node n's host, and `remote[n]` says its agent is started and watched by
  // its host's `testbed agents`. A host speaks there only for its own nodes; anything else is
  // dropped and counted (spoofed_messages). The run's van speaks CURVE too (van_curve()).
  void listen_for_hosts(const std::string& tcp_endpoint, std::vector<bool> remote,
                        const CurveKeyPair& own, AdmittedHosts admitted,
                        std::vector<std::string> host_of);
  // The TCP endpoint bound, resolved ("tcp://127.0.0.1:*" becomes its port); "" without.
  std::string tcp_endpoint() const {
    return tcp_ ? tcp_->get(zmq::sockopt::last_endpoint) : std::string();
  }
  // The van speaks CURVE with keys new for this run (on by default over hosts).
  void use_van_curve(bool on) {
    if (on && !van_curve_) van_curve_ = VanCurve::make();
    if (!on) van_curve_.reset();
  }
  // The run's van keys for every setup (null when the van speaks PLAIN with the secret).
  nlohmann::json van_curve() const { return van_curve_ ? to_json(*van_curve_) : nullptr; }
  // Handshakes refused on the TCP port, and what the gate saw of them (taken once each).
  uint64_t refused_connections() const { return gate_ ? gate_->refused() : 0; }
  std::vector<std::string> take_refusals() {
    return gate_ ? gate_->take_refusals() : std::vector<std::string>{};
  }
  // Messages from an admitted host for a node that is not its own, or not canonical.
  uint64_t spoofed_messages() const { return spoofed_messages_; }
  // The remote nodes whose host has not reported yet, by name.
  std::vector<std::string> awaited_nodes() const;

  // Asked about every 200 ms while a wait goes on whether the run is stalled (a StallWatch);
  // it may itself throw, to end a run stalled too long.
  void set_stall_check(std::function<bool()> stalled) { stalled_ = std::move(stalled); }
  // The verb's stop signals: every wait polls their descriptor beside the agents' sockets,
  // so a signal ends it at once, with Interrupted.
  void set_stop(const StopSignals* stop) { stop_ = stop; }
  // What the stall check said last (false without one).
  bool stalled() const { return last_stalled_; }
  // --max-seconds from now (none when 0): a wait past it while the run is stalled throws
  // StalledPastBudget.
  void set_budget(double seconds) {
    if (seconds > 0)
      budget_end_ = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(seconds));
  }
  // Once a session has ended its run at the budget: its last words are waited for as usual.
  void clear_budget_end() { budget_end_.reset(); }

  void send(size_t node, const nlohmann::json& command);
  void broadcast(const nlohmann::json& command);
  // Tells the hosts that run some of the agents that the run has ended (remote_hosts.h).
  void release_hosts();
  // Over hosts: asks every other host for its links' counters (and its health report, when
  // `health`), and waits for the answers up to `wait`, holding any agent's event that comes
  // meanwhile for next_event (agent_group_figures.cpp). The answers by host: a host that did
  // not answer in time is missing from them. Empty on one box.
  std::map<std::string, HostFigures> host_figures(bool health, std::chrono::milliseconds wait);
  bool has_other_hosts() const { return hosts_ && hosts_->any(); }
  // The other hosts heard from, by name.
  std::vector<std::string> other_hosts() const;
  // One `event` from every node, in node order; throws naming a node that died or failed.
  std::vector<nlohmann::json> gather(const std::string& event);
  // A run that survives node `node`'s death (MLfabric's failover to its replica): its
  // agent's death comes as an event {"event": "died"} of that node instead of an error,
  // once, and gather() no longer waits for it.
  void allow_death(size_t node) { may_die_.push_back(node); }
  // What ended node n's agent when the kernel can say (e.g. "killed by its node's memory
  // limit"); "" when it cannot: a death is then named without a cause.
  void set_death_cause(std::function<std::string(size_t)> cause) { cause_ = std::move(cause); }
  bool dead(size_t node) const {
    return std::find(dead_.begin(), dead_.end(), node) != dead_.end();
  }
  // The next event of any node, as (node, event), or nullopt after `timeout`. Throws
  // naming a node whose agent died (checked at least every 200 ms while waiting) or that
  // reported an error.
  std::optional<std::pair<size_t, nlohmann::json>> next_event(std::chrono::milliseconds timeout);
  // Clocks and iterations above this are not the run's: such an event is dropped as malformed
  // (the run's iterations; unbounded when a run has none).
  void set_clock_bound(uint64_t max_clock) { max_clock_ = max_clock; }
  // Replies that did not decode (agent_reply.h), dropped.
  uint64_t malformed_replies() const { return malformed_replies_; }
  uint64_t malformed_host_reports() const { return malformed_host_reports_; }

 private:
  // The error when some agents have not answered `event` in kAgentTimeout: which, and how
  // many of how many.
  std::runtime_error silent_agents(const std::string& event,
                                   const std::vector<nlohmann::json>& answers) const;
  zmq::socket_t router_;
  void check_alive();
  void check_stall();
  std::chrono::steady_clock::time_point last_check_{}, last_stall_check_{};
  std::function<bool()> stalled_;
  const StopSignals* stop_ = nullptr;
  bool last_stalled_ = false;
  std::optional<std::chrono::steady_clock::time_point> budget_end_;
  std::vector<pid_t> pids_;
  std::vector<size_t> may_die_, dead_;
  std::vector<size_t> deaths_to_report_;
  std::function<std::string(size_t)> cause_;
  std::string describe_death(size_t n) const;
  std::vector<std::string> names_;
  std::string secret_;
  uint64_t max_clock_ = UINT64_MAX;
  uint64_t malformed_replies_ = 0, malformed_host_reports_ = 0, spoofed_messages_ = 0;
  std::optional<RemoteHosts> hosts_;
  uint64_t figures_request_ = 0;
  // Agents' events that came while host_figures() waited: next_event returns them first.
  std::deque<std::pair<size_t, nlohmann::json>> held_;
  std::vector<bool> remote_;
  std::vector<std::string> host_of_;
  std::optional<VanCurve> van_curve_;
  // Declared after router_ and before gate_: the gate (which watches tcp_) goes first.
  std::optional<zmq::socket_t> tcp_;
  std::unique_ptr<CurveGate> gate_;
  zmq::context_t* context_;
  // One message from an admitted host on tcp_: true when it may be handled.
  bool from_its_host(std::vector<zmq::message_t>& frames);
};

}  // namespace testbed
