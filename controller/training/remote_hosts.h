// The hosts that run some of a run's agents, as the controller hears of them (a lab spread
// over hosts, docs/multihost.md). There the controller cannot watch an agent by its pid:
// each such host runs `testbed agents`, which starts its nodes' agents, watches them by pid
// and reports over the control channel under the routing id "host/NAME":
//   {"event": "beat", "nodes": [INDEX, ...]}     every second, answered with {"cmd": "beat"}
//   {"event": "died", "node": INDEX, "how": "exit status 1"}
//   {"event": "figures", ...}  its links' counters and health, when asked (host_figures.h)
// and is told {"cmd": "quit"} when the run ends, so that it gives its agents the time the
// controller gives its own to quit (kQuitGrace) and then ends them.
// A died node ends the run naming it; so does a host silent for kHostSilence (its launcher
// died, or the network between the hosts did). Pure: the time is passed in.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "controller/training/host_figures.h"

namespace testbed {

// A launcher beats every second; a host heard from by neither beat nor agent for this long
// is lost. Thirty beats: a loaded two-core machine can hold a process off the CPU for
// seconds, never for thirty, and a lost host is still named within half a minute.
constexpr auto kHostSilence = std::chrono::seconds(30);
// How often a launcher beats: well within kHostSilence, and cheap (one small frame).
constexpr auto kHostBeat = std::chrono::seconds(1);

// How long a host waits for a controller that has not answered yet, and a controller for a
// host never heard from: as long as a controller waits for its agents' first words
// (agent_group.cpp's kAgentTimeout), so that either may be started first.
constexpr auto kFirstContact = std::chrono::seconds(300);

// How long an agent is given to quit when told before it is killed, here and on other hosts:
// an agent quits in milliseconds; two seconds leave room for a loaded machine.
constexpr auto kQuitGrace = std::chrono::seconds(2);

class RemoteHosts {
 public:
  using Clock = std::chrono::steady_clock;
  // `remote[n]`: node n's agent runs on another host; `host_of[n]`: which host, as the
  // placement says. Only that host may speak for node n: a beat that claims a node the
  // placement gives another host is dropped, even before that host has beaten.
  RemoteHosts(std::vector<std::string> names, std::vector<bool> remote,
              std::vector<std::string> host_of);

  static bool is_host_id(const std::string& routing_id) {
    return routing_id.rfind("host/", 0) == 0;
  }
  // One frame from a launcher. True when it was well-formed (a beat is then to be answered);
  // false when it is to be dropped and counted: a bad host name, not JSON, an unknown event,
  // a node that is not remote or that the placement gives another host. Throws std::runtime_error
  // naming the node of a "died" report.
  bool hear(const std::string& routing_id, const std::string& payload, Clock::time_point now);
  // Throws std::runtime_error naming a host silent for kHostSilence and its nodes.
  void check(Clock::time_point now) const;
  // The remote nodes no host has claimed yet, by name: whose `testbed agents` is awaited.
  std::vector<std::string> unclaimed() const;
  // The routing ids of the hosts heard from ("host/NAME"), to tell them the run ended.
  std::vector<std::string> routing_ids() const;
  bool any() const;
  // Every host's latest answer to a figures request, by host name.
  const std::map<std::string, HostFigures>& figures() const { return figures_; }

 private:
  struct Host {
    Clock::time_point last_heard;
    std::vector<size_t> nodes;
  };
  std::string nodes_of(const Host& h) const;
  std::vector<std::string> names_;
  std::vector<bool> remote_;
  std::vector<std::string> host_of_;     // per node: the host the placement gives it
  std::vector<std::string> claimed_by_;  // per node: the host that runs it, or ""
  std::map<std::string, Host> hosts_;
  std::map<std::string, HostFigures> figures_;
};

}  // namespace testbed
