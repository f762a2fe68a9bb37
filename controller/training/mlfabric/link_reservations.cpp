#include "controller/training/mlfabric/link_reservations.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace testbed {
namespace {

constexpr double kUnshaped = std::numeric_limits<double>::infinity();
// Below this a link counts as full: a reservation leaves float dust behind (1 bit/s
// moves a 1 MB update in three months).
constexpr double kFullBitsPerS = 1.0;

}  // namespace

double LinkReservations::used_at(const Steps& steps, double at_s) {
  const auto after = steps.upper_bound(at_s);
  return after == steps.begin() ? 0.0 : std::prev(after)->second;
}

double LinkReservations::residual(size_t link, double at_s) const {
  const auto rate = rates_.find(link);
  if (rate == rates_.end()) return kUnshaped;
  const auto on = used_.find(link);
  return std::max(0.0, rate->second - (on == used_.end() ? 0.0 : used_at(on->second, at_s)));
}

size_t LinkReservations::reservations() const {
  size_t n = 0;
  for (const auto& [link, steps] : used_)
    for (const auto& [at, used] : steps) n += used > 0;
  return n;
}

void LinkReservations::add(size_t link, double from_s, double to_s, double bits_per_s) {
  Steps& steps = used_[link];
  for (double t : {from_s, to_s})
    if (!steps.count(t)) steps.emplace(t, used_at(steps, t));
  for (auto it = steps.find(from_s); it->first < to_s; ++it) it->second += bits_per_s;
  // Merge the steps around the change with equal neighbours: within a bit per second, what
  // a reservation leaves behind in float dust.
  auto it = steps.find(from_s);
  if (it != steps.begin()) --it;
  const auto last = std::next(steps.find(to_s));
  double before = it == steps.begin() ? 0.0 : std::prev(it)->second;
  while (it != last) {
    if (std::abs(it->second - before) < kFullBitsPerS) {
      it = steps.erase(it);
    } else {
      before = it->second;
      ++it;
    }
  }
}

std::vector<std::pair<double, double>> LinkReservations::bottleneck(const LinkPath& path,
                                                                    double from_s) const {
  std::vector<double> cuts{from_s};
  for (size_t link : path) {
    const auto on = used_.find(link);
    if (on == used_.end()) continue;
    for (auto it = on->second.upper_bound(from_s); it != on->second.end(); ++it)
      cuts.push_back(it->first);
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
  std::vector<std::pair<double, std::pair<double, double>>> taken;  // (from, (to, bits/s))
  const TransferTimes t = walk(path, bytes, from_s, [&](double from, double to, double b) {
    taken.push_back({from, {to, b}});
  });
  for (const auto& [from, rest] : taken)
    for (size_t link : path)
      if (rates_.count(link)) add(link, from, rest.first, rest.second);
  return t;
}

void LinkReservations::forget_before(double now_s) {
  for (auto it = used_.begin(); it != used_.end();) {
    Steps& steps = it->second;
    const double now = used_at(steps, now_s);
    steps.erase(steps.begin(), steps.upper_bound(now_s));
    if (now > 0) steps.emplace(now_s, now);
    it = steps.empty() ? used_.erase(it) : std::next(it);
  }
}

}  // namespace testbed
