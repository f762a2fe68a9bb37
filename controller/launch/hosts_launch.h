// The other hosts' part of a launch across hosts (docs/multihost.md#launch), as the
// controller's host runs it: a CURVE ROUTER on --agents-listen that admits only the
// placement's other hosts (training/curve_gate.h), each host's `testbed agents` beating on
// it. A host's first beat is answered with the launch (its ranks), later ones with a beat;
// its ranks' lines are handed on as they come and their outcome kept. A host whose ranks
// failed, or that is lost (silent for kHostSilence after it started, or never heard within
// kFirstContact), stops the job; the controller then tells the others to stop.
//
// Whatever a host sends is checked (host_launch_messages.h): a message from a connection
// whose proven host is not the routing id's, a line of a rank that is not that host's, or
// anything malformed is dropped and counted.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "controller/launch/host_launch_messages.h"
#include "controller/training/curve_gate.h"

namespace testbed {

class HostsLaunch {
 public:
  using Clock = std::chrono::steady_clock;
  struct Setting {
    std::string endpoint;  // tcp://ADDR:PORT
    CurveKeyPair own;
    AdmittedHosts admitted;
    std::map<std::string, std::vector<int>> ranks_of_host;  // every other host with ranks
    LaunchCommand command;                                  // `ranks` set per host here
    int world_size = 0;
  };
  // A line of a rank on `host`, checked.
  using OnLine = std::function<void(const std::string& host, const RankLine&)>;

  HostsLaunch(zmq::context_t& context, Setting setting, OnLine on_line);
  ~HostsLaunch();
  HostsLaunch(const HostsLaunch&) = delete;
  HostsLaunch& operator=(const HostsLaunch&) = delete;

  // Reads the port for up to `wait`, answers, and checks who is lost.
  void poll(std::chrono::milliseconds wait);
  bool all_started() const;  // every host has its command
  bool all_done() const;     // every host told how its ranks ended, or is lost
  // The hosts not heard from yet.
  std::vector<std::string> awaited() const;
  // Why the job is to stop because of another host ("" while none is): a host's ranks
  // failed (the first such host's failed rank is failed_rank()), or a host is lost.
  const std::string& failure() const { return failure_; }
  const std::string& failed_host() const { return failed_host_; }
  int failed_rank() const { return failed_rank_; }
  // Tells every started host that has not ended its ranks to stop them (once).
  void stop();
  // Tells every host heard from that the job is over.
  void quit();

  const std::map<std::string, HostRanksDone>& outcomes() const { return done_; }
  // Hosts lost before they told how their ranks ended, with why.
  const std::map<std::string, std::string>& lost() const { return lost_; }
  uint64_t malformed() const { return malformed_; }
  uint64_t dropped_lines() const;
  uint64_t refused_connections() const { return gate_->refused(); }
  std::vector<std::string> take_refusals() { return gate_->take_refusals(); }

 private:
  struct Host {
    std::optional<Clock::time_point> heard;
    bool started = false, stopped = false;
    uint64_t dropped = 0;
  };
  void hear(const std::string& host, const nlohmann::json& message);
  void send(const std::string& host, const nlohmann::json& message);
  Setting setting_;
  OnLine on_line_;
  zmq::socket_t router_;
  std::unique_ptr<CurveGate> gate_;
  Clock::time_point opened_ = Clock::now();
  std::map<std::string, Host> hosts_;
  std::map<std::string, HostRanksDone> done_;
  std::map<std::string, std::string> lost_;
  std::string failure_, failed_host_;
  int failed_rank_ = -1;
  uint64_t malformed_ = 0;
};

}  // namespace testbed
