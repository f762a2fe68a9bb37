#include "controller/topology/node_churn.h"

#include <algorithm>
#include <cmath>

#include "controller/topology/model_fields.h"
#include "controller/topology/units.h"

namespace testbed {
namespace {

// An hour: churn with no horizon covers any run the bundled suites make, and its events
// (two per cycle) stay few at the shortest means.
constexpr int64_t kDefaultUntilUs = 3600LL * 1000000;
// Two events per cycle at 1 s each way over an hour: a bound, so that a typo in a mean
// does not write a plan of millions of events.
constexpr size_t kMaxChurnEvents = 20000;

// A node's stream: FNV-1a of its name, so its draws do not depend on the nodes' order.
uint64_t name_stream(const std::string& name) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ULL;
  return h;
}

int64_t draw_us(const ChurnModel& m, uint64_t stream, uint64_t k, int64_t mean_us) {
  const uint64_t draw = splitmix64(splitmix64(m.seed ^ splitmix64(stream)) ^ k);
  const double u = (static_cast<double>(draw >> 11) + 1) * 0x1.0p-53;  // in (0, 1]
  const auto us = std::llround(-static_cast<double>(mean_us) * std::log(u));
  return std::max<int64_t>(kMinChurnGapUs, us);
}

}  // namespace

std::optional<ChurnModel> parse_node_churn(const YAML::Node& node, const std::string& name,
                                           uint64_t default_seed, const YamlErrorSink& error) {
  ModelFields fields(node, "node '" + name + "' churn: ", error);
  if (!fields.is_map("{up_mean: 120s, away_mean: 60s, seed: 1, until: 1800s}")) return std::nullopt;
  fields.allow({"up_mean", "away_mean", "seed", "until"});
  ChurnModel m;
  m.seed = default_seed;
  m.until_us = kDefaultUntilUs;
  const auto duration = [&](const char* field, int64_t& out, int64_t least, const char* hint) {
    std::string why;
    const YAML::Node v = node[field];
    const auto d = v.IsScalar() ? parse_duration(v.Scalar(), why) : std::nullopt;
    if (!d)
      fields.fail(v, std::string(field) + ": " + (why.empty() ? "expected a time like 60s" : why));
    else if (d->us < least)
      fields.fail(v, std::string(field) + ": " + hint);
    else
      out = d->us;
  };
  for (const char* field : {"up_mean", "away_mean"}) {
    if (!node[field]) {
      fields.fail(node, std::string("needs '") + field + "', e.g. " + field + ": 60s");
      continue;
    }
    int64_t& out = field[0] == 'u' ? m.up_mean_us : m.away_mean_us;
    duration(field, out, kMinChurnGapUs,
             "at least 1s (a node's requests closer than that could fold into one)");
  }
  if (node["until"]) duration("until", m.until_us, 1, "must be after the start");
  fields.seed(m.seed);
  // Expected events: two per cycle of up_mean + away_mean.
  if (fields.ok() && 2 * (m.until_us / (m.up_mean_us + m.away_mean_us)) >
                         static_cast<int64_t>(kMaxChurnEvents / 2))
    fields.fail(node,
                "over " + std::to_string(kMaxChurnEvents / 2) +
                    " leaves and joins expected before until: a shorter horizon or longer means");
  if (!fields.ok()) return std::nullopt;
  return m;
}

std::vector<NodeEvent> churn_events(const ChurnModel& m, const std::string& name, SourcePos pos) {
  std::vector<NodeEvent> out;
  const uint64_t stream = name_stream(name);
  int64_t t = 0;
  for (uint64_t k = 0; out.size() < kMaxChurnEvents; ++k) {
    t += draw_us(m, stream, 2 * k, m.up_mean_us);
    if (t >= m.until_us) break;
    out.push_back({NodeEvent::Kind::kLeave, t, 0, std::nullopt, pos});
    t += draw_us(m, stream, 2 * k + 1, m.away_mean_us);
    if (t >= m.until_us) break;
    out.push_back({NodeEvent::Kind::kJoin, t, 0, std::nullopt, pos});
  }
  return out;
}

}  // namespace testbed
