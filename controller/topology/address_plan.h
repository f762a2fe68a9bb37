// How a lab's address pool is divided: the lower half holds one /32 per node (on the node's
// loopback, its stable identity), the upper half one /30 per link. Halving keeps node
// addresses readable (198.18.0.1, .2, ...) and link subnets out of their way (198.19.x.y).
#pragma once

#include <string>

#include "controller/topology/topology.h"
#include "netns/ipv4.h"

namespace testbed {

// The /32 address of node `index` (0-based).
Ipv4Address node_address(const Ipv4Prefix& pool, size_t index);

// The /30 subnet of link `index`; its endpoint a gets .1, b gets .2 of the subnet.
Ipv4Prefix link_subnet(const Ipv4Prefix& pool, size_t index);

// Empty when the pool is large enough, else a message that says which size would do.
std::string address_pool_shortfall(const Topology& topo);

}  // namespace testbed
