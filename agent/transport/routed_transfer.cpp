#include "agent/transport/routed_transfer.h"

#include <algorithm>
#include <stdexcept>

namespace testbed {

TransferMode transfer_mode_from(const std::string& name) {
  if (name == "model") return TransferMode::kModel;
  if (name == "native") return TransferMode::kNative;
  throw std::invalid_argument("unknown transfer mode '" + name + "' (known: model, native)");
}

void RoutedTransfer::configure(TransferMode mode, const std::vector<Route>& routes) {
  mode_ = mode;
  routes_.clear();
  for (const auto& r : routes) {
    if (r.nodes.size() < 2 || r.nodes.size() > kMaxRouteNodes)
      throw std::invalid_argument("a route needs 2 to " + std::to_string(kMaxRouteNodes) +
                                  " nodes");
    routes_[{r.nodes.front(), r.nodes.back()}] = r;
    Route back = r;
    std::reverse(back.nodes.begin(), back.nodes.end());
    routes_[{back.nodes.front(), back.nodes.back()}] = back;
  }
}

const Route* RoutedTransfer::route_of(int from, int to) const {
  const auto it = routes_.find({from, to});
  return it == routes_.end() ? nullptr : &it->second;
}

void RoutedTransfer::send(int dest, WireHeader h, const std::vector<uint32_t>& keys,
                          const std::vector<float>& values) {
  const Route* route = route_of(self_, dest);
  if (!route) return van_.send_kv(dest, h, keys, values);
  h.route_nodes = static_cast<uint8_t>(route->nodes.size());
  for (size_t i = 0; i < route->nodes.size(); ++i)
    h.route[i] = static_cast<int16_t>(route->nodes[i]);
  send_segments(route->nodes[1], h, keys, values,
                mode_ == TransferMode::kModel ? route->pace_bytes_per_s : 0);
}

void RoutedTransfer::send_segments(int next, WireHeader h, const std::vector<uint32_t>& keys,
                                   const std::vector<float>& values, double pace) {
  const size_t entries = std::max(keys.size(), values.size());
  const size_t entry_bytes = (keys.empty() ? 0 : 4) + (values.empty() ? 0 : 4);
  const size_t per_part = entry_bytes == 0 ? 1 : std::max<size_t>(1, kSegmentBytes / entry_bytes);
  const size_t parts = std::max<size_t>(1, (entries + per_part - 1) / per_part);
  h.parts = static_cast<uint32_t>(parts);
  const auto slice = [&](const auto& v, size_t i) {
    using V = std::decay_t<decltype(v)>;
    if (v.empty()) return V{};
    const size_t lo = std::min(v.size(), i * per_part), hi = std::min(v.size(), lo + per_part);
    return V(v.begin() + static_cast<std::ptrdiff_t>(lo),
             v.begin() + static_cast<std::ptrdiff_t>(hi));
  };
  Flow* flow = nullptr;
  if (pace > 0) {
    flow = &flows_[{h.origin, h.dest}];
    flow->pace_bytes_per_s = pace;
  }
  for (size_t i = 0; i < parts; ++i) {
    h.part = static_cast<uint32_t>(i);
    Segment s{next, h, slice(keys, i), slice(values, i)};
    if (!flow) {
      van_.send_kv(next, s.header, s.keys, s.values);
      continue;
    }
    // The segment occupies the hop for its bytes at the flow's rate: the next one may
    // start when that time is over (a token bucket of one segment's depth).
    const auto now = Clock::now();
    const auto due = std::max(now, flow->free_at);
    const double bytes = static_cast<double>((s.keys.size() + s.values.size()) * 4);
    flow->free_at = due + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(bytes / pace));
    flow->queue.emplace_back(due, std::move(s));
  }
  tick();
}

std::optional<Received> RoutedTransfer::receive(Received r) {
  const WireHeader& h = r.header;
  const bool relay = h.route_nodes >= 2 && h.dest != self_;
  if (relay && mode_ == TransferMode::kNative) {
    const int next = h.next_after(self_);
    if (next < 0) throw std::runtime_error("a routed message reached a node off its route");
    relayed_bytes_ += (r.keys.size() + r.values.size()) * 4;
    van_.send_kv(next, h, r.keys, r.values);
    return std::nullopt;
  }
  if (h.parts <= 1 && !relay) return r;
  // Collect the parts; on one path over one TCP connection per hop they come in order,
  // but the part index, not the order, places them.
  const MessageKey key{
      static_cast<uint8_t>(h.kind), h.origin, h.dest, h.chunk, h.iteration, h.flags};
  auto& parts = partial_[key];
  parts.push_back(std::move(r));
  if (parts.size() < parts.front().header.parts) return std::nullopt;
  std::sort(parts.begin(), parts.end(),
            [](const Received& a, const Received& b) { return a.header.part < b.header.part; });
  Received whole;
  whole.header = parts.back().header;
  whole.received_ns = parts.back().received_ns;  // when the message was complete
  for (const auto& p : parts) {
    whole.keys.insert(whole.keys.end(), p.keys.begin(), p.keys.end());
    whole.values.insert(whole.values.end(), p.values.begin(), p.values.end());
    whole.payload_bytes += p.payload_bytes;
  }
  partial_.erase(key);
  whole.header.part = 0;
  whole.header.parts = 1;
  if (!relay) return whole;
  // Store-and-forward (kModel): the whole message is here; on to the next hop, paced.
  const int next = whole.header.next_after(self_);
  if (next < 0) throw std::runtime_error("a routed message reached a node off its route");
  const Route* route = route_of(whole.header.origin, whole.header.dest);
  relayed_bytes_ += (whole.keys.size() + whole.values.size()) * 4;
  send_segments(next, whole.header, whole.keys, whole.values, route ? route->pace_bytes_per_s : 0);
  return std::nullopt;
}

void RoutedTransfer::tick() {
  const auto now = Clock::now();
  for (auto& [key, flow] : flows_) {
    while (!flow.queue.empty() && flow.queue.front().first <= now) {
      Segment& s = flow.queue.front().second;
      van_.send_kv(s.next, s.header, s.keys, s.values);
      flow.queue.pop_front();
    }
  }
}

std::chrono::milliseconds RoutedTransfer::timeout() const {
  using std::chrono::milliseconds;
  auto soonest = Clock::time_point::max();
  for (const auto& [key, flow] : flows_)
    if (!flow.queue.empty()) soonest = std::min(soonest, flow.queue.front().first);
  if (soonest == Clock::time_point::max()) return milliseconds(-1);
  const auto left = std::chrono::ceil<milliseconds>(soonest - Clock::now());
  return std::max(milliseconds(0), left);
}

}  // namespace testbed
