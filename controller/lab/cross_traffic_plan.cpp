#include "controller/lab/cross_traffic_plan.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace testbed {

std::vector<PlannedTraffic> plan_cross_traffic(const Topology& topo,
                                               const std::vector<std::string>& namespaces,
                                               const std::vector<std::string>& addresses,
                                               const RouteBook& routes) {
  std::vector<PlannedTraffic> out;
  std::map<std::string, uint64_t> rates;  // "from>to": each direction's rate at time zero
  for (const Link& l : topo.links) {
    rates[topo.nodes[l.a].name + ">" + topo.nodes[l.b].name] = l.a2b.rate.bits_per_s;
    rates[topo.nodes[l.b].name + ">" + topo.nodes[l.a].name] = l.b2a.rate.bits_per_s;
  }
  for (size_t i = 0; i < topo.cross_traffic.size(); ++i) {
    const CrossTraffic& c = topo.cross_traffic[i];
    PlannedTraffic t;
    t.index = i;
    t.kind = c.kind;
    t.from = topo.nodes[c.from].name;
    t.to = topo.nodes[c.to].name;
    t.from_ns = namespaces[c.from];
    t.to_ns = namespaces[c.to];
    t.to_address = addresses[c.to];
    t.flows = c.kind == CrossTraffic::Kind::kBulk ? c.flows : 1;
    t.rate_bits_per_s = c.kind == CrossTraffic::Kind::kUdp ? c.rate.bits_per_s : 0;
    if (c.kind == CrossTraffic::Kind::kPoisson) {
      t.mean_size = c.mean_size;
      t.max_size = c.max_size;
      t.shape = c.shape;
      t.seed = c.seed;
    }
    t.start_us = c.start_us;
    t.stop_us = c.stop_us;
    t.port = static_cast<uint16_t>(kCrossTrafficFirstPort + i);
    uint64_t narrowest = UINT64_MAX;
    if (const auto r = routes.route(c.from, c.to)) {
      for (size_t h = 0; h + 1 < r->path.size(); ++h) {
        t.path.push_back(r->path[h] + ">" + r->path[h + 1]);
        const auto it = rates.find(t.path.back());
        if (it != rates.end()) narrowest = std::min(narrowest, it->second);
      }
    }
    if (c.kind == CrossTraffic::Kind::kPoisson && narrowest != UINT64_MAX)
      t.rate_bits_per_s = static_cast<uint64_t>(c.load * static_cast<double>(narrowest) + 0.5);
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::string> traffic_server_argv(const PlannedTraffic& t, const std::string& testbed) {
  if (t.kind == CrossTraffic::Kind::kPoisson)
    return {testbed, "_flows", "sink", t.to_address, std::to_string(t.port)};
  // --forceflush: its log is read while it runs (a test's progress); -B: it listens on the
  // node's own address only.
  return {"iperf3", "--server",   "--port",      std::to_string(t.port),
          "--bind", t.to_address, "--forceflush"};
}

std::vector<std::string> traffic_client_argv(const PlannedTraffic& t, const std::string& testbed) {
  if (t.kind == CrossTraffic::Kind::kPoisson) {
    char shape[32];
    std::snprintf(shape, sizeof shape, "%.17g", t.shape);
    return {testbed,
            "_flows",
            "send",
            t.to_address,
            std::to_string(t.port),
            std::to_string(t.rate_bits_per_s),
            std::to_string(t.mean_size),
            std::to_string(t.max_size),
            shape,
            std::to_string(t.seed)};
  }
  std::vector<std::string> argv = {"iperf3",
                                   "--client",
                                   t.to_address,
                                   "--port",
                                   std::to_string(t.port),
                                   "--time",
                                   "0",  // until `_traffic` ends it at stop
                                   "--interval",
                                   "0",  // no per-second reports
                                   "--forceflush",
                                   "--connect-timeout",
                                   "2000"};  // ms: the server is on a node of this lab
  if (t.kind == CrossTraffic::Kind::kBulk) {
    argv.insert(argv.end(), {"--parallel", std::to_string(t.flows)});
  } else {
    // --bitrate paces the stream at the rate (its payload, which iperf3 counts); the
    // datagrams are 1448 bytes, as its TCP segments, so that the counters' IP bytes are
    // 28/1448 = 1.9% above the rate, whatever the path's MTU.
    argv.insert(argv.end(),
                {"--udp", "--bitrate", std::to_string(t.rate_bits_per_s), "--length", "1448"});
  }
  return argv;
}

nlohmann::json traffic_to_json(const PlannedTraffic& t) {
  nlohmann::json j = {{"index", t.index},
                      {"kind", kind_name(t.kind)},
                      {"from", t.from},
                      {"to", t.to},
                      {"from_ns", t.from_ns},
                      {"to_ns", t.to_ns},
                      {"to_address", t.to_address},
                      {"port", t.port},
                      {"start_s", t.start_us / 1e6},
                      {"path", t.path}};
  if (t.kind == CrossTraffic::Kind::kBulk) j["flows"] = t.flows;
  if (t.kind != CrossTraffic::Kind::kBulk) j["rate_bits_per_s"] = t.rate_bits_per_s;
  if (t.kind == CrossTraffic::Kind::kPoisson) {
    j["mean_size_bytes"] = t.mean_size;
    j["max_size_bytes"] = t.max_size;
    j["pareto_shape"] = t.shape;
    j["seed"] = t.seed;
  }
  j["stop_s"] = t.stop_us ? nlohmann::json(*t.stop_us / 1e6) : nlohmann::json(nullptr);
  return j;
}

PlannedTraffic traffic_from_json(const nlohmann::json& j) {
  const auto field = [&](const char* name) -> const nlohmann::json& {
    if (!j.is_object() || !j.contains(name))
      throw std::invalid_argument(std::string("cross_traffic: missing '") + name + "'");
    return j[name];
  };
  PlannedTraffic t;
  try {
    t.index = field("index").get<size_t>();
    const std::string kind = field("kind").get<std::string>();
    const auto parsed = kind_from_name(kind);
    if (!parsed) throw std::invalid_argument("cross_traffic: kind '" + kind + "'");
    t.kind = *parsed;
    t.from = field("from").get<std::string>();
    t.to = field("to").get<std::string>();
    t.from_ns = field("from_ns").get<std::string>();
    t.to_ns = field("to_ns").get<std::string>();
    t.to_address = field("to_address").get<std::string>();
    t.port = field("port").get<uint16_t>();
    t.start_us = static_cast<int64_t>(field("start_s").get<double>() * 1e6 + 0.5);
    if (!field("stop_s").is_null())
      t.stop_us = static_cast<int64_t>(field("stop_s").get<double>() * 1e6 + 0.5);
    t.path = field("path").get<std::vector<std::string>>();
    if (t.kind == CrossTraffic::Kind::kBulk) t.flows = field("flows").get<int>();
    if (t.kind != CrossTraffic::Kind::kBulk)
      t.rate_bits_per_s = field("rate_bits_per_s").get<uint64_t>();
    if (t.kind == CrossTraffic::Kind::kPoisson) {
      t.mean_size = field("mean_size_bytes").get<uint64_t>();
      t.max_size = field("max_size_bytes").get<uint64_t>();
      t.shape = field("pareto_shape").get<double>();
      t.seed = field("seed").get<uint64_t>();
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("cross_traffic: ") + e.what());
  }
  return t;
}

}  // namespace testbed
