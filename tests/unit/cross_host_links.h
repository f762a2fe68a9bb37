// What "someone else" (kubelet and meshnet, or a VXLAN and a CNI) makes before a slice is
// applied: every node's namespace and the cross-host ends of links, in a fake kernel.
#pragma once

#include "controller/hosts/host_placement.h"
#include "controller/lab/plan.h"
#include "netns/fake_kernel.h"

namespace testbed {

inline void make_cross_host_links(FakeKernel& kernel, const Plan& plan, const HostPlacement& p) {
  for (const auto& n : plan.nodes) kernel.create_namespace(n.ns);
  for (const auto& l : plan.links) {
    if (p.host_of.at(l.a) == p.host_of.at(l.b)) continue;
    kernel.create_veth(l.a2b.ns, l.if_a, l.b2a.ns, l.if_b);
  }
}

}  // namespace testbed
