// The hosts file every node of a lab gets (netns/node_identity.h): each node's name
// resolves to its address, so programs that find their peers by name, or their own
// address from gethostname() (gloo, NCCL, MPI), work unmodified. Pure; no root needed.
#pragma once

#include <string>

#include "controller/lab/plan.h"

namespace testbed {

// The same text for every node: localhost first, as a distribution's /etc/hosts has it,
// then one line per node in the profile's order, "ADDRESS NAME NAME.LAB".
std::string node_hosts_text(const Plan& plan);

}  // namespace testbed
