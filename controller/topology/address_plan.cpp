#include "controller/topology/address_plan.h"

namespace testbed {
namespace {

constexpr uint64_t kLinkSubnetSize = 4;  // a /30: network, two endpoints, broadcast

bool fits(int length, size_t nodes, size_t links) {
  if (length > 30) return false;
  const uint64_t half = (uint64_t{1} << (32 - length)) / 2;
  // Node addresses skip the pool's network address, hence "+ 1".
  return nodes + 1 <= half && links * kLinkSubnetSize <= half;
}

}  // namespace

Ipv4Address node_address(const Ipv4Prefix& pool, size_t index) {
  return Ipv4Address{pool.network().value + 1 + static_cast<uint32_t>(index)};
}

Ipv4Prefix link_subnet(const Ipv4Prefix& pool, size_t index) {
  const uint32_t half = static_cast<uint32_t>(pool.size() / 2);
  return Ipv4Prefix{
      Ipv4Address{pool.network().value + half + static_cast<uint32_t>(index * kLinkSubnetSize)},
      30};
}

std::string address_pool_shortfall(const Topology& topo) {
  const size_t nodes = topo.nodes.size(), links = topo.links.size();
  if (fits(topo.pool.length, nodes, links)) return "";
  int needed = topo.pool.length;
  while (needed > 0 && !fits(needed, nodes, links)) --needed;
  return "pool: " + topo.pool.str() + " is too small for " + std::to_string(nodes) + " nodes and " +
         std::to_string(links) +
         " links (nodes take the lower half, one address each; links the upper half, a /30 "
         "each); use a /" +
         std::to_string(needed) + " or larger";
}

}  // namespace testbed
