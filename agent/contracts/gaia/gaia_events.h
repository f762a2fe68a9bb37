// What a Gaia data center tells the controller of its mirrors (Sec. 3.3 of the paper and
// docs/faults.md): a mirror fell silent past its bound and is left out of its reads (cut),
// or was heard from again. The agent's GaiaProtocol (agent/protocols/gaia/) writes it, the
// controller's GaiaRun (controller/runs/gaia/) and its check of agents' replies read it;
// a field missing, out of range or unknown is refused with its name. (The data center's
// answer to `digest` is its own contract: replica_digest.h.)
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

namespace testbed {

struct MirrorCut {
  static constexpr const char* kEvent = "mirror_cut";
  size_t node = 0;   // the mirror's data center
  bool cut = false;  // true: left out; false: heard from again
};

nlohmann::json to_json(const MirrorCut& e);
// Throws ContractError naming the field; `node` is below `nodes`, the lab's size.
MirrorCut mirror_cut_from_json(const nlohmann::json& j, size_t nodes);
// The check of a reply whose "event" is mirror_cut; any other is left alone.
void check_gaia_event(const nlohmann::json& j, size_t nodes);

}  // namespace testbed
