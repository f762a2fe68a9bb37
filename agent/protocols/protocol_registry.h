// The protocols an agent can run, by the name the controller's setup command gives: the
// one place that names them all (a new protocol is one entry in protocol_registry.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agent/runtime/protocol.h"

namespace testbed {

const std::vector<std::string>& protocol_names();
// Throws std::invalid_argument for an unknown name (a ProtocolFactory).
std::unique_ptr<Protocol> make_protocol(const std::string& name, AgentLink& link);

}  // namespace testbed
