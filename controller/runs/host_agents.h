// `testbed agents`: this host's part of a run or a launch controlled from another host of a
// lab spread over hosts (docs/multihost.md). The controller's answer to its first beat says
// which: a launch's ranks run as launch/host_ranks.h says; for a run, what follows. It starts one testbed-agent per node of
// this host's slice, each in its node's namespace with its control channel to the
// controller made in this host's network (control_channel.h), records them as the lab's
// processes, and watches them by pid, reporting to the controller under the routing id
// "host/HOST" (remote_hosts.h): a beat every second, and any agent that dies, by node.
// It returns when every agent has ended: 0 when all quit as told. Told by the controller
// that the run has ended, it gives them kQuitGrace, as the controller gives its own, then
// ends the rest, naming them. When the controller is not heard from for kHostSilence (or
// never, within kFirstContact), it ends its agents by their recorded pids and fails,
// naming the controller's address.
//
// The channel is CURVE (docs/multihost.md#security): this host's key pair from its slice
// (host.key), and the controller's host key from the placement, pinned. No agent starts
// before the server has proven it holds that key; a server that fails the handshake (another
// process bound to the port first, a host with the wrong key) is named and nothing runs.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "controller/lab/lab_state.h"
#include "controller/training/remote_hosts.h"

namespace testbed {

// `control`: tcp://ADDR:PORT, the controller's --agents-listen; `controller_host` the
// placement's host the controller runs on ("": the host whose underlay address `control`
// names). Throws std::runtime_error when the lab is not a slice of a lab spread over hosts,
// its placement has no keys, or the controller's host cannot be told.
int run_host_agents(LabStore& store, const std::string& lab, const std::string& control,
                    const std::string& controller_host, std::ostream& progress);

// The controller's host: `given`, or the host whose underlay address is `control`'s; throws
// std::runtime_error naming what is missing. Pure.
std::string controller_host_of(const nlohmann::json& placement, const std::string& control,
                               const std::string& given);

}  // namespace testbed
