#include "netns/lateness_histogram.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace testbed {

int LatenessHistogram::bucket_of(int64_t lateness_us) {
  if (lateness_us <= 0) return 0;
  const int b = static_cast<int>(std::floor(4 * std::log2(static_cast<double>(lateness_us) + 1)));
  return std::min(b, kBuckets - 1);
}

int64_t LatenessHistogram::upper_bound_us(int bucket) {
  // The largest integer L with L + 1 < 2^((bucket + 1) / 4), the bucket's upper edge.
  return static_cast<int64_t>(std::ceil(std::exp2((bucket + 1) / 4.0) - 1)) - 1;
}

void LatenessHistogram::add(int64_t lateness_us) {
  ++counts_[bucket_of(lateness_us)];
  max_us_ = std::max(max_us_, lateness_us);
}

uint64_t LatenessHistogram::count() const {
  uint64_t n = 0;
  for (uint64_t c : counts_) n += c;
  return n;
}

int64_t LatenessHistogram::quantile_us(double q) const {
  const uint64_t n = count();
  if (n == 0) return 0;
  // The smallest bucket whose cumulative count reaches ceil(q n): the nearest-rank rule.
  const auto rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * n)));
  uint64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += counts_[b];
    if (seen >= rank) return std::min(upper_bound_us(b), max_us_);
  }
  return max_us_;
}

LatenessHistogram LatenessHistogram::since(const LatenessHistogram& earlier) const {
  LatenessHistogram d;
  for (int b = 0; b < kBuckets; ++b)
    d.counts_[b] = counts_[b] >= earlier.counts_[b] ? counts_[b] - earlier.counts_[b] : 0;
  d.max_us_ = max_since(earlier);
  return d;
}

int64_t LatenessHistogram::max_since(const LatenessHistogram& earlier) const {
  if (max_us_ > earlier.max_us_) return max_us_;
  for (int b = kBuckets - 1; b >= 0; --b) {
    if (counts_[b] > earlier.counts_[b]) return std::min(upper_bound_us(b), max_us_);
  }
  return 0;
}

void LatenessHistogram::merge(const LatenessHistogram& other) {
  for (int b = 0; b < kBuckets; ++b) counts_[b] += other.counts_[b];
  max_us_ = std::max(max_us_, other.max_us_);
}

std::string LatenessHistogram::format() const {
  std::ostringstream out;
  for (int b = 0; b < kBuckets; ++b) {
    if (counts_[b]) out << b << ':' << counts_[b] << ' ';
  }
  out << "max:" << max_us_;
  return out.str();
}

LatenessHistogram LatenessHistogram::parse(const std::string& text) {
  LatenessHistogram h;
  std::istringstream in(text);
  for (std::string item; in >> item;) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos) throw std::invalid_argument("lateness item '" + item + "'");
    const std::string key = item.substr(0, colon);
    const std::string value = item.substr(colon + 1);
    if (key == "max") {
      h.max_us_ = std::stoll(value);
      continue;
    }
    const int b = std::stoi(key);
    if (b < 0 || b >= kBuckets) throw std::invalid_argument("lateness bucket " + key);
    h.counts_[b] = std::stoull(value);
  }
  return h;
}

}  // namespace testbed
