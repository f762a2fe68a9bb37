// Which host each node of a lab lives on, when one lab is spread over several machines
// (docs/multihost.md). Given in a file or computed from the plan; pure data either way.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controller/lab/plan.h"

namespace testbed {

// A host's name: a DNS label (RFC 1123) of at most 63 characters, lower case, as Kubernetes
// node names and selectors require; placements and the control channel's host reports use it.
bool valid_host_name(const std::string& name);

// A host's own network, over which the testbed makes VXLANs to the other hosts.
struct Underlay {
  Ipv4Address address;
  std::string dev;  // the interface toward the other hosts; empty: as routing decides
};

struct HostPlacement {
  std::vector<std::string> hosts;              // in the order they were given or made
  std::map<std::string, std::string> host_of;  // node name -> host
  std::string source;                          // "file PATH" or how it was computed
  // Given for every host or for none. Given, the testbed makes the links between hosts
  // itself as VXLANs (plain hosts); not, someone else does (meshnet, a CNI).
  std::map<std::string, Underlay> underlay;
  // IANA's VXLAN port unless the file says otherwise (to stay clear of a cluster's own).
  uint16_t vxlan_port = 4789;
  // Each host's CURVE public key (Z85), given for every host or for none: with them a run's
  // control channel and van across hosts are authenticated and encrypted (`testbed keys`
  // makes them, docs/multihost.md#security); `train --agents-listen` needs them.
  std::map<std::string, std::string> keys;

  std::vector<std::string> nodes_on(const std::string& host) const;
};

// What one host does for the lab, in bits per second of the rates it handles: the work a
// host's CPU spends on the lab grows with the traffic through its shapers and delay lines.
struct HostLoad {
  std::string host;
  size_t nodes = 0;
  uint64_t shaped_bits_per_s = 0;   // TBF on the links its nodes send on
  uint64_t delayed_bits_per_s = 0;  // delay lines on the impaired links its nodes receive
  size_t links_to_other_hosts = 0;  // each end counted at its own host
  uint64_t cross_bits_per_s = 0;    // both directions of those links
};

// The rate a direction can carry at most: its configured rate, or its schedule's peak.
uint64_t direction_peak_bits_per_s(const PlannedDirection& d);

// Spreads the plan's nodes over `host_count` hosts named host1..hostN: links taken from the
// heaviest down are kept inside one host while that host's load stays within a margin of an
// even share, then groups go to the least loaded host. Throws std::invalid_argument when
// there are more hosts than nodes.
HostPlacement compute_host_placement(const Plan& plan, size_t host_count);

// Reads `hosts: {NAME: [node, ...], ...}`; every node of the plan on exactly one host.
// Throws ValidationError naming file, line and field.
HostPlacement parse_host_placement_text(const std::string& text, const std::string& file,
                                        const Plan& plan);
HostPlacement parse_host_placement_file(const std::string& path, const Plan& plan);

// What a slice keeps of its placement (state.json's "placement"): every host's nodes, keys
// and underlay address, so that `train` and `agents` know who may speak for which node.
nlohmann::json placement_record(const HostPlacement& placement);

std::vector<HostLoad> host_loads(const Plan& plan, const HostPlacement& placement);
nlohmann::json host_placement_to_json(const Plan& plan, const HostPlacement& placement);

}  // namespace testbed
