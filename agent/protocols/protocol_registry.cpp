#include "agent/protocols/protocol_registry.h"

#include <map>
#include <stdexcept>
#include <vector>

#include "agent/protocols/allreduce/round_protocol.h"
#include "agent/protocols/allreduce/sum_each_clock.h"
#include "agent/protocols/apsp/source_routes_policy.h"
#include "agent/protocols/diloco/diloco_rounds.h"
#include "agent/protocols/drps/disk_store_policy.h"
#include "agent/protocols/drps/wsp_policy.h"
#include "agent/protocols/gaia/gaia_protocol.h"
#include "agent/protocols/mlfabric/mlfabric_policy.h"
#include "agent/protocols/ps/ps_protocol.h"
#include "agent/protocols/ps_elastic/elastic_worker_policy.h"
#include "agent/protocols/streaming_diloco/streaming_rounds.h"
#include "agent/protocols/tree/tree_protocol.h"

namespace testbed {
namespace {

using Factory = std::unique_ptr<Protocol> (*)(AgentLink&);

// The parameter server's policies (ps/ps_policy.h): a system's part of the server, each
// made when a run's setup asks for it. A new one is a line here.
const std::vector<PsPolicyMaker>& ps_policies() {
  static const std::vector<PsPolicyMaker> kPolicies = {
      make_source_routes_policy,   // APSP: pushes and pulls along the placement's paths
      make_disk_store_policy,      // DRPS: the shard's values on disk
      make_wsp_policy,             // DRPS: WSP's master
      make_mlfabric_policy,        // MLfabric: scheduled updates, replica, distribution
      make_elastic_worker_policy,  // an asynchronous run's workers that leave and join
  };
  return kPolicies;
}

// A system of the all-reduce core (allreduce/round_hooks.h), made with its hooks.
template <typename Hooks>
std::unique_ptr<Protocol> rounds(AgentLink& link) {
  return std::make_unique<RoundProtocol>(link, std::make_unique<Hooks>(), "all-reduce");
}

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> kProtocols = {
      {"tree",
       [](AgentLink& l) -> std::unique_ptr<Protocol> { return std::make_unique<TreeProtocol>(l); }},
      {"ps",
       [](AgentLink& l) -> std::unique_ptr<Protocol> {
         return std::make_unique<PsProtocol>(l, ps_policies());
       }},
      {"gaia",
       [](AgentLink& l) -> std::unique_ptr<Protocol> { return std::make_unique<GaiaProtocol>(l); }},
      // Synchronous training by all-reduce: the round core with each system's hooks.
      {"allreduce", rounds<SumEachClock>},
      {"diloco", rounds<DilocoRounds>},
      {"streaming-diloco", rounds<StreamingRounds>},
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
