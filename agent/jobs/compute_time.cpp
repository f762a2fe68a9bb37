#include "agent/jobs/compute_time.h"

#include <charconv>
#include <stdexcept>

#include "agent/jobs/seeded.h"

namespace testbed {
namespace {

bool whole(const std::string& text, long long& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
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

Stragglers parse_stragglers(const std::string& text) {
  const auto colon = text.find(':');
  const std::string bad = "stragglers: expected SHARE:FACTOR, e.g. 10%:2, got '" + text + "'";
  if (colon == std::string::npos) throw std::invalid_argument(bad);
  std::string share = text.substr(0, colon);
  const bool percent = !share.empty() && share.back() == '%';
  if (percent) share.pop_back();
  Stragglers s;
  size_t used_share = 0, used_factor = 0;
  try {
    s.share = std::stod(share, &used_share) / (percent ? 100 : 1);
    s.factor = std::stod(text.substr(colon + 1), &used_factor);
  } catch (const std::exception&) {
    throw std::invalid_argument(bad);
  }
  if (used_share != share.size() || used_factor != text.size() - colon - 1)
    throw std::invalid_argument(bad);
  // A factor past 1000 is a typo, as a compute time past a day is.
  if (!(s.share >= 0 && s.share <= 1) || !(s.factor >= 1 && s.factor <= 1000))
    throw std::invalid_argument(
        "stragglers: the share must be 0-100% and the factor 1-1000, got '" + text + "'");
  return s;
}

bool draw_straggler(const Stragglers& s, uint64_t seed, int node, uint64_t iteration) {
  if (s.share <= 0) return false;
  return hashed_uniform(hash3(seed ^ 0x737472616767ULL, static_cast<uint64_t>(node), iteration)) <
         s.share;
}

int draw_compute_ms(const ComputeRange& range, uint64_t seed, int node, uint64_t iteration) {
  if (range.max_ms == range.min_ms) return range.min_ms;
  // The same hash as before the draw moved here, so runs of a seed keep their timings.
  const uint64_t h = mix64(mix64(seed ^ 0x636f6d70757465ULL) ^ mix64(uint64_t(node) + 1) ^
                           mix64(iteration + 0x9e3779b97f4a7c15ULL));
  const auto span = static_cast<uint64_t>(range.max_ms - range.min_ms) + 1;
  return range.min_ms + static_cast<int>(h % span);
}

}  // namespace testbed
