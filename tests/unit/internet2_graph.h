// The Internet2 profile's configured rates as a throughput graph, for strategy tests.
#pragma once

#include "agent/protocols/tree/sync_policy.h"
#include "controller/options/workload_settings.h"
#include "tests/support/source_paths.h"

namespace testbed {

inline ThroughputGraph internet2_graph() {
  const Topology t = parse_profile_file(TESTBED_PROFILES_DIR + "/internet2.yaml");
  ThroughputGraph g;
  g.nodes = static_cast<int>(t.nodes.size());
  g.mbit.assign(t.nodes.size(), std::vector<double>(t.nodes.size(), 0));
  for (const Link& l : t.links) {
    g.mbit[l.a][l.b] = static_cast<double>(l.a2b.rate.bits_per_s) / 1e6;
    g.mbit[l.b][l.a] = static_cast<double>(l.b2a.rate.bits_per_s) / 1e6;
  }
  return g;
}

}  // namespace testbed
