#include "agent/protocols/protocol_registry.h"

#include <map>
#include <stdexcept>

#include "agent/protocols/allreduce/allreduce_protocol.h"
#include "agent/protocols/diloco/diloco_protocol.h"
#include "agent/protocols/gaia/gaia_protocol.h"
#include "agent/protocols/ps/ps_protocol.h"
#include "agent/protocols/tree/tree_protocol.h"

namespace testbed {
namespace {

using Factory = std::unique_ptr<Protocol> (*)(AgentLink&);

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> kProtocols = {
      {"tree",
       [](AgentLink& l) -> std::unique_ptr<Protocol> { return std::make_unique<TreeProtocol>(l); }},
      {"ps",
       [](AgentLink& l) -> std::unique_ptr<Protocol> { return std::make_unique<PsProtocol>(l); }},
      {"gaia",
       [](AgentLink& l) -> std::unique_ptr<Protocol> { return std::make_unique<GaiaProtocol>(l); }},
      {"allreduce",
       [](AgentLink& l) -> std::unique_ptr<Protocol> {
         return std::make_unique<AllReduceProtocol>(l);
       }},
      {"diloco",
       [](AgentLink& l) -> std::unique_ptr<Protocol> {
         return std::make_unique<DilocoProtocol>(l);
       }},
  };
  return kProtocols;
}

}  // namespace

const std::vector<std::string>& protocol_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> v;
    for (const auto& [name, f] : factories()) v.push_back(name);
    return v;
  }();
  return kNames;
}

std::unique_ptr<Protocol> make_protocol(const std::string& name, AgentLink& link) {
  const auto it = factories().find(name);
  if (it == factories().end()) throw std::invalid_argument("unknown protocol '" + name + "'");
  return it->second(link);
}

}  // namespace testbed
