#include "controller/topology/node_events.h"

#include <algorithm>

#include "controller/topology/node_compute.h"
#include "controller/topology/units.h"

namespace testbed {
namespace {

int64_t us_of(const std::optional<Duration>& d) {
  return d ? d->us : 0;
}

}  // namespace

const char* node_event_name(NodeEvent::Kind kind) {
  switch (kind) {
    case NodeEvent::Kind::kCrash:
      return "crash";
    case NodeEvent::Kind::kPause:
      return "pause";
    case NodeEvent::Kind::kResume:
      return "resume";
    case NodeEvent::Kind::kRestart:
      return "restart";
    case NodeEvent::Kind::kCpus:
      return "cpus";
    case NodeEvent::Kind::kLeave:
      return "leave";
    case NodeEvent::Kind::kJoin:
      return "join";
  }
  return "crash";
}

std::optional<NodeEvent::Kind> parse_node_event_kind(const std::string& name) {
  for (auto k : {NodeEvent::Kind::kCrash, NodeEvent::Kind::kPause, NodeEvent::Kind::kResume,
                 NodeEvent::Kind::kRestart, NodeEvent::Kind::kCpus, NodeEvent::Kind::kLeave,
                 NodeEvent::Kind::kJoin})
    if (name == node_event_name(k)) return k;
  return std::nullopt;
}

std::vector<NodeEvent> parse_node_schedule(const YAML::Node& node, const std::string& name,
                                           const YamlErrorSink& error) {
  std::vector<NodeEvent> out;
  const std::string where = "node '" + name + "' schedule: ";
  if (!node.IsSequence() || node.size() == 0) {
    error(node, where + "expected a list of {at, event, [for]}");
    return out;
  }
  bool ok = true;
  const auto fail = [&](const YAML::Node& at, const std::string& message) {
    error(at, where + message);
    ok = false;
  };
  std::vector<YAML::Node> entries;
  for (const YAML::Node& e : node) {
    if (!e.IsMap() || !e["at"] || !e["event"]) {
      fail(e, "each entry needs at and event, e.g. {at: 30s, event: crash}");
      continue;
    }
    for (auto it = e.begin(); it != e.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (key != "at" && key != "event" && key != "for" && key != "cpus")
        fail(it->first, "unknown key '" + key + "' (at, event, for, cpus)");
    }
    NodeEvent ev;
    ev.pos = {e.Mark().line + 1, e.Mark().column + 1};
    std::string why;
    const auto at = e["at"].IsScalar() ? parse_duration(e["at"].Scalar(), why) : std::nullopt;
    if (!at) {
      fail(e["at"], "at: " + (why.empty() ? "expected a time like 30s" : why));
    } else if (at->us <= 0) {
      fail(e["at"], "at: must be after the start (a lab comes up whole)");
    } else {
      ev.at_us = at->us;
    }
    const auto kind =
        e["event"].IsScalar() ? parse_node_event_kind(e["event"].Scalar()) : std::nullopt;
    if (!kind) {
      fail(e["event"], "event: expected crash, pause, restart, cpus, leave or join, not '" +
                           (e["event"].IsScalar() ? e["event"].Scalar() : std::string()) + "'");
      continue;
    }
    ev.kind = *kind;
    if (ev.kind == NodeEvent::Kind::kResume) {
      fail(e["event"], "event: resume is for `testbed node resume`; give the pause its `for`");
      continue;
    }
    if (e["cpus"] && ev.kind != NodeEvent::Kind::kCpus) {
      fail(e["cpus"], "cpus: only a cpus event sets a share");
    } else if (ev.kind == NodeEvent::Kind::kCpus) {
      if (!e["cpus"]) {
        fail(e, "a cpus event needs its share, e.g. {at: 60s, event: cpus, cpus: 0.25}");
      } else {
        const std::string text = e["cpus"].IsScalar() ? e["cpus"].Scalar() : "";
        double v = 0;
        size_t used = 0;
        try {
          v = text == "all" ? 0 : std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (text != "all" &&
            (used != text.size() || text.empty() || !(v >= kMinCpus) || v > kMaxCpus)) {
          fail(e["cpus"], "cpus: '" + text + "' is not a share from 0.01 to 1024, or all");
        } else if (text != "all") {
          ev.cpus = v;
        }
      }
    }
    if (e["for"] && ev.kind != NodeEvent::Kind::kPause) {
      fail(e["for"], "for: only a pause lasts (a crash or a restart is over at once)");
    } else if (ev.kind == NodeEvent::Kind::kPause && !e["for"]) {
      fail(e, "a pause needs its length, e.g. {at: 60s, event: pause, for: 5s}");
    } else if (ev.kind == NodeEvent::Kind::kPause) {
      why.clear();
      const int64_t len = e["for"].IsScalar() ? us_of(parse_duration(e["for"].Scalar(), why)) : 0;
      if (len <= 0) fail(e["for"], "for: " + (why.empty() ? "expected a length like 5s" : why));
      ev.for_us = len;
    }
    out.push_back(ev);
    entries.push_back(e);
  }
  if (!ok) return {};
  std::vector<size_t> order(out.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return out[a].at_us < out[b].at_us; });
  // A pause may not begin while another holds the node: which resume ends it would be
  // ambiguous, as with a link's overlapping down intervals.
  int64_t paused_until = -1;
  for (size_t i : order) {
    const NodeEvent& ev = out[i];
    if (ev.kind != NodeEvent::Kind::kPause) continue;
    if (ev.at_us < paused_until) {
      fail(entries[i], "a pause at " + format_time(Duration{ev.at_us}) +
                           " overlaps the one before it (paused until " +
                           format_time(Duration{paused_until}) + ")");
    }
    paused_until = std::max(paused_until, ev.at_us + ev.for_us);
  }
  // A restart runs again what a crash ended: one needs a crash before it, and between two
  // restarts another crash (a second restart would have nothing to run).
  bool crashed = false;
  for (size_t i : order) {
    const NodeEvent& ev = out[i];
    if (ev.kind == NodeEvent::Kind::kCrash) crashed = true;
    if (ev.kind != NodeEvent::Kind::kRestart) continue;
    if (!crashed)
      fail(entries[i], "a restart at " + format_time(Duration{ev.at_us}) +
                           " has nothing to restart: no crash of the node before it");
    crashed = false;
  }
  // Membership, for an elastic run: a node is in from the start unless its first leave,
  // join or crash is a join (a data center that comes up mid-run). A leave drains one that
  // is in; a join brings in one that left. A crashed data center's agent is gone, so it
  // does not join; a restart runs launched ranks again and counts as back in.
  bool in = true;
  std::string out_why;
  for (size_t i : order) {
    const auto k = out[i].kind;
    if (k == NodeEvent::Kind::kLeave || k == NodeEvent::Kind::kJoin ||
        k == NodeEvent::Kind::kCrash) {
      in = k != NodeEvent::Kind::kJoin;
      out_why = "starts outside the run";
      break;
    }
  }
  for (size_t i : order) {
    const NodeEvent& ev = out[i];
    const std::string when = format_time(Duration{ev.at_us});
    switch (ev.kind) {
      case NodeEvent::Kind::kRestart:
        in = true;
        break;
      case NodeEvent::Kind::kCrash:
        if (in) out_why = "crashed at " + format_time(Duration{ev.at_us});
        in = false;
        break;
      case NodeEvent::Kind::kLeave:
        if (!in) {
          fail(entries[i], "a leave at " + when + " of a node not in: it " + out_why);
          break;
        }
        in = false;
        out_why = "left at " + when;
        break;
      case NodeEvent::Kind::kJoin:
        if (in) {
          fail(entries[i], "a join at " + when + " of a node already in");
        } else if (out_why.rfind("crashed", 0) == 0) {
          fail(entries[i], "a join at " + when + " of a node that " + out_why +
                               ": its agent is gone (restart is for launched ranks)");
        } else {
          in = true;
        }
        break;
      default:
        break;
    }
  }
  if (!ok) return {};
  std::vector<NodeEvent> sorted;
  for (size_t i : order) sorted.push_back(out[i]);
  return sorted;
}

std::vector<NodeChange> node_changes(const std::vector<NodeEvent>& schedule) {
  std::vector<NodeChange> out;
  for (const auto& ev : schedule) {
    out.push_back({ev.at_us, ev.kind, ev.cpus});
    if (ev.kind == NodeEvent::Kind::kPause && ev.for_us > 0)
      out.push_back({ev.at_us + ev.for_us, NodeEvent::Kind::kResume, std::nullopt});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const NodeChange& a, const NodeChange& b) { return a.at_us < b.at_us; });
  return out;
}

}  // namespace testbed
