#include "controller/training/host_channel_keys.h"

namespace testbed {

HostChannelKeys host_channel_keys(const LabStore& store, const LabState& state) {
  const nlohmann::json& placement = state.placement;
  // Looked up by pointer: a state.json without the field (an older slice's) must not be read
  // by a const operator[], which asserts on a missing key.
  const nlohmann::json::json_pointer own_key("/hosts/" + state.host + "/key");
  if (!placement.is_object() || !placement.contains(own_key) || !placement.at(own_key).is_string())
    throw HostKeysError("lab " + state.lab +
                        "'s placement has no keys: a run across hosts is "
                        "authenticated with CURVE keys. Make them with `testbed keys PLACEMENT "
                        "--out DIR` and bring the slices up with DIR/placement.yaml "
                        "(docs/multihost.md#security)");
  HostChannelKeys keys;
  keys.own = read_curve_key_file(store.host_key_path(state.lab));
  if (keys.own.public_key != placement.at(own_key))
    throw HostKeysError(store.host_key_path(state.lab) + " is not host " + state.host +
                        "'s key in the placement");
  for (const auto& [host, entry] : placement["hosts"].items()) {
    for (const auto& n : entry.value("nodes", nlohmann::json::array()))
      keys.host_of_node[n.get<std::string>()] = host;
    if (entry.contains("address")) keys.admitted.host_of_address[entry["address"]] = host;
    if (host != state.host && !entry.value("key", "").empty())
      keys.admitted.host_of_key[entry.value("key", "")] = host;
  }
  return keys;
}

}  // namespace testbed
