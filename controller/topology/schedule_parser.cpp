// Parsing a direction's `schedule:` from a profile (see schedule.h for what it means).
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "controller/topology/schedule.h"

namespace testbed {

namespace {

// `weights:` of a random schedule: one non-negative number per rate of its `bandwidth`
// list, not all zero (MLfabric's network settings draw from five rates with weights).
template <typename Fail>
void parse_weights(const YAML::Node& w, const YAML::Node& bandwidth, Schedule& s, Fail& fail) {
  if (!bandwidth.IsSequence()) {
    fail(w, "weights: only with a list of rates in 'bandwidth', one weight per rate");
    return;
  }
  if (!w.IsSequence() || w.size() != bandwidth.size()) {
    fail(w, "weights: expected a list of " + std::to_string(bandwidth.size()) +
                " numbers, one per rate of 'bandwidth'");
    return;
  }
  double total = 0;
  for (const YAML::Node& n : w) {
    double v = -1;
    try {
      v = n.as<double>();
    } catch (const YAML::Exception&) {
    }
    if (!n.IsScalar() || !(v >= 0) || !std::isfinite(v)) {
      fail(n, "weights: expected a number, zero or more");
      return;
    }
    s.weights.push_back(v);
    total += v;
  }
  if (total <= 0) fail(w, "weights: at least one must be greater than zero");
}

// A random schedule's or flap's own `seed`, when given (else the profile's stays).
template <typename Fail>
void read_seed(const YAML::Node& body, Schedule& s, const Fail& fail) {
  if (!body["seed"]) return;
  try {
    s.seed = body["seed"].as<uint64_t>();
  } catch (const YAML::Exception&) {
    fail(body["seed"], "seed: expected a whole number");
  }
}

}  // namespace

std::optional<Schedule> parse_schedule(const YAML::Node& node, const std::string& profile_dir,
                                       uint64_t default_seed, const YamlErrorSink& yaml_error,
                                       std::vector<Diagnostic>& trace_errors) {
  if (!node.IsMap() || node.size() != 1) {
    yaml_error(node, "schedule: expected exactly one of 'steps', 'random', 'trace' or 'flap'");
    return std::nullopt;
  }
  const std::string kind = node.begin()->first.Scalar();
  const YAML::Node body = node.begin()->second;
  bool ok = true;
  const auto fail = [&](const YAML::Node& at, const std::string& msg) {
    yaml_error(at, msg);
    ok = false;
  };
  const auto keys = [&](const YAML::Node& map, const std::vector<std::string>& allowed,
                        const std::string& where) {
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (std::find(allowed.begin(), allowed.end(), it->first.Scalar()) == allowed.end()) {
        fail(it->first, "unknown key '" + it->first.Scalar() + "' in " + where);
      }
    }
  };
  const auto scalar = [&](const YAML::Node& n, const std::string& field, auto parse) {
    std::string why;
    decltype(parse(std::string(), why)) v;
    if (!n.IsScalar()) {
      fail(n, field + " must be a single value");
      return v;
    }
    v = parse(n.Scalar(), why);
    if (!v) fail(n, field + ": " + why);
    return v;
  };

