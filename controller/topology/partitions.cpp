#include "controller/topology/partitions.h"

#include <algorithm>
#include <map>
#include <set>

#include "controller/topology/units.h"

namespace testbed {
namespace {

struct Interval {
  int64_t from_us, to_us;  // [from, to); to_us is INT64_MAX when it never comes up
};

// The down intervals a steps schedule sets (state: down ... state: up).
std::vector<Interval> scheduled_downs(const Schedule& s) {
  std::vector<Interval> out;
  if (s.kind != Schedule::Kind::kSteps) return out;
  for (const auto& c : s.changes) {
    if (!c.down) continue;
    if (*c.down) out.push_back({c.at_us, INT64_MAX});
    if (!*c.down && !out.empty()) out.back().to_us = c.at_us;
  }
  return out;
}

// Merged, in order: overlapping or touching intervals become one.
std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(),
            [](const Interval& a, const Interval& b) { return a.from_us < b.from_us; });
  std::vector<Interval> out;
  for (const auto& i : v) {
    if (!out.empty() && i.from_us <= out.back().to_us) {
      out.back().to_us = std::max(out.back().to_us, i.to_us);
    } else {
      out.push_back(i);
    }
  }
  return out;
}

std::string seconds(int64_t us) {
  return format_time(Duration{us});
}

}  // namespace

void parse_partitions(const YAML::Node& node, Topology& topo, const YamlErrorSink& error) {
  if (!node.IsSequence()) {
    error(node, "partitions: expected a list of {nodes, at, heal}");
    return;
  }
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < topo.nodes.size(); ++i) index[topo.nodes[i].name] = i;
  bool ok = true;
  const auto fail = [&](const YAML::Node& at, const std::string& message) {
    error(at, message);
    ok = false;
  };
  std::vector<Topology::Partition> parts;
  for (const YAML::Node& p : node) {
    if (!p.IsMap() || !p["nodes"] || !p["at"] || !p["heal"]) {
      fail(p, "a partition needs nodes, at and heal");
      continue;
    }
    for (auto it = p.begin(); it != p.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (key != "nodes" && key != "at" && key != "heal")
        fail(it->first, "unknown key '" + key + "' in a partition (nodes, at, heal)");
    }
    Topology::Partition part;
    part.pos = {p.Mark().line + 1, p.Mark().column + 1};
    std::set<size_t> inside;
    if (!p["nodes"].IsSequence() || p["nodes"].size() == 0) {
      fail(p["nodes"], "nodes: expected a list of node names");
    } else {
      for (const YAML::Node& n : p["nodes"]) {
        const auto it = n.IsScalar() ? index.find(n.Scalar()) : index.end();
        if (it == index.end()) {
          fail(n, "nodes: no node named '" + (n.IsScalar() ? n.Scalar() : std::string()) + "'");
        } else if (!inside.insert(it->second).second) {
          fail(n, "nodes: '" + n.Scalar() + "' is named twice");
        }
      }
    }
    part.nodes.assign(inside.begin(), inside.end());
    std::string why;
    const auto at = p["at"].IsScalar() ? parse_duration(p["at"].Scalar(), why) : std::nullopt;
    if (!at) fail(p["at"], "at: " + (why.empty() ? "expected a time like 30s" : why));
    const auto heal = p["heal"].IsScalar() ? parse_duration(p["heal"].Scalar(), why) : std::nullopt;
    if (!heal) fail(p["heal"], "heal: " + (why.empty() ? "expected a time like 60s" : why));
    if (at && heal) {
      part.at_us = at->us;
      part.heal_us = heal->us;
      if (part.at_us <= 0) fail(p["at"], "at: must be after the start (a lab comes up whole)");
      if (part.heal_us <= part.at_us) fail(p["heal"], "heal: must be later than at");
    }
    if (!inside.empty()) {
      bool crosses = false;
      for (const auto& l : topo.links) crosses |= inside.count(l.a) != inside.count(l.b);
      if (!crosses) fail(p["nodes"], "nodes: the partition cuts no link (nothing crosses it)");
    }
    parts.push_back(part);
  }
  if (!ok) return;

  // Each crossing direction's down intervals, from every partition that cuts it.
  std::map<std::pair<size_t, bool>, std::vector<Interval>> downs;
  std::map<std::pair<size_t, bool>, size_t> first_partition;
  for (size_t k = 0; k < parts.size(); ++k) {
    const std::set<size_t> inside(parts[k].nodes.begin(), parts[k].nodes.end());
    for (size_t li = 0; li < topo.links.size(); ++li) {
      const Link& l = topo.links[li];
      if (inside.count(l.a) == inside.count(l.b)) continue;
      for (const bool b2a : {false, true}) {
        downs[{li, b2a}].push_back({parts[k].at_us, parts[k].heal_us});
        first_partition.emplace(std::make_pair(li, b2a), k);
      }
    }
  }
  const YAML::Node list = node;
  for (auto& [key, intervals] : downs) {
    const auto& [li, b2a] = key;
    Link& l = topo.links[li];
    DirectionParams& d = b2a ? l.b2a : l.a2b;
    const std::string name =
        topo.nodes[b2a ? l.b : l.a].name + "->" + topo.nodes[b2a ? l.a : l.b].name;
    const YAML::Node where = list[first_partition[key]];
    if (d.schedule.kind == Schedule::Kind::kFlap) {
      fail(where, "partition: it cuts " + name +
                      ", which flaps (its schedule): their down "
                      "times would overlap");
      continue;
    }
    const auto merged_downs = merged(intervals);
    for (const auto& own : scheduled_downs(d.schedule)) {
      for (const auto& p : merged_downs) {
        if (p.from_us < own.to_us && own.from_us < p.to_us)
          fail(where, "partition: it cuts " + name + " from " + seconds(p.from_us) + " to " +
                          seconds(p.to_us) + ", while its schedule has it down from " +
                          seconds(own.from_us) + ": overlapping down intervals");
      }
    }
    for (const auto& p : merged_downs) {
      ScheduleChange down, up;
      down.at_us = p.from_us;
      down.down = true;
      up.at_us = p.to_us;
      up.down = false;
      d.faults.push_back(down);
      d.faults.push_back(up);
    }
  }
  if (ok) topo.partitions = std::move(parts);
}

std::vector<ScheduleChange> fault_changes(const DirectionParams& d, int64_t from_us,
                                          int64_t to_us) {
  std::vector<ScheduleChange> out;
  for (const auto& c : d.faults)
    if (c.at_us >= from_us && c.at_us < to_us) out.push_back(c);
  return out;
}

}  // namespace testbed
