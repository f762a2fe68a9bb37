#include "controller/topology/schedule.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace testbed {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

namespace {

constexpr int64_t kMahimahiPacketBits = 1500 * 8;  // one delivery opportunity, per Mahimahi
// The longest trace time taken, in ms: a day.
constexpr int64_t kMaxTraceMs = 24 * 3600 * 1000;
// An endless random or looping schedule is expanded window by window; no single window
// may produce more than this many changes (a guard against a 1 us period, say).
constexpr size_t kMaxChangesPerWindow = 1000000;

uint64_t mix(uint64_t x) {
  return splitmix64(x);
}

// A weighted choice: the draw's top 53 bits as a uniform fraction of the weights' sum,
// and the first choice whose running sum exceeds it (a zero weight is never drawn).
Rate weighted_choice(const Schedule& s, uint64_t draw) {
  double total = 0;
  for (double w : s.weights) total += w;
  const double u = static_cast<double>(draw >> 11) * 0x1.0p-53 * total;
  double sum = 0;
  for (size_t i = 0; i < s.choices.size(); ++i) {
    sum += s.weights[i];
    if (s.weights[i] > 0 && u < sum) return s.choices[i];
  }
  for (size_t i = s.choices.size(); i-- > 0;)  // u rounded up to the sum: the last drawable
    if (s.weights[i] > 0) return s.choices[i];
  return s.choices.back();
}

Rate random_rate(const Schedule& s, uint64_t stream, uint64_t k) {
  const uint64_t draw = mix(mix(s.seed ^ mix(stream)) ^ k);
  if (!s.weights.empty()) return weighted_choice(s, draw);
  if (!s.choices.empty()) return s.choices[draw % s.choices.size()];
  const uint64_t steps = (s.max_rate.bits_per_s - s.min_rate.bits_per_s) / s.step.bits_per_s;
  return Rate{s.min_rate.bits_per_s + (draw % (steps + 1)) * s.step.bits_per_s};
}

// An exponentially distributed duration of mean `mean_us` from draw k of a stream: the
// draw's top 53 bits as a uniform u in (0, 1], and -mean * ln(u). At least 1 us, so time
// always moves on.
int64_t exponential_us(const Schedule& s, uint64_t stream, uint64_t k, int64_t mean_us) {
  const uint64_t draw = mix(mix(s.seed ^ mix(stream)) ^ k);
  const double u = (static_cast<double>(draw >> 11) + 1) * 0x1.0p-53;
  return std::max<int64_t>(1, std::llround(-static_cast<double>(mean_us) * std::log(u)));
}

ScheduleChange state_change(int64_t at_us, bool down) {
  ScheduleChange c;
  c.at_us = at_us;
  c.down = down;
  return c;
}

void flap_changes(const Schedule& s, uint64_t stream, int64_t from_us, int64_t to_us,
                  std::vector<ScheduleChange>& out) {
  if (s.every_us > 0) {  // periodic
    for (int64_t k = std::max<int64_t>(1, (from_us - s.down_for_us) / s.every_us);
         k * s.every_us < to_us; ++k) {
      const int64_t down = k * s.every_us, up = down + s.down_for_us;
      if (down >= from_us) out.push_back(state_change(down, true));
      if (up >= from_us && up < to_us) out.push_back(state_change(up, false));
      if (out.size() > kMaxChangesPerWindow) break;
    }
    return;
  }
  if (s.up_mean_us <= 0 || s.down_mean_us <= 0) return;
  // Random: walked from time 0, so a window's changes are those of the whole sequence.
  int64_t t = 0;
  for (uint64_t k = 0; t < to_us && out.size() <= kMaxChangesPerWindow; ++k) {
    t += exponential_us(s, stream, 2 * k, s.up_mean_us);
    if (t >= to_us) break;
    if (t >= from_us) out.push_back(state_change(t, true));
    t += exponential_us(s, stream, 2 * k + 1, s.down_mean_us);
    if (t >= from_us && t < to_us) out.push_back(state_change(t, false));
  }
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

bool is_plain_number(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789.") == std::string::npos;
}

}  // namespace

uint64_t direction_stream(size_t link_index, bool b2a) {
  return link_index * 2 + (b2a ? 1 : 0);
}

std::vector<ScheduleChange> load_csv_trace(const std::string& path,
                                           std::vector<Diagnostic>& errors) {
  std::vector<ScheduleChange> out;
  std::ifstream in(path);
  if (!in) {
    errors.push_back({path, 0, 0, "cannot read the trace file"});
    return out;
  }
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const auto comma = line.find(',');
    if (comma == std::string::npos) {
      errors.push_back({path, n, 1, "expected 'time,rate'"});
      continue;
    }
    const std::string t = trim(line.substr(0, comma)), r = trim(line.substr(comma + 1));
    if (out.empty() && n == 1 && !t.empty() && std::isalpha(static_cast<unsigned char>(t[0]))) {
      continue;  // a header such as "time_s,rate_mbit"
    }
    std::string why;
    const auto at = parse_duration(is_plain_number(t) ? t + "s" : t, why);
    if (!at) {
      errors.push_back({path, n, 1, "time: " + why});
      continue;
    }
    const auto rate = parse_rate(is_plain_number(r) ? r + "mbit" : r, why);
    if (!rate) {
      errors.push_back({path, n, static_cast<int>(comma) + 2, "rate: " + why});
      continue;
    }
    if (!out.empty() && at->us <= out.back().at_us) {
      errors.push_back({path, n, 1,
                        "time goes backwards (or repeats): each line must be later "
                        "than the one before"});
      continue;
    }
    out.push_back({at->us, *rate, std::nullopt, std::nullopt, std::nullopt});
  }
  if (out.empty() && errors.empty()) errors.push_back({path, 0, 0, "the trace has no entries"});
  return out;
}

