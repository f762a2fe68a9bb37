#include "link_reservations.h"

#include <algorithm>
#include <limits>

namespace testbed {
namespace {

constexpr double kUnshaped = std::numeric_limits<double>::infinity();
// Below this a link counts as full: a reservation leaves float dust behind (1 bit/s
// moves a 1 MB update in three months).
constexpr double kFullBitsPerS = 1.0;

}  // namespace

double LinkReservations::residual(size_t link, double at_s) const {
  const auto rate = rates_.find(link);
  if (rate == rates_.end()) return kUnshaped;
  double left = rate->second;
  for (const auto& r : reserved_)
    if (r.link == link && r.from_s <= at_s && at_s < r.to_s) left -= r.bits_per_s;
  return std::max(0.0, left);
}

std::vector<std::pair<double, double>> LinkReservations::bottleneck(const LinkPath& path,
                                                                    double from_s) const {
  std::vector<double> cuts{from_s};
  for (const auto& r : reserved_) {
    if (std::find(path.begin(), path.end(), r.link) == path.end()) continue;
    if (r.from_s > from_s) cuts.push_back(r.from_s);
    if (r.to_s > from_s) cuts.push_back(r.to_s);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<std::pair<double, double>> out;
  for (double t : cuts) {
    double b = kUnshaped;
    for (size_t link : path) b = std::min(b, residual(link, t));
    out.emplace_back(t, b);
  }
  return out;
}

template <typename Use>
TransferTimes LinkReservations::walk(const LinkPath& path, double bytes, double from_s,
                                     Use use) const {
  const auto segments = bottleneck(path, from_s);
  double bits = bytes * 8;
  TransferTimes t{from_s, from_s};
  bool started = false;
  for (size_t i = 0; i < segments.size(); ++i) {
    const auto [at, b] = segments[i];
    const double until = i + 1 < segments.size() ? segments[i + 1].first : kUnshaped;
    if (b < kFullBitsPerS) {
      if (until == kUnshaped) return {started ? t.start_s : at, kUnshaped};  // a dead link
      continue;
    }
    if (!started) t.start_s = at;
    started = true;
    if (b == kUnshaped || bits <= b * (until - at)) {
      t.end_s = b == kUnshaped ? at : at + bits / b;
      if (b != kUnshaped && bits > 0) use(at, t.end_s, b);
      return t;
    }
    use(at, until, b);
    bits -= b * (until - at);
  }
  return t;  // no segments: cannot happen, from_s is always one
}

TransferTimes LinkReservations::transfer(const LinkPath& path, double bytes, double from_s) const {
  return walk(path, bytes, from_s, [](double, double, double) {});
}

TransferTimes LinkReservations::reserve(const LinkPath& path, double bytes, double from_s) {
  std::vector<Reservation> taken;
  const TransferTimes t = walk(path, bytes, from_s, [&](double from, double to, double b) {
    for (size_t link : path)
      if (rates_.count(link)) taken.push_back({link, from, to, b});
  });
  reserved_.insert(reserved_.end(), taken.begin(), taken.end());
  return t;
}

void LinkReservations::forget_before(double now_s) {
  std::erase_if(reserved_, [&](const Reservation& r) { return r.to_s <= now_s; });
}

}  // namespace testbed
