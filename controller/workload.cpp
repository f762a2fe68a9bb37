#include "workload.h"

#include <charconv>
#include <stdexcept>

#include "strategies.h"

namespace testbed {

const std::vector<ModelProfile>& model_profiles() {
  static const std::vector<ModelProfile> kModels = {
      {"resnet50", 23000000},   // 92 MB
      {"resnet152", 60000000},  // 240 MB
      {"alexnet", 64000000},    // 256 MB
      {"vgg16", 138000000},     // 552 MB
      {"mobilenet", 4200000},   // 17 MB
  };
  return kModels;
}

const ModelProfile& find_model(const std::string& name) {
  for (const auto& m : model_profiles()) {
    if (m.name == name) return m;
  }
  std::string known;
  for (const auto& m : model_profiles()) known += (known.empty() ? "" : ", ") + m.name;
  throw std::invalid_argument("unknown model '" + name + "' (known: " + known + ")");
}

namespace {

bool whole(const std::string& text, long long& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// SplitMix64's finalizer: a well-mixed hash of the inputs for the compute-time draw.
uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

ComputeRange parse_compute_range(const std::string& text) {
  const auto dash = text.find('-', 1);
  long long lo = 0, hi = 0;
  const bool ok = dash == std::string::npos
                      ? whole(text, lo) && (hi = lo, true)
                      : whole(text.substr(0, dash), lo) && whole(text.substr(dash + 1), hi);
  // A day bounds it: anything longer is a typo, not a compute time.
  constexpr long long kMaxMs = 86400000;
  if (!ok || lo < 0 || hi < lo || hi > kMaxMs) {
    throw std::invalid_argument("compute-ms: expected milliseconds, MS or MIN-MAX, got '" + text +
                                "'");
  }
  return {static_cast<int>(lo), static_cast<int>(hi)};
}

int draw_compute_ms(const ComputeRange& range, uint64_t seed, int node, uint64_t iteration) {
  if (range.max_ms == range.min_ms) return range.min_ms;
  const uint64_t h = mix(mix(seed ^ 0x636f6d70757465ULL) ^ mix(uint64_t(node) + 1) ^
                         mix(iteration + 0x9e3779b97f4a7c15ULL));
  const auto span = static_cast<uint64_t>(range.max_ms - range.min_ms) + 1;
  return range.min_ms + static_cast<int>(h % span);
}

const std::vector<std::string>& workload_keys() {
  static const std::vector<std::string> kKeys = {"strategy",   "model", "scale", "iterations",
                                                 "compute-ms", "chunk", "seed",  "update-time"};
  return kKeys;
}

std::string check_workload_setting(const std::string& key, const std::string& value) {
  long long n = 0;
  if (key == "strategy") {
    for (const auto& s : strategy_names())
      if (s == value) return "";
    std::string known;
    for (const auto& s : strategy_names()) known += (known.empty() ? "" : ", ") + s;
    return "unknown strategy '" + value + "' (known: " + known + ")";
  }
  if (key == "model") {
    if (value == "logreg") return "";
    try {
      find_model(value);
      return "";
    } catch (const std::invalid_argument& e) {
      return std::string(e.what()) + " or logreg";
    }
  }
  if (key == "iterations" || key == "chunk") {
    return whole(value, n) && n >= 1 && n <= 1000000000 ? "" : "expected a whole number from 1";
  }
  if (key == "seed") return whole(value, n) && n >= 0 ? "" : "expected a whole number";
  if (key == "scale" || key == "update-time") {
    // update-time 0 rebuilds the policy after every iteration; a scale of 0 is no model.
    const bool zero_ok = key == "update-time";
    const std::string expected = zero_ok ? "expected a number >= 0" : "expected a positive number";
    try {
      size_t used = 0;
      const double x = std::stod(value, &used);
      return used == value.size() && (x > 0 || (zero_ok && x == 0)) ? "" : expected;
    } catch (const std::exception&) {
      return expected;
    }
  }
  if (key == "compute-ms") {
    try {
      parse_compute_range(value);
      return "";
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
  }
  return "unknown workload setting";
}

}  // namespace testbed