std::vector<ScheduleChange> load_mahimahi_trace(const std::string& path, int64_t bin_us,
                                                int64_t& period_us,
                                                std::vector<Diagnostic>& errors) {
  std::vector<ScheduleChange> out;
  std::ifstream in(path);
  if (!in) {
    errors.push_back({path, 0, 0, "cannot read the trace file"});
    return out;
  }
  std::vector<int64_t> counts;
  int64_t last_ms = -1;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line = trim(line);
    if (line.empty()) continue;
    if (line.find_first_not_of("0123456789") != std::string::npos) {
      errors.push_back({path, n, 1, "expected a whole number of milliseconds"});
      continue;
    }
    // Beyond a day a trace is no WAN experiment's, and its per-bin counts would take memory
    // without bound (a bin per 100 ms).
    if (line.size() > 9 || std::stoll(line) > kMaxTraceMs) {
      errors.push_back(
          {path, n, 1, "a time beyond a day (" + std::to_string(kMaxTraceMs) + " ms)"});
      continue;
    }
    const int64_t ms = std::stoll(line);
    if (ms < last_ms) {
      errors.push_back({path, n, 1, "time goes backwards"});
      continue;
    }
    last_ms = ms;
    const size_t bin = static_cast<size_t>(ms * 1000 / bin_us);
    if (counts.size() <= bin) counts.resize(bin + 1, 0);
    ++counts[bin];
  }
  if (last_ms <= 0) {
    if (errors.empty())
      errors.push_back({path, 0, 0, "the trace has no delivery opportunity after 0 ms"});
    return out;
  }
  period_us = last_ms * 1000;
  for (size_t b = 0; b < counts.size() && static_cast<int64_t>(b) * bin_us < period_us; ++b) {
    // A bin without opportunities still gets one packet's worth: TBF cannot shape to zero.
    const int64_t packets = std::max<int64_t>(counts[b], 1);
    const Rate rate{static_cast<uint64_t>(packets * kMahimahiPacketBits * 1000000 / bin_us)};
    if (!out.empty() && out.back().rate == rate) continue;  // unchanged: no event needed
    out.push_back(
        {static_cast<int64_t>(b) * bin_us, rate, std::nullopt, std::nullopt, std::nullopt});
  }
  return out;
}

std::vector<ScheduleChange> schedule_changes(const Schedule& s, uint64_t stream, int64_t from_us,
                                             int64_t to_us) {
  std::vector<ScheduleChange> out;
  switch (s.kind) {
    case Schedule::Kind::kNone:
      break;
    case Schedule::Kind::kSteps:
    case Schedule::Kind::kTrace: {
      const bool loops = s.kind == Schedule::Kind::kTrace && s.loop && s.period_us > 0;
      const int64_t first_round = loops ? std::max<int64_t>(0, from_us / s.period_us) : 0;
      for (int64_t round = first_round;; ++round) {
        const int64_t offset = round * (loops ? s.period_us : 0);
        if (offset >= to_us) break;
        for (ScheduleChange c : s.changes) {
          c.at_us += offset;
          if (c.at_us >= from_us && c.at_us < to_us) out.push_back(c);
        }
        if (!loops || out.size() > kMaxChangesPerWindow) break;
      }
      break;
    }
    case Schedule::Kind::kFlap:
      flap_changes(s, stream, from_us, to_us, out);
      break;
    case Schedule::Kind::kRandom: {
      if (s.every_us <= 0) break;
      for (int64_t k = (from_us + s.every_us - 1) / s.every_us; k * s.every_us < to_us; ++k) {
        out.push_back({k * s.every_us, random_rate(s, stream, static_cast<uint64_t>(k)),
                       std::nullopt, std::nullopt, std::nullopt});
        if (out.size() > kMaxChangesPerWindow) break;
      }
      break;
    }
  }
  return out;
}

std::optional<Rate> initial_rate(const Schedule& s, uint64_t stream) {
  const auto first = schedule_changes(s, stream, 0, 1);
  if (!first.empty() && first.front().rate) return first.front().rate;
  return std::nullopt;
}

}  // namespace testbed

