#include "agent/runtime/node_runtime.h"

#include <stdexcept>
#include <utility>

#include "agent/contracts/node_replies.h"
#include "agent/contracts/van_setup.h"
#include "agent/runtime/setup_guard.h"
#include "agent/transport/curve_keys.h"

namespace testbed {
namespace {

// At most this many network messages are handled before the control socket is looked at
// again, so a flood of chunks cannot delay a command (quit) indefinitely.
constexpr int kMessagesPerRound = 64;

}  // namespace

NodeRuntime::NodeRuntime(zmq::context_t& context, zmq::socket_t control, int self,
                         ProtocolFactory make, std::string lab_dir)
    : context_(context),
      make_protocol_(std::move(make)),
      self_(self),
      lab_dir_(std::move(lab_dir)),
      control_(std::move(control)) {}

void NodeRuntime::reply(const nlohmann::json& j) {
  control_.send(zmq::buffer(j.dump()), zmq::send_flags::none);
}

void NodeRuntime::handle_command(const nlohmann::json& cmd) {
  const std::string verb = cmd.at("cmd");
  if (verb == "setup") {
    guard_setup(cmd, self_, lab_dir_);
    // The run's secret (AgentGroup's), or over hosts its CURVE keys: only the run's own
    // nodes are heard; and no frame longer than the run's largest message is read.
    const FieldReader r(cmd, "setup");
    VanSetup v = van_setup_from(r);
    std::optional<VanCurve> curve;
    if (!v.van_curve.is_null()) curve = van_curve_from_json(v.van_curve);
    van_ = std::make_unique<Van>(context_, self_, std::move(v.endpoints), v.secret, v.max_message,
                                 std::move(curve));
    protocol_ = make_protocol_(r.required<std::string>("protocol"), *this);
    protocol_->setup(cmd);
    return;
  }
  if (!protocol_) throw std::logic_error(verb + " before setup");
  protocol_->command(verb, cmd);
}

int NodeRuntime::run() {
  reply(to_json(NodeHello{}));
  for (;;) {
    zmq::pollitem_t items[2] = {{control_.handle(), 0, ZMQ_POLLIN, 0},
                                {van_ ? van_->inbox().handle() : nullptr, 0, ZMQ_POLLIN, 0}};
    zmq::poll(items, van_ ? 2 : 1,
              protocol_ ? protocol_->timeout() : std::chrono::milliseconds(-1));
    try {
      if (items[0].revents & ZMQ_POLLIN) {
        zmq::message_t msg;
        if (control_.recv(msg, zmq::recv_flags::dontwait)) {
          const auto cmd = nlohmann::json::parse(msg.to_string());
          if (cmd.at("cmd") == "quit") return 0;
          handle_command(cmd);
        }
      }
      for (int i = 0; van_ && protocol_ && i < kMessagesPerRound; ++i) {
        auto r = van_->receive(std::chrono::milliseconds(0));
        if (!r) break;
        protocol_->message(std::move(*r));
      }
      if (protocol_) protocol_->tick();
    } catch (const std::exception& e) {
      reply(to_json(NodeError{e.what()}));
    }
  }
}

}  // namespace testbed
