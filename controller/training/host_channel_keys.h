// The keys of the control port a controller opens to the other hosts of a lab spread over
// hosts (docs/multihost.md#security), for a run (agent_group.h) and a launch
// (launch/hosts_launch.h) alike: this host's key pair from its slice's host.key, checked
// against the placement, and the placement's other hosts' public keys, the only ones
// admitted (curve_gate.h). Without keys in the placement there is no port: a port other
// hosts reach is never open to whoever connects.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

#include "controller/lab/lab_state.h"
#include "controller/training/curve_gate.h"

namespace testbed {

// Keys missing or not this host's: the message says how to make them.
class HostKeysError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct HostChannelKeys {
  CurveKeyPair own;
  AdmittedHosts admitted;
  std::map<std::string, std::string> host_of_node;  // node name -> its host
};

HostChannelKeys host_channel_keys(const LabStore& store, const LabState& state);

}  // namespace testbed
