// How the agent's one event loop (node_runtime.h) hands work to a synchronization
// protocol: tree aggregation, the parameter server, and whatever comes next. A protocol is
// chosen by name at setup from the registry (protocol_registry.cpp); adding one is a new
// class and one registry entry, never a change to the loop.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agent/transport/van.h"

namespace testbed {

// What a protocol may use of its agent: the controller's control socket and the van.
class AgentLink {
 public:
  virtual ~AgentLink() = default;
  virtual void reply(const nlohmann::json& event) = 0;
  virtual Van& van() = 0;
  virtual int self() const = 0;
};

class Protocol {
 public:
  virtual ~Protocol() = default;
  // The setup command, once the van exists; answers "ready" through the link.
  virtual void setup(const nlohmann::json& cmd) = 0;
  // Every other command but quit; throws std::runtime_error for one it does not know.
  virtual void command(const std::string& verb, const nlohmann::json& cmd) = 0;
  // A message from the van.
  virtual void message(Received r) = 0;
  // After every round of messages and every wake-up: timers and stall checks.
  virtual void tick() = 0;
  // How long the loop may sleep; negative for as long as nothing arrives.
  virtual std::chrono::milliseconds timeout() const = 0;
};

// A protocol by the name a setup command gives; throws std::invalid_argument for an
// unknown one. The registry (agent/protocols/protocol_registry.h), above every protocol,
// is the one the agent's main gives the loop: the loop never names a protocol.
using ProtocolFactory =
    std::function<std::unique_ptr<Protocol>(const std::string& name, AgentLink& link)>;

}  // namespace testbed
