// Routing around failures, in a lab whose profile asks for it (`reroute:`): once a link
// is dead (either direction cut: the routing protocol's hellos, BFD, need both ways) the
// routes that used it are replaced by the shortest paths that avoid it, and put back when
// it comes up, each a convergence delay after the change. A destination left unreachable
// keeps its route and is black-holed at the cut, as with static routes.
//
// Rerouting is a function of which links are dead, not of the history: the routes in
// place are those of the dead set last converged to (routes.json), the new ones those of
// the dead set now (current.json), and only the routes that differ are replaced, in
// batches per namespace. The timeline and the verbs may both converge; a lock keeps them
// in turn and the second finds nothing to do.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "controller/dynamics/link_control.h"
#include "controller/lab/route_book.h"
#include "netns/kernel.h"

namespace testbed {

// The links a routing protocol sees as dead: those with a direction cut.
std::set<size_t> dead_links(const std::vector<LiveDirection>& directions);

struct RerouteResult {
  std::set<size_t> dead;  // converged to
  size_t routes = 0;      // prefixes replaced or withdrawn
  size_t namespaces = 0;  // touched
  double compute_ms = 0;  // the shortest paths and the difference
  double kernel_ms = 0;   // the netlink requests
  bool changed() const { return routes > 0; }
};

class Rerouter {
 public:
  // `plan`: the lab's; its base routes are computed once, here.
  Rerouter(Kernel& kernel, std::string lab_dir, const Plan& plan);
  // The convergence delay, or nullopt when the lab's routes are static.
  std::optional<int64_t> convergence_us() const { return convergence_us_; }
  // Converges to the links dead now (current.json); appends a row to reroutes.csv when
  // any route changed. Throws KernelError naming a refused route.
  RerouteResult converge();

 private:
  Kernel& kernel_;
  std::string lab_dir_;
  Plan plan_;
  std::optional<int64_t> convergence_us_;
  RouteBook base_;
  std::vector<std::string> namespaces_;  // by node index; "" for a node on another host
};

// For a verb that changed links by hand: when the lab reroutes, waits its convergence
// delay and converges (on this host's kernel); nullopt when its routes are static.
std::optional<RerouteResult> converge_by_hand(const Plan& plan, const std::string& lab_dir);

// "routes: converged around 1 dead link, 4 routes replaced in 3 namespaces (kernel 0.4
// ms)\n" for a verb's output; "" for nullopt (static routes).
std::string reroute_summary(const std::optional<RerouteResult>& r);

}  // namespace testbed
