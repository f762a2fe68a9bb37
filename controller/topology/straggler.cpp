#include "controller/topology/straggler.h"

#include <cmath>
#include <sstream>

#include "controller/topology/model_fields.h"
#include "controller/topology/units.h"

namespace testbed {
namespace {

// The shortest period: the CFS period (100 ms), below which a share cannot be told from
// the next.
constexpr int64_t kMinEveryUs = 100000;

}  // namespace

std::optional<StragglerModel> parse_straggler(const YAML::Node& node, const std::string& name,
                                              std::optional<double> cpus, uint64_t default_seed,
                                              const YamlErrorSink& error) {
  ModelFields fields(node, "node '" + name + "' straggler: ", error);
  if (!fields.is_map("{chance: 10%, slowdown: 4, every: 1s}")) return std::nullopt;
  fields.allow({"chance", "slowdown", "every", "seed"});
  StragglerModel m;
  m.seed = default_seed;
  std::string why;
  if (!node["chance"]) {
    fields.fail(node, "needs its chance, e.g. 10%");
  } else if (const auto f = parse_percent(node["chance"].Scalar(), why)) {
    m.chance = f->value;
  } else {
    fields.fail(node["chance"], "chance: " + why);
  }
  if (!node["slowdown"]) {
    fields.fail(node, "needs its slowdown, e.g. 4 (the share divided by 4 while slowed)");
  } else {
    std::istringstream in(node["slowdown"].Scalar());
    if (!(in >> m.slowdown) || !in.eof() || !std::isfinite(m.slowdown) || m.slowdown <= 1)
      fields.fail(node["slowdown"],
                  "slowdown: '" + node["slowdown"].Scalar() + "' must be a factor above 1");
  }
  why.clear();
  if (!node["every"]) {
    fields.fail(node, "needs its period, e.g. every: 1s");
  } else if (const auto d = parse_duration(node["every"].Scalar(), why);
             !d || d->us < kMinEveryUs) {
    fields.fail(node["every"], "every: " + (why.empty() ? "at least 100ms (the CPU period)" : why));
  } else {
    m.every_us = d->us;
  }
  fields.seed(m.seed);
  if (!cpus) fields.fail(node, "needs the node's cpus: the share it is slowed from");
  if (fields.ok() && cpus && *cpus / m.slowdown < kMinCpus)
    fields.fail(node["slowdown"], "slowdown: the share while slowed would be under 0.01 of a CPU");
  if (!fields.ok()) return std::nullopt;
  return m;
}

bool straggles(const StragglerModel& m, uint64_t stream, uint64_t k) {
  const uint64_t draw = splitmix64(splitmix64(m.seed ^ splitmix64(stream)) ^ k);
  return static_cast<double>(draw >> 11) * 0x1.0p-53 < m.chance;
}

std::vector<NodeChange> straggler_changes(const StragglerModel& m, double cpus, uint64_t stream,
                                          int64_t from_us, int64_t to_us, bool& slowed) {
  std::vector<NodeChange> out;
  if (m.every_us <= 0) return out;
  // Period 0 starts at time 0, which is the planned state: the first draw is period 1's.
  const int64_t first = std::max<int64_t>(1, (from_us + m.every_us - 1) / m.every_us);
  for (int64_t k = first; k * m.every_us < to_us; ++k) {
    const bool now = straggles(m, stream, static_cast<uint64_t>(k));
    if (now == slowed) continue;
    slowed = now;
    out.push_back({k * m.every_us, NodeEvent::Kind::kCpus, now ? cpus / m.slowdown : cpus});
  }
  return out;
}

}  // namespace testbed
