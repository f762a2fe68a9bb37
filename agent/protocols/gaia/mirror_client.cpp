#include "mirror_client.h"

namespace testbed {
namespace {

// What a data message costs on the wire: its header, then a key and a value each, or
// every value when dense.
size_t message_bytes(size_t keys, size_t dense_values) {
  return sizeof(WireHeader) +
         (dense_values ? dense_values * sizeof(float) : keys * (sizeof(uint32_t) + sizeof(float)));
}

}  // namespace

MirrorClient::MirrorClient(Van& van, int self, size_t parameters, std::vector<MirrorLink> mirrors)
    : van_(van), self_(self), parameters_(parameters) {
  for (const auto& m : mirrors) {
    Link l;
    l.config = m;
    links_.push_back(std::move(l));
  }
}

void MirrorClient::send_control(int node, WireKind kind, uint64_t iteration, uint64_t tag,
                                const std::vector<uint32_t>& keys) {
  WireHeader h;
  h.kind = kind;
  h.origin = self_;
  h.dest = node;
  h.iteration = iteration;
  h.tag = tag;
  if (dense(keys.size())) {  // a barrier on most keys bars them all: no index list
    h.flags = kDense;
    van_.send_kv(node, h, {}, {});
    counts_.control_bytes += sizeof(WireHeader);
    return;
  }
  van_.send_kv(node, h, keys, {});
  counts_.control_bytes += sizeof(WireHeader) + keys.size() * sizeof(uint32_t);
}

void MirrorClient::update(const Significant& s, uint64_t clock) {
  if (s.keys.empty()) return;
  for (auto& l : links_) {
    pump(l, false);  // acks since the last clock may have opened the window
    if (l.waiting.empty())
      l.waiting_seq = l.next_seq++;
    else
      counts_.merged += s.keys.size();
    for (size_t i = 0; i < s.keys.size(); ++i) l.waiting[s.keys[i]] += s.deltas[i];
    l.waiting_clock = clock;
    pump(l, false);
    if (!l.waiting.empty()) {
      // The WAN is behind: the indexes go first, and the mirror's readers wait for them.
      send_control(l.config.node, WireKind::kMirrorBarrier, clock, l.waiting_seq, s.keys);
      ++counts_.barriers;
      counts_.barrier_keys += s.keys.size();
    }
  }
}

void MirrorClient::pump(Link& l, bool force) {
  if (l.waiting.empty()) return;
  const bool whole = dense(l.waiting.size());
  const size_t bytes = message_bytes(l.waiting.size(), whole ? parameters_ : 0);
  // A message larger than the window still goes when nothing is in flight.
  if (!force && l.in_flight_bytes > 0 && l.in_flight_bytes + bytes > l.config.window_bytes) return;
  WireHeader h;
  h.kind = WireKind::kMirrorUpdate;
  h.origin = self_;
  h.dest = l.config.node;
  h.iteration = l.waiting_clock;
  h.tag = l.waiting_seq;
  std::vector<uint32_t> keys;
  std::vector<float> deltas;
  if (whole) {
    h.flags = kDense;
    deltas.assign(parameters_, 0.0f);
    for (const auto& [k, d] : l.waiting) deltas[k] = d;
  } else {
    keys.reserve(l.waiting.size());
    deltas.reserve(l.waiting.size());
    for (const auto& [k, d] : l.waiting) {
      keys.push_back(k);
      deltas.push_back(d);
    }
  }
  van_.send_kv(l.config.node, h, keys, deltas);
  l.in_flight[l.waiting_seq] = bytes;
  l.in_flight_bytes += bytes;
  l.waiting.clear();
  ++counts_.data_messages;
  counts_.data_bytes += bytes;
}

void MirrorClient::clock(uint64_t clocks) {
  for (const auto& l : links_) send_control(l.config.node, WireKind::kMirrorClock, clocks, 0, {});
}

void MirrorClient::acked(int node, uint64_t seq) {
  for (auto& l : links_) {
    if (l.config.node != node) continue;
    const auto it = l.in_flight.find(seq);
    if (it == l.in_flight.end()) return;
    l.in_flight_bytes -= it->second;
    l.in_flight.erase(it);
    pump(l, false);
  }
}

void MirrorClient::flush() {
  for (auto& l : links_) pump(l, true);
}

bool MirrorClient::idle() const {
  for (const auto& l : links_)
    if (!l.waiting.empty()) return false;
  return true;
}

}  // namespace testbed