namespace testbed {
namespace {

const char* kind_name(Schedule::Kind k) {
  switch (k) {
    case Schedule::Kind::kSteps:
      return "steps";
    case Schedule::Kind::kRandom:
      return "random";
    case Schedule::Kind::kTrace:
      return "trace";
    case Schedule::Kind::kFlap:
      return "flap";
    case Schedule::Kind::kNone:
      break;
  }
  return "none";
}

}  // namespace

nlohmann::json schedule_to_json(const Schedule& s) {
  nlohmann::json j = {{"kind", kind_name(s.kind)}};
  if (s.kind == Schedule::Kind::kNone) return j;
  if (s.kind == Schedule::Kind::kRandom) {
    j["every_us"] = s.every_us;
    j["seed"] = s.seed;
    j["min_bits_per_s"] = s.min_rate.bits_per_s;
    j["max_bits_per_s"] = s.max_rate.bits_per_s;
    j["step_bits_per_s"] = s.step.bits_per_s;
    j["choices_bits_per_s"] = nlohmann::json::array();
    for (const Rate& r : s.choices) j["choices_bits_per_s"].push_back(r.bits_per_s);
    if (!s.weights.empty()) j["weights"] = s.weights;
    return j;
  }
  if (s.kind == Schedule::Kind::kFlap) {
    j["every_us"] = s.every_us;
    j["down_for_us"] = s.down_for_us;
    j["up_mean_us"] = s.up_mean_us;
    j["down_mean_us"] = s.down_mean_us;
    j["seed"] = s.seed;
    return j;
  }
  if (s.kind == Schedule::Kind::kTrace) {
    j["file"] = s.trace_file;
    j["loop"] = s.loop;
    j["period_us"] = s.period_us;
  }
  j["changes"] = changes_to_json(s.changes);
  return j;
}

nlohmann::json changes_to_json(const std::vector<ScheduleChange>& changes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : changes) {
    nlohmann::json cj = {{"at_us", c.at_us}};
    if (c.rate) cj["rate_bits_per_s"] = c.rate->bits_per_s;
    if (c.delay) cj["delay_us"] = c.delay->us;
    if (c.loss) cj["loss"] = c.loss->value;
    if (c.down) cj["down"] = *c.down;
    out.push_back(cj);
  }
  return out;
}

std::vector<ScheduleChange> changes_from_json(const nlohmann::json& j) {
  std::vector<ScheduleChange> out;
  for (const auto& cj : j) {
    ScheduleChange c;
    c.at_us = cj.at("at_us").get<int64_t>();
    if (cj.contains("rate_bits_per_s")) c.rate = Rate{cj["rate_bits_per_s"].get<uint64_t>()};
    if (cj.contains("delay_us")) c.delay = Duration{cj["delay_us"].get<int64_t>()};
    if (cj.contains("loss")) c.loss = Fraction{cj["loss"].get<double>()};
    if (cj.contains("down")) c.down = cj["down"].get<bool>();
    out.push_back(c);
  }
  return out;
}

Schedule schedule_from_json(const nlohmann::json& j) {
  Schedule s;
  const std::string kind = j.value("kind", "none");
  if (kind == "steps") s.kind = Schedule::Kind::kSteps;
  if (kind == "random") s.kind = Schedule::Kind::kRandom;
  if (kind == "trace") s.kind = Schedule::Kind::kTrace;
  if (kind == "flap") s.kind = Schedule::Kind::kFlap;
  s.down_for_us = j.value("down_for_us", int64_t{0});
  s.up_mean_us = j.value("up_mean_us", int64_t{0});
  s.down_mean_us = j.value("down_mean_us", int64_t{0});
  s.every_us = j.value("every_us", int64_t{0});
  s.seed = j.value("seed", uint64_t{0});
  s.min_rate = Rate{j.value("min_bits_per_s", uint64_t{0})};
  s.max_rate = Rate{j.value("max_bits_per_s", uint64_t{0})};
  s.step = Rate{j.value("step_bits_per_s", uint64_t{1})};
  for (const auto& r : j.value("choices_bits_per_s", nlohmann::json::array())) {
    s.choices.push_back(Rate{r.get<uint64_t>()});
  }
  s.weights = j.value("weights", std::vector<double>());
  s.trace_file = j.value("file", "");
  s.loop = j.value("loop", false);
  s.period_us = j.value("period_us", int64_t{0});
  s.changes = changes_from_json(j.value("changes", nlohmann::json::array()));
  return s;
}

uint64_t schedule_max_rate(const Schedule& s) {
  uint64_t max = s.max_rate.bits_per_s;
  for (const Rate& r : s.choices) max = std::max(max, r.bits_per_s);
  for (const auto& c : s.changes) {
    if (c.rate) max = std::max(max, c.rate->bits_per_s);
  }
  return max;
}

bool schedule_impairs(const Schedule& s) {
  return std::any_of(s.changes.begin(), s.changes.end(),
                     [](const ScheduleChange& c) { return c.delay || c.loss; });
}

}  // namespace testbed
