// MLfabric's network state NW (Sec. 5.1, Fig. 4): each directed link's residual bandwidth
// over time, once earlier transfers have reserved their share. The two operations the
// paper's algorithms are built from:
//   t_en(g, NW)  when an update of `bytes` sent along `path` from `from_s` completes, its
//                bytes taking at every moment all the bandwidth the path's bottleneck
//                has left (Fig. 4b);
//   NetUp(NW, g) that transfer's reservation: the bottleneck's residual on every link of
//                the path, for as long as the transfer lasts (Fig. 4c).
// Times are seconds on the scheduler's clock. Pure, so the ordering is tested without a lab.
#pragma once

#include <cstddef>
#include <map>
#include <utility>
#include <vector>

namespace testbed {

// A path is its directed links, as indexes the caller assigns (one per lab direction).
using LinkPath = std::vector<size_t>;

// How a transfer uses its path: it starts when the bottleneck first has room and ends
// when its last byte is through.
struct TransferTimes {
  double start_s = 0;
  double end_s = 0;
};

class LinkReservations {
 public:
  // The links' rates now, bits per second; a link the map leaves out is unshaped
  // (never a bottleneck). A changed rate holds for the future of every reservation.
  void set_rates(std::map<size_t, double> bits_per_s) { rates_ = std::move(bits_per_s); }
  const std::map<size_t, double>& rates() const { return rates_; }

  // t_en: `bytes` along `path` from `from_s`. A path of unshaped links only, or no bytes,
  // completes at once.
  TransferTimes transfer(const LinkPath& path, double bytes, double from_s) const;
  // NetUp: reserves what transfer() would use, and returns its times.
  TransferTimes reserve(const LinkPath& path, double bytes, double from_s);
  // Forgets reservations that ended before `now_s` (they constrain nothing later).
  void forget_before(double now_s);

  double residual(size_t link, double at_s) const;  // never below 0
  size_t reservations() const;                      // stretches of a link with some reserved

 private:
  // One link's reservations as steps: from each time, the bits/s reserved until the next;
  // the last step is 0. Neighbours that reserve the same are merged, so a link a chain of
  // transfers keeps full is one step however many share it (replication re-plans every
  // punted update each batch: a list of reservations grew quadratically).
  using Steps = std::map<double, double>;
  static double used_at(const Steps& steps, double at_s);
  void add(size_t link, double from_s, double to_s, double bits_per_s);
  // The path's piecewise-constant bottleneck from `from_s` until every reservation has
  // ended: (segment start, residual) pairs, the last one lasting for ever.
  std::vector<std::pair<double, double>> bottleneck(const LinkPath& path, double from_s) const;
  // Walks the bottleneck, calling use(segment start, end, bits/s) for what the transfer takes.
  template <typename Use>
  TransferTimes walk(const LinkPath& path, double bytes, double from_s, Use use) const;

  std::map<size_t, double> rates_;
  std::map<size_t, Steps> used_;
};

}  // namespace testbed
