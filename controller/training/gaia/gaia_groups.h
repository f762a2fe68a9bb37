// Gaia's overlay between data centers (Sec. 4.5), pure: data-center groups, and the hubs
// that carry a group's significant updates to each other group.
//
// "Servers in a data center group send their significant updates only to the other servers
// in the same group. Each group has hub data centers that are in charge of aggregating all
// the significant updates within the group, and sending to the hubs of the other groups.
// Similarly, a hub data center broadcasts the aggregated significant updates from other
// groups to the other data centers within its group. Each data center group can designate
// different hubs for communication with different data center groups."
//
// What each data center then sends to (its overlay links):
//   every other member of its group        its own updates, and those its foreign hub links
//                                          brought (relayed: never forwarded again)
//   for each group it is the hub towards,  its own updates and its group's, aggregated
//   that group's hub towards its own
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace testbed {

// Data centers by node index. `groups` partition them; hub[{a, b}] is the node of group a
// that exchanges updates with group b (whose own end is hub[{b, a}]).
struct GaiaOverlay {
  std::vector<std::vector<int>> groups;
  std::map<std::pair<size_t, size_t>, int> hub;

  size_t group_of(int node) const;
  bool broadcast() const { return groups.size() <= 1; }  // one group: every pair direct
};

// Path rates between data centers: rate(a, b), bits/s of the slowest direction on the
// path a -> b (0 for an unshaped path, which counts as the fastest).
using PathRate = std::map<std::pair<int, int>, double>;

// The groups by hand, from "a,b/c,d,e" (groups apart by '/', members by ','). Throws
// std::invalid_argument naming an empty group or name; names are checked by overlay_by_hand.
std::vector<std::vector<std::string>> parse_gaia_groups(const std::string& spec);
// "" when `spec` is off, auto or a grouping parse_gaia_groups takes, else why not.
std::string check_gaia_groups(const std::string& spec);

// Groups computed from the rates: "geographically-close data centers form a data center
// group" where "the WAN bandwidth between geographically-close regions is much higher than
// that between distant regions". Complete linkage: two groups merge while every pair across
// them is faster than the mean path rate over all pairs, fastest merge first. Close thus
// means faster than the average pair, and a group holds no slow pair. Two data centers are
// one group (their rate is the mean).
std::vector<std::vector<int>> groups_by_rate(const std::vector<int>& data_centers,
                                             const PathRate& rate);

// The hubs for given groups: between groups a and b, the pair of members (one of each)
// with the fastest path, the paper's example ("Virginia as the hub to communicate with the
// data centers in Europe and ... Oregon as the hub to communicate with the data centers in
// Asia"). Ties go to the lower node indexes.
GaiaOverlay with_hubs(std::vector<std::vector<int>> groups, const PathRate& rate);

// The overlay a run uses: `spec` off (one group), auto (groups_by_rate) or by hand (names
// of `names`, indexed by node; every data center in exactly one group). Throws
// std::invalid_argument naming an unknown, missing or repeated data center.
GaiaOverlay gaia_overlay(const std::string& spec, const std::vector<int>& data_centers,
                         const std::vector<std::string>& names, const PathRate& rate);

enum class OverlayRole { kGroup, kHub };
struct OverlayLink {
  int node = 0;
  OverlayRole role = OverlayRole::kGroup;
};
// Where `self` sends data (the header's list above): group members first, then the hubs of
// the groups it is the hub towards.
std::vector<OverlayLink> overlay_links(const GaiaOverlay& overlay, int self);

}  // namespace testbed
