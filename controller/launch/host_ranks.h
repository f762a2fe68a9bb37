// This host's ranks of a launch across hosts (docs/multihost.md#launch), run by `testbed
// agents` when the controller answers its first beat with a launch (host_launch_messages.h).
// The ranks' plans are made here, from this host's copy of the whole lab's plan and the
// controller's command, with plan_launch: the same ranks, commands and environment as on one
// box, the files under this host's lab directory. They run as `testbed launch` runs them
// (JobRunner, recorded as the lab's processes); their output and metric lines go to the
// controller as they come, and how they ended when they have.
//
// Stopping: the controller's "stop" (another host's rank failed, Ctrl-C, --max-seconds), a
// signal here, or the controller lost (silent for kHostSilence, or refused on reconnecting)
// stop the ranks as a failing rank does on one box. Should this process die outright, each
// rank's supervisor ends its group (rank_supervisor.h).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "controller/lab/lab_state.h"
#include "controller/launch/host_launch_messages.h"

namespace testbed {

// The control channel as this host's side of a launch uses it; the real one is a CURVE
// DEALER (runs/host_agents.cpp), which beats on its own while it is read.
class ControllerChannel {
 public:
  virtual ~ControllerChannel() = default;
  virtual void send(const nlohmann::json& message) = 0;
  // The controller's next message within `wait`; null when none came.
  virtual nlohmann::json receive(std::chrono::milliseconds wait) = 0;
  // Why the controller is lost, or "" while it is not.
  virtual std::string lost() = 0;
};

struct HostRanksSetting {
  std::string lab;
  Plan whole_plan;
  std::set<std::string> here;           // this host's namespaces
  std::vector<std::string> supervisor;  // JobRunOptions::supervisor: `testbed _rank --`
  // This host's link directions' transmitted bytes now (link_metrics.h); null: not read.
  std::function<std::map<std::string, uint64_t>()> wan_counters;
  // Starts watching this host's links' health and returns what stops it and gives the
  // report (health_monitor.h); null: not watched.
  std::function<std::function<HealthReport()>()> watch_health;
};

// Runs the ranks `command` gives this host's nodes and returns when they have ended and the
// controller has been told: 0 when they completed.
int run_host_ranks(LabStore& store, const HostRanksSetting& setting, const LaunchCommand& command,
                   ControllerChannel& channel, std::ostream& progress,
                   const std::atomic<int>& signal);

}  // namespace testbed
