#include "agent/contracts/gaia/gaia_setup.h"

#include <string>

#include "agent/contracts/message_fields.h"

namespace testbed {
namespace {

// A path's window in flight: a gigabyte is far past any emulated WAN's bandwidth-delay.
constexpr size_t kMostWindowBytes = size_t{1} << 30;
// A mirror's silence bound: an hour is far past any run's (gaia_plan.h's are seconds).
constexpr int64_t kLongestSilenceMs = 3'600'000;

// JSON keys are text: a node index spelled as std::to_string writes it.
int node_key(const FieldReader& r, const char* field, const std::string& key, size_t nodes) {
  size_t used = 0;
  int node = -1;
  try {
    node = std::stoi(key, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != key.size() || node < 0 || static_cast<size_t>(node) >= nodes ||
      std::to_string(node) != key)
    throw r.error(field, "has the key '" + key + "', not a node of the run");
  return node;
}

}  // namespace

nlohmann::json to_json(const GaiaSetup& g) {
  nlohmann::json mirrors = nlohmann::json::object(), silence = nlohmann::json::object();
  for (const auto& [dc, links] : g.mirrors) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& l : links)
      list.push_back({{"node", l.node}, {"window_bytes", l.window_bytes}, {"hub", l.hub}});
    mirrors[std::to_string(dc)] = list;
  }
  for (const auto& [dc, bounds] : g.silence_ms) {
    nlohmann::json b = nlohmann::json::object();
    for (const auto& [node, ms] : bounds) b[std::to_string(node)] = ms;
    silence[std::to_string(dc)] = b;
  }
  return {{"threshold", g.threshold},
          {"ds", g.ds},
          {"soft", g.soft},
          {"local_staleness", g.local_staleness},
          {"t", g.t_in_passes ? "pass" : "clock"},
          {"mirrors", mirrors},
          {"partition", g.continue_when_cut ? "continue" : "block"},
          {"silence_ms", silence}};
}

GaiaSetup gaia_setup_from(const FieldReader& r, size_t nodes) {
  r.refuse_unknown(
      {"threshold", "ds", "soft", "local_staleness", "t", "mirrors", "partition", "silence_ms"});
  GaiaSetup g;
  g.threshold = r.in_range("threshold", r.required<double>("threshold"), 0.0, 1.0);
  g.ds = r.in_range("ds", r.required<int>("ds"), -1, 1 << 20);
  g.soft = r.required<bool>("soft");
  g.local_staleness =
      r.in_range("local_staleness", r.required<int>("local_staleness"), -1, 1 << 20);
  const auto t = r.required<std::string>("t");
  if (t != "clock" && t != "pass") throw r.error("t", "is '" + t + "', not clock or pass");
  g.t_in_passes = t == "pass";
  const auto partition = r.required<std::string>("partition");
  if (partition != "continue" && partition != "block")
    throw r.error("partition", "is '" + partition + "', not continue or block");
  g.continue_when_cut = partition == "continue";
  const FieldReader mirrors = r.object("mirrors");
  for (const auto& [key, list] : mirrors.json().items()) {
    const int dc = node_key(r, "mirrors", key, nodes);
    if (!list.is_array()) throw r.error("mirrors", "of node " + key + " is not a list");
    auto& links = g.mirrors[dc];  // a data center without mirrors has its (empty) list
    for (const auto& m : list) {
      const FieldReader link(m, mirrors.where() + "." + key);
      link.refuse_unknown({"node", "window_bytes", "hub"});
      GaiaMirrorLink l;
      l.node = link.in_range("node", link.required<int>("node"), 0, static_cast<int>(nodes) - 1);
      l.window_bytes = link.in_range("window_bytes", link.required<size_t>("window_bytes"),
                                     size_t{1}, kMostWindowBytes);
      l.hub = link.required<bool>("hub");
      links.push_back(l);
    }
  }
  const FieldReader silence = r.object("silence_ms");
  for (const auto& [key, bounds] : silence.json().items()) {
    const int dc = node_key(r, "silence_ms", key, nodes);
    const FieldReader b = silence.object(key.c_str());
    auto& mine = g.silence_ms[dc];
    for (const auto& [peer, ms] : bounds.items()) {
      const int node = node_key(b, peer.c_str(), peer, nodes);
      mine[node] = b.in_range(peer.c_str(), b.required<int64_t>(peer.c_str()), int64_t{1},
                              kLongestSilenceMs);
    }
  }
  return g;
}

}  // namespace testbed
