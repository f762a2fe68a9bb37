// `testbed agents`: the agents of this host's nodes, for a run controlled from another host
// of a lab spread over hosts (docs/multihost.md). It starts one testbed-agent per node of
// this host's slice, each in its node's namespace with its control channel to the
// controller made in this host's network (control_channel.h), records them as the lab's
// processes, and watches them by pid, reporting to the controller under the routing id
// "host/HOST" (remote_hosts.h): a beat every second, and any agent that dies, by node.
// It returns when every agent has ended: 0 when all quit as told. Told by the controller
// that the run has ended, it gives them kQuitGrace, as the controller gives its own, then
// ends the rest, naming them. When the controller is not heard from for kHostSilence (or
// never, within kFirstContact), it ends its agents by their recorded pids and fails,
// naming the controller's address.
#pragma once

#include <chrono>
#include <ostream>
#include <string>

#include "controller/lab/lab_state.h"

namespace testbed {

// How long to wait for a controller that has not answered yet: as long as a controller
// waits for its agents' first words (agent_group.cpp's kAgentTimeout), so that either may
// be started first.
constexpr auto kFirstContact = std::chrono::seconds(300);

// `control`: tcp://ADDR:PORT, the controller's --agents-listen. Throws std::runtime_error
// when the lab is not a slice of a lab spread over hosts.
int run_host_agents(LabStore& store, const std::string& lab, const std::string& control,
                    std::ostream& progress);

}  // namespace testbed
