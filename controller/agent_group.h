// The controller's side of the agents of a run: a ROUTER on the lab's ipc:// socket, one
// DEALER per agent (its routing id is its node index). Commands go out as JSON, events come
// back; an agent that dies or reports an error is named.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>
#include <zmq.hpp>

namespace testbed {

class AgentGroup {
 public:
  AgentGroup(zmq::context_t& context, const std::string& socket_path,
             std::vector<std::string> names);
  // The agents' pids, once started, so that gather() can tell a dead one from a slow one.
  void set_pids(std::vector<pid_t> pids) { pids_ = std::move(pids); }

  void send(size_t node, const nlohmann::json& command);
  void broadcast(const nlohmann::json& command);
  // One `event` from every node, in node order; throws naming a node that died or failed.
  std::vector<nlohmann::json> gather(const std::string& event);

 private:
  zmq::socket_t router_;
  std::vector<pid_t> pids_;
  std::vector<std::string> names_;
};

}  // namespace testbed
