// One data center's node: the controller's commands in over its control channel
// (control_channel.h), which never crosses the shaped links; model traffic over TCP across them
// (the van).
//
// One event loop serves both, so a node keeps serving other nodes (forwarding chunks on
// auxiliary routes, answering as a parameter-server shard) while it computes, and between
// iterations. What it does with them is its protocol's business (protocol.h). Commands
// are JSON; the loop itself knows three:
//   (start)                                      -> hello
//   setup {protocol?, endpoints, ...}            -> the protocol's setup answers (ready)
//   quit                                         -> (the loop ends)
// and hands every other one to the protocol. A command that fails is answered with
// {event: error, what}.
#pragma once

#include <nlohmann/json.hpp>
#include <zmq.hpp>

#include <memory>
#include <string>

#include "agent/runtime/protocol.h"
#include "agent/transport/van.h"

namespace testbed {

class NodeRuntime : public AgentLink {
 public:
  // `context` serves the van (the node's model traffic); `control` is connected already;
  // `make` builds the protocol a setup names. `lab_dir` confines the paths a setup names
  // (setup_guard.h); empty, they are not confined.
  NodeRuntime(zmq::context_t& context, zmq::socket_t control, int self, ProtocolFactory make,
              std::string lab_dir = "");
  int run();  // until quit

  void reply(const nlohmann::json& j) override;
  Van& van() override { return *van_; }
  int self() const override { return self_; }

 private:
  void handle_command(const nlohmann::json& cmd);

  zmq::context_t& context_;
  ProtocolFactory make_protocol_;
  int self_;
  std::string lab_dir_;
  zmq::socket_t control_;
  std::unique_ptr<Van> van_;
  std::unique_ptr<Protocol> protocol_;
};

}  // namespace testbed
