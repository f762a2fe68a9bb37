#include "controller/topology/cross_traffic_parser.h"

#include <algorithm>

#include "controller/topology/node_compute.h"

namespace testbed {
namespace {

// A constant-rate stream above this is no one else's traffic but a test of the host: the
// delay line carries a few Gbit/s on our 2-core machines (docs/benchmarks.md).
constexpr uint64_t kMaxUdpBitsPerS = 10'000'000'000ULL;

template <typename Fail>
void parse_poisson(const YAML::Node& e, CrossTraffic& t, uint64_t lab_seed, size_t index,
                   const Fail& fail) {
  std::string why;
  const YAML::Node load = e["load"];
  const auto l = load && load.IsScalar() ? parse_percent(load.Scalar(), why) : std::nullopt;
  if (!load) {
    fail(e, "load: missing (the share of the path's rate the flows take on average, like 30%)");
  } else if (!l || l->value <= 0 || l->value > 1) {
    fail(load, "load: " + (why.empty() ? std::string("expected a percentage above 0 and at most "
                                                     "100%")
                                       : why));
  } else {
    t.load = l->value;
  }
  const auto size = [&](const char* key) -> std::optional<uint64_t> {
    const YAML::Node n = e[key];
    if (!n) return std::nullopt;
    std::string w;
    const auto b = n.IsScalar() ? parse_memory_size(n.Scalar(), w) : std::nullopt;
    if (!b || *b == 0) {
      fail(n, std::string(key) + ": " + (w.empty() ? "expected a size like 1MiB" : w));
      return std::nullopt;
    }
    return b;
  };
  if (!e["mean_size"]) fail(e, "mean_size: missing (the flows' mean size, like 1MiB)");
  t.mean_size = size("mean_size").value_or(0);
  t.shape = kDefaultParetoShape;
  if (const YAML::Node s = e["shape"]) {
    double v = 0;
    try {
      v = s.as<double>();
    } catch (const YAML::Exception&) {
    }
    // At 1 or below the mean is infinite; above 10 the tail is no longer heavy.
    if (!(v > 1 && v <= 10)) fail(s, "shape: expected a Pareto shape above 1 and at most 10");
    t.shape = v;
  }
  t.max_size = size("max_size").value_or(t.mean_size * kDefaultMaxSizeOverMean);
  if (t.mean_size && t.max_size && t.max_size < t.mean_size)
    fail(e["max_size"], "max_size: below mean_size");
  // The lab's seed spread by the entry's place with the golden-ratio constant, as the
  // planner seeds its directions' streams: neighbouring entries draw unrelated sequences.
  t.seed = lab_seed ^ ((index + 1) * 0x9e3779b97f4a7c15ULL);
  if (const YAML::Node s = e["seed"]) {
    try {
      t.seed = s.as<uint64_t>();
    } catch (const YAML::Exception&) {
      fail(s, "seed: expected a whole number");
    }
  }
}

}  // namespace

std::optional<CrossTraffic::Kind> kind_from_name(const std::string& name) {
  for (const auto k :
       {CrossTraffic::Kind::kBulk, CrossTraffic::Kind::kUdp, CrossTraffic::Kind::kPoisson})
    if (name == kind_name(k)) return k;
  return std::nullopt;
}

const char* kind_name(CrossTraffic::Kind k) {
  switch (k) {
    case CrossTraffic::Kind::kBulk:
      return "bulk";
    case CrossTraffic::Kind::kUdp:
      return "udp";
    case CrossTraffic::Kind::kPoisson:
      return "poisson";
  }
  return "?";
}

std::vector<CrossTraffic> parse_cross_traffic(const YAML::Node& list,
                                              const std::vector<std::string>& nodes,
                                              uint64_t lab_seed, const YamlErrorSink& error) {
  std::vector<CrossTraffic> out;
  if (!list.IsSequence()) {
    error(list, "cross_traffic: expected a list of {from, to, kind, ...}");
    return out;
  }
  const size_t most = kCrossTrafficLastPort - kCrossTrafficFirstPort + 1;
  if (list.size() > most) {
    error(list, "cross_traffic: " + std::to_string(list.size()) + " entries; at most " +
                    std::to_string(most) + " (one port each)");
    return out;
  }
  for (size_t index = 0; index < list.size(); ++index) {
    const YAML::Node e = list[index];
    bool ok = true;
    const auto fail = [&](const YAML::Node& at, const std::string& m) {
      error(at, "cross_traffic: " + m);
      ok = false;
    };
    if (!e.IsMap()) {
      fail(e, "an entry is a mapping {from, to, kind, ...}");
      continue;
    }
    for (auto it = e.begin(); it != e.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (std::find(kCrossTrafficKeys.begin(), kCrossTrafficKeys.end(), key) ==
          kCrossTrafficKeys.end())
        fail(it->first, "unknown key '" + key +
                            "' (from, to, kind, flows, rate, load, mean_size, shape, max_size, "
                            "seed, start, stop)");
    }
    CrossTraffic t;
    t.line = e.Mark().line + 1;
    const auto node = [&](const char* key, size_t& index) {
      const YAML::Node n = e[key];
      if (!n) return fail(e, std::string(key) + ": missing (a node's name)");
      const auto it =
          n.IsScalar() ? std::find(nodes.begin(), nodes.end(), n.Scalar()) : nodes.end();
      if (it == nodes.end())
        return fail(
            n, std::string(key) + ": no node named '" + (n.IsScalar() ? n.Scalar() : "") + "'");
      index = static_cast<size_t>(it - nodes.begin());
    };
    node("from", t.from);
    node("to", t.to);
    if (ok && t.from == t.to) fail(e["to"], "to: the same node as from");

    const YAML::Node kind = e["kind"];
    const std::string k = kind && kind.IsScalar() ? kind.Scalar() : "";
    if (const auto parsed = kind_from_name(k)) {
      t.kind = *parsed;
    } else {
      fail(kind ? kind : e,
           "kind: expected bulk (TCP flows), udp (a constant rate) or poisson (flows arriving "
           "at random, of heavy-tailed sizes)");
    }
    // Keys that belong to another kind are refused, not ignored: a `rate` on a poisson
    // entry is a mistake about what it does.
    for (const char* key : {"load", "mean_size", "shape", "max_size", "seed"}) {
      if (e[key] && k != "poisson")
        fail(e[key], std::string(key) + ": only a poisson entry has it");
    }
    if (k == "poisson") parse_poisson(e, t, lab_seed, index, fail);
    if (const YAML::Node f = e["flows"]) {
      int n = 0;
      try {
        n = f.as<int>();
      } catch (const YAML::Exception&) {
      }
      if (k != "bulk") {
        fail(f, "flows: only a bulk entry has flows");
      } else if (n < 1 || n > kMaxBulkFlows) {
        fail(f, "flows: expected a whole number from 1 to " + std::to_string(kMaxBulkFlows));
      } else {
        t.flows = n;
      }
    }
    const YAML::Node r = e["rate"];
    if (k == "udp" && !r) fail(e, "rate: missing (a udp entry's constant rate, like 20mbit)");
    if (r && k == "bulk") fail(r, "rate: a bulk entry has no rate (its flows take what TCP gets)");
    if (r && k == "udp") {
      std::string why;
      const auto rate = r.IsScalar() ? parse_rate(r.Scalar(), why) : std::nullopt;
      if (!rate || rate->bits_per_s == 0 || rate->bits_per_s > kMaxUdpBitsPerS) {
        fail(r,
             "rate: " + (why.empty() ? std::string("expected a rate from 1bit to 10gbit") : why));
      } else {
        t.rate = *rate;
      }
    }
    const auto time = [&](const char* key) -> std::optional<int64_t> {
      const YAML::Node n = e[key];
      if (!n) return std::nullopt;
      std::string why;
      const auto d = n.IsScalar() ? parse_duration(n.Scalar(), why) : std::nullopt;
      if (!d || d->us < 0) {
        fail(n, std::string(key) + ": " + (why.empty() ? "expected a time like 30s" : why));
        return std::nullopt;
      }
      return d->us;
    };
    t.start_us = time("start").value_or(0);
    t.stop_us = time("stop");
    if (t.stop_us && *t.stop_us <= t.start_us) fail(e["stop"], "stop: must be later than start");
    if (ok) out.push_back(t);
  }
  return out;
}

}  // namespace testbed
