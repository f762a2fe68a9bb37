#include "controller/training/gaia/gaia_groups.h"

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>

namespace testbed {
namespace {

constexpr double kUnshaped = std::numeric_limits<double>::infinity();

// A path's rate for comparisons: an unshaped path (0) is faster than any shaped one.
double speed(const PathRate& rate, int a, int b) {
  const auto it = rate.find({a, b});
  if (it == rate.end()) return 0;  // no path: the slowest
  return it->second > 0 ? it->second : kUnshaped;
}

// Both directions: a group's pair is as close as its slower direction.
double pair_speed(const PathRate& rate, int a, int b) {
  return std::min(speed(rate, a, b), speed(rate, b, a));
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t from = 0;
  for (;;) {
    const size_t at = s.find(sep, from);
    out.push_back(s.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) return out;
    from = at + 1;
  }
}

}  // namespace

size_t GaiaOverlay::group_of(int node) const {
  for (size_t g = 0; g < groups.size(); ++g)
    if (std::find(groups[g].begin(), groups[g].end(), node) != groups[g].end()) return g;
  throw std::invalid_argument("gaia: node " + std::to_string(node) + " is in no group");
}

std::vector<std::vector<std::string>> parse_gaia_groups(const std::string& spec) {
  std::vector<std::vector<std::string>> groups;
  for (const auto& group : split(spec, '/')) {
    if (group.empty()) throw std::invalid_argument("an empty group in '" + spec + "'");
    groups.push_back({});
    for (const auto& name : split(group, ',')) {
      if (name.empty()) throw std::invalid_argument("an empty name in group '" + group + "'");
      groups.back().push_back(name);
    }
  }
  return groups;
}

std::string check_gaia_groups(const std::string& spec) {
  if (spec == "off" || spec == "auto") return "";
  try {
    parse_gaia_groups(spec);
    return "";
  } catch (const std::invalid_argument& e) {
    return std::string("expected off, auto or groups as A,B/C,D: ") + e.what();
  }
}

std::vector<std::vector<int>> groups_by_rate(const std::vector<int>& data_centers,
                                             const PathRate& rate) {
  double sum = 0;
  size_t shaped = 0;
  for (size_t i = 0; i < data_centers.size(); ++i)
    for (size_t j = i + 1; j < data_centers.size(); ++j) {
      const double s = pair_speed(rate, data_centers[i], data_centers[j]);
      if (s < kUnshaped) {
        sum += s;
        ++shaped;
      }
    }
  // No shaped pair: nothing is distant, one group.
  const double cut = shaped ? sum / static_cast<double>(shaped) : 0;
  std::vector<std::vector<int>> groups;
  for (int dc : data_centers) groups.push_back({dc});
  for (;;) {
    // The two groups whose slowest pair across them is fastest, if at least the cut.
    double best = -1;
    size_t ba = 0, bb = 0;
    for (size_t a = 0; a < groups.size(); ++a)
      for (size_t b = a + 1; b < groups.size(); ++b) {
        double slowest = kUnshaped;
        for (int x : groups[a])
          for (int y : groups[b]) slowest = std::min(slowest, pair_speed(rate, x, y));
        if (slowest >= cut && slowest > best) {
          best = slowest;
          ba = a;
          bb = b;
        }
      }
    if (best < 0) break;
    groups[ba].insert(groups[ba].end(), groups[bb].begin(), groups[bb].end());
    groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(bb));
  }
  for (auto& g : groups) std::sort(g.begin(), g.end());
  std::sort(groups.begin(), groups.end());
  return groups;
}

GaiaOverlay with_hubs(std::vector<std::vector<int>> groups, const PathRate& rate) {
  GaiaOverlay o;
  o.groups = std::move(groups);
  for (size_t a = 0; a < o.groups.size(); ++a)
    for (size_t b = a + 1; b < o.groups.size(); ++b) {
      double best = -1;
      int ha = o.groups[a].front(), hb = o.groups[b].front();
      for (int x : o.groups[a])
        for (int y : o.groups[b])
          if (const double s = pair_speed(rate, x, y); s > best) {  // ties: the first found
            best = s;
            ha = x;
            hb = y;
          }
      o.hub[{a, b}] = ha;
      o.hub[{b, a}] = hb;
    }
  return o;
}

GaiaOverlay gaia_overlay(const std::string& spec, const std::vector<int>& data_centers,
                         const std::vector<std::string>& names, const PathRate& rate) {
  if (spec == "off") return with_hubs({data_centers}, rate);
  if (spec == "auto") return with_hubs(groups_by_rate(data_centers, rate), rate);
  std::vector<std::vector<int>> groups;
  std::set<int> placed;
  for (const auto& members : parse_gaia_groups(spec)) {
    groups.push_back({});
    for (const auto& name : members) {
      const auto it = std::find(names.begin(), names.end(), name);
      const int node = static_cast<int>(it - names.begin());
      if (it == names.end() ||
          std::find(data_centers.begin(), data_centers.end(), node) == data_centers.end())
        throw std::invalid_argument("--gaia-groups: no data center named '" + name + "'");
      if (!placed.insert(node).second)
        throw std::invalid_argument("--gaia-groups: '" + name + "' is in two groups");
      groups.back().push_back(node);
    }
  }
  for (int dc : data_centers)
    if (!placed.count(dc))
      throw std::invalid_argument("--gaia-groups: data center '" + names.at(dc) +
                                  "' is in no group");
  return with_hubs(std::move(groups), rate);
}

std::vector<OverlayLink> overlay_links(const GaiaOverlay& overlay, int self) {
  std::vector<OverlayLink> out;
  const size_t mine = overlay.group_of(self);
  for (int n : overlay.groups[mine])
    if (n != self) out.push_back({n, OverlayRole::kGroup});
  for (size_t g = 0; g < overlay.groups.size(); ++g)
    if (g != mine && overlay.hub.at({mine, g}) == self)
      out.push_back({overlay.hub.at({g, mine}), OverlayRole::kHub});
  return out;
}

}  // namespace testbed
