// The controller's side of the agents of a run: a ROUTER on the lab's ipc:// socket, one
// DEALER per agent (its routing id is its node index). Commands go out as JSON, events come
// back; an agent that dies or reports an error is named.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include <zmq.hpp>

namespace testbed {

class AgentGroup {
 public:
  AgentGroup(zmq::context_t& context, const std::string& socket_path,
             std::vector<std::string> names);
  // The run's secret, new for every group: every setup carries it, and an agent hears only
  // connections that present it (van.h), so nothing else in a node can join the run.
  const std::string& secret() const { return secret_; }
  // The agents' pids, once started, so that gather() can tell a dead one from a slow one.
  void set_pids(std::vector<pid_t> pids) { pids_ = std::move(pids); }

  void send(size_t node, const nlohmann::json& command);
  void broadcast(const nlohmann::json& command);
  // One `event` from every node, in node order; throws naming a node that died or failed.
  std::vector<nlohmann::json> gather(const std::string& event);
  // The next event of any node, as (node, event), or nullopt after `timeout`. Throws
  // naming a node whose agent died (checked at least every 200 ms while waiting) or that
  // reported an error.
  std::optional<std::pair<size_t, nlohmann::json>> next_event(std::chrono::milliseconds timeout);

 private:
  zmq::socket_t router_;
  void check_alive();
  std::chrono::steady_clock::time_point last_check_{};
  std::vector<pid_t> pids_;
  std::vector<std::string> names_;
  std::string secret_;
};

}  // namespace testbed