  Schedule s;
  s.seed = default_seed;
  if (kind == "steps") {
    s.kind = Schedule::Kind::kSteps;
    if (!body.IsSequence() || body.size() == 0) {
      fail(body,
           "schedule steps: expected a non-empty list of {at, bandwidth, delay, loss, state}");
      return std::nullopt;
    }
    bool link_down = false;  // as the steps so far leave it
    for (const YAML::Node& step : body) {
      if (!step.IsMap() || !step["at"]) {
        fail(step, "a schedule step needs 'at' and at least one of bandwidth, delay, loss, state");
        continue;
      }
      keys(step, {"at", "bandwidth", "delay", "loss", "state"}, "schedule step");
      ScheduleChange c;
      if (auto at = scalar(step["at"], "at", parse_duration)) c.at_us = at->us;
      if (step["bandwidth"]) c.rate = scalar(step["bandwidth"], "bandwidth", parse_rate);
      if (step["delay"]) c.delay = scalar(step["delay"], "delay", parse_duration);
      if (step["loss"]) c.loss = scalar(step["loss"], "loss", parse_percent);
      if (step["state"]) {
        const YAML::Node state = step["state"];
        if (!state.IsScalar() || (state.Scalar() != "down" && state.Scalar() != "up")) {
          fail(state, "state: expected down or up");
        } else {
          c.down = state.Scalar() == "down";
          // A direction starts up; each down needs an up before the next (no overlap).
          if (*c.down == link_down) {
            fail(state, *c.down ? "state: down, but the link is down already (since an "
                                  "earlier step): overlapping down intervals"
                                : "state: up, but the link is not down");
          }
          link_down = *c.down;
        }
      }
      if (!step["bandwidth"] && !step["delay"] && !step["loss"] && !step["state"]) {
        fail(step, "a schedule step needs at least one of bandwidth, delay, loss, state");
      }
      if (!s.changes.empty() && c.at_us <= s.changes.back().at_us) {
        fail(step["at"],
             "schedule step: time goes backwards (or repeats): each 'at' must be "
             "later than the one before");
      }
      s.changes.push_back(c);
    }
  } else if (kind == "random") {
    s.kind = Schedule::Kind::kRandom;
    if (!body.IsMap()) {
      fail(body, "schedule random: expected {every, bandwidth, seed}");
      return std::nullopt;
    }
    keys(body, {"every", "bandwidth", "step", "seed", "weights"}, "schedule random");
    if (!body["every"] || !body["bandwidth"]) {
      fail(body,
           "schedule random: needs 'every' and 'bandwidth' (a range like 20mbit..155mbit "
           "or a list)");
      return std::nullopt;
    }
    if (auto every = scalar(body["every"], "every", parse_duration)) {
      s.every_us = every->us;
      if (s.every_us <= 0) fail(body["every"], "every: must be greater than zero");
    }
    s.step = Rate{1000000};  // whole Mbit/s, as NetStorm draws them
    if (body["step"]) {
      if (auto st = scalar(body["step"], "step", parse_rate)) s.step = *st;
    }
    const YAML::Node bw = body["bandwidth"];
    if (bw.IsSequence() && bw.size() > 0) {
      for (const YAML::Node& c : bw) {
        if (auto r = scalar(c, "bandwidth", parse_rate)) s.choices.push_back(*r);
      }
    } else if (bw.IsScalar() && bw.Scalar().find("..") != std::string::npos) {
      const std::string text = bw.Scalar();
      const auto dots = text.find("..");
      std::string why;
      const auto lo = parse_rate(text.substr(0, dots), why);
      if (!lo) fail(bw, "bandwidth: " + why);
      const auto hi = parse_rate(text.substr(dots + 2), why);
      if (!hi) fail(bw, "bandwidth: " + why);
      if (lo && hi) {
        if (hi->bits_per_s < lo->bits_per_s) fail(bw, "bandwidth: the range goes downwards");
        s.min_rate = *lo;
        s.max_rate = *hi;
      }
    } else {
      fail(bw, "bandwidth: expected a range like 20mbit..155mbit or a list of rates");
    }
    if (const YAML::Node w = body["weights"]) parse_weights(w, bw, s, fail);
    read_seed(body, s, fail);
  } else if (kind == "flap") {
    s.kind = Schedule::Kind::kFlap;
    if (!body.IsMap()) {
      fail(body, "schedule flap: expected {every, down_for} or {up_mean, down_mean, seed}");
      return std::nullopt;
    }
    keys(body, {"every", "down_for", "up_mean", "down_mean", "seed"}, "schedule flap");
    const bool periodic = body["every"] || body["down_for"];
    const bool random = body["up_mean"] || body["down_mean"];
    if (periodic == random) {
      fail(body,
           "schedule flap: either every and down_for (periodic) or up_mean and "
           "down_mean (random), not both");
      return std::nullopt;
    }
    const auto positive = [&](const char* field, int64_t& out) {
      if (!body[field]) {
        fail(body, std::string("schedule flap: needs '") + field + "'");
      } else if (auto d = scalar(body[field], field, parse_duration)) {
        out = d->us;
        if (out <= 0) fail(body[field], std::string(field) + ": must be greater than zero");
      }
    };
    if (periodic) {
      positive("every", s.every_us);
      positive("down_for", s.down_for_us);
      if (s.every_us > 0 && s.down_for_us >= s.every_us)
        fail(body["down_for"], "down_for: must be shorter than every (it would never be up)");
      if (body["seed"]) fail(body["seed"], "seed: only for a random flap");
    } else {
      positive("up_mean", s.up_mean_us);
      positive("down_mean", s.down_mean_us);
      // The timeline walks a random flap from time 0 for each window it expands (the k-th
      // time is a function of k), so its cost grows with the flaps so far: means of 100 ms
      // or more keep an hour's walk under 40,000 steps a window.
      for (const char* field : {"up_mean", "down_mean"}) {
        const int64_t mean = field[0] == 'u' ? s.up_mean_us : s.down_mean_us;
        if (mean > 0 && mean < 100000) fail(body[field], std::string(field) + ": at least 100ms");
      }
      read_seed(body, s, fail);
    }
  } else if (kind == "trace") {
    s.kind = Schedule::Kind::kTrace;
    if (!body.IsMap() || !body["file"]) {
      fail(body, "schedule trace: expected {file, format, loop}");
      return std::nullopt;
    }
    keys(body, {"file", "format", "loop", "bin"}, "schedule trace");
    const std::string file = body["file"].Scalar();
    s.trace_file = std::filesystem::path(file).is_absolute()
                       ? file
                       : (std::filesystem::path(profile_dir) / file).lexically_normal().string();
    const std::string format = body["format"] ? body["format"].Scalar() : "csv";
    s.loop = true;
    if (body["loop"]) {
      try {
        s.loop = body["loop"].as<bool>();
      } catch (const YAML::Exception&) {
        fail(body["loop"], "loop: expected true or false");
      }
    }
    // Mahimahi traces are per-millisecond; 100 ms bins keep shaper changes cheap while
    // following the trace's variation at the time scale TCP reacts on.
    int64_t bin_us = 100000;
    if (body["bin"]) {
      if (auto b = scalar(body["bin"], "bin", parse_duration))
        bin_us = std::max<int64_t>(b->us, 1000);
    }
    const size_t errors_before = trace_errors.size();
    if (format == "csv") {
      s.changes = load_csv_trace(s.trace_file, trace_errors);
      if (!s.changes.empty()) {
        // A looping CSV trace repeats after its last entry plus the interval before it.
        const auto& c = s.changes;
        s.period_us =
            c.back().at_us + (c.size() > 1 ? c.back().at_us - c[c.size() - 2].at_us : 1000000);
      }
    } else if (format == "mahimahi") {
      s.changes = load_mahimahi_trace(s.trace_file, bin_us, s.period_us, trace_errors);
    } else {
      fail(body["format"], "format: '" + format + "' must be 'csv' or 'mahimahi'");
    }
    // Every trace problem is also named where the profile refers to the trace: a file that
    // cannot be read there only (the trace has no position to give), errors inside it both
    // there and at their own line in the trace.
    // (`fail` may report into the same list, so the trace's own errors are taken out first.)
    std::vector<Diagnostic> own(trace_errors.begin() + static_cast<std::ptrdiff_t>(errors_before),
                                trace_errors.end());
    trace_errors.resize(errors_before);
    std::vector<Diagnostic> inside;
    for (auto& d : own) {
      if (d.line == 0) {
        fail(body["file"], "trace '" + s.trace_file + "': " + d.message);
      } else {
        inside.push_back(std::move(d));
      }
    }
    if (!inside.empty()) {
      fail(body["file"], "trace '" + s.trace_file + "' has " + std::to_string(inside.size()) +
                             " error" + (inside.size() == 1 ? "" : "s") +
                             " (listed at their lines)");
      trace_errors.insert(trace_errors.end(), inside.begin(), inside.end());
    }
  } else {
    fail(node.begin()->first,
         "schedule: unknown kind '" + kind + "' (use steps, random, trace or flap)");
  }
  if (!ok) return std::nullopt;
  return s;
}

}  // namespace testbed
