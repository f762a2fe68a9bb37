#include "agent/protocols/gaia/mirror_client.h"

#include "agent/protocols/gaia/key_bitmap.h"

namespace testbed {
namespace {

// What a data message costs on the wire: its header, then a key and a value each, or
// every value when dense.
size_t message_bytes(size_t keys, size_t dense_values) {
  return sizeof(WireHeader) +
         (dense_values ? dense_values * sizeof(float) : keys * (sizeof(uint32_t) + sizeof(float)));
}

}  // namespace

MirrorClient::MirrorClient(Van& van, int self, size_t parameters, std::vector<MirrorLink> mirrors,
                           std::vector<int> clock_to)
    : van_(van), self_(self), parameters_(parameters), clock_to_(std::move(clock_to)) {
  for (const auto& m : mirrors) {
    Link l;
    l.config = m;
    links_.push_back(std::move(l));
  }
}

void MirrorClient::send_control(int node, WireKind kind, uint64_t iteration, uint64_t tag,
                                const std::vector<uint32_t>& keys, bool all_keys) {
  WireHeader h;
  h.kind = kind;
  h.origin = self_;
  h.dest = node;
  h.iteration = iteration;
  h.tag = tag;
  if (all_keys || dense(keys.size())) {  // a barrier on most keys bars them all: no index list
    h.flags = kDense;
    van_.send_kv(node, h, {}, {});
    counts_.control_bytes += sizeof(WireHeader);
    return;
  }
  if (bitmap_is_shorter(keys.size(), parameters_)) {
    h.flags = kKeyBitmap;
    const auto words = to_bitmap(keys, parameters_);
    van_.send_kv(node, h, words, {});
    counts_.control_bytes += sizeof(WireHeader) + words.size() * sizeof(uint32_t);
    return;
  }
  van_.send_kv(node, h, keys, {});
  counts_.control_bytes += sizeof(WireHeader) + keys.size() * sizeof(uint32_t);
}

void MirrorClient::update(const Significant& s, uint64_t clock, Reach reach, Lane lane) {
  if (s.keys.empty()) return;
  for (auto& l : links_) {
    if (l.config.hub != (reach == Reach::kHubs)) continue;
    pump(l, false);  // acks since the last clock may have opened the window
    Waiting& w = l.waiting[static_cast<size_t>(lane)];
    if (w.deltas.empty())
      w.seq = l.next_seq++;
    else
      counts_.merged += s.keys.size();
    // Every key already waiting was named by a barrier for this same message (w.seq) when it
    // was left waiting, and stays barred at the mirror until that message arrives, merged
    // updates and all: naming it again only adds bytes to a link that is already behind.
    std::vector<uint32_t> unnamed;
    for (size_t i = 0; i < s.keys.size(); ++i) {
      const auto [it, added] = w.deltas.try_emplace(s.keys[i], 0.0f);
      it->second += s.deltas[i];
      if (added) unnamed.push_back(s.keys[i]);
    }
    w.clock = clock;
    pump(l, false);
    if (w.deltas.empty() || w.barred_all || unnamed.empty()) continue;
    // The WAN is behind: the indexes go first, and the mirror's readers wait for them.
    bar(l, w, clock, unnamed);
  }
}

void MirrorClient::bar(Link& l, Waiting& w, uint64_t clock, const std::vector<uint32_t>& keys) {
  // Named when the mirror is heard again (set_cut), with everything then waiting.
  if (is_cut(l.config.node)) {
    ++counts_.control_held;
    return;
  }
  // Once the message names most keys, one header bars them all (send_control), and whatever
  // merges into it later needs no barrier.
  w.barred_all = dense(w.deltas.size());
  send_control(l.config.node, WireKind::kMirrorBarrier, clock, w.seq, keys, w.barred_all);
  ++counts_.barriers;
  counts_.barrier_keys += w.barred_all ? parameters_ : keys.size();
}

// Sends what waits, in the order of its sequence numbers, while the window allows.
void MirrorClient::pump(Link& l, bool force) {
  for (;;) {
    Waiting* next = nullptr;
    for (auto& w : l.waiting)
      if (!w.deltas.empty() && (!next || w.seq < next->seq)) next = &w;
    if (!next) return;
    const size_t keys = next->deltas.size();
    const size_t bytes = message_bytes(keys, dense(keys) ? parameters_ : 0);
    // A message larger than the window still goes when nothing is in flight.
    if (!force && l.in_flight_bytes > 0 && l.in_flight_bytes + bytes > l.config.window_bytes)
      return;
    send(l, next == &l.waiting[0] ? Lane::kOwnGroup : Lane::kRelayed);
  }
}

void MirrorClient::send(Link& l, Lane lane) {
  Waiting& w = l.waiting[static_cast<size_t>(lane)];
  const bool whole = dense(w.deltas.size());
  const size_t bytes = message_bytes(w.deltas.size(), whole ? parameters_ : 0);
  WireHeader h;
  h.kind = WireKind::kMirrorUpdate;
  h.origin = self_;
  h.dest = l.config.node;
  h.iteration = w.clock;
  h.tag = w.seq;
  if (lane == Lane::kRelayed) h.flags |= kRelayed;
  std::vector<uint32_t> keys;
  std::vector<float> deltas;
  if (whole) {
    h.flags |= kDense;
    deltas.assign(parameters_, 0.0f);
    for (const auto& [k, d] : w.deltas) deltas[k] = d;
  } else {
    keys.reserve(w.deltas.size());
    deltas.reserve(w.deltas.size());
    for (const auto& [k, d] : w.deltas) {
      keys.push_back(k);
      deltas.push_back(d);
    }
  }
  van_.send_kv(l.config.node, h, keys, deltas);
  w.barred_all = false;
  l.in_flight[w.seq] = bytes;
  l.in_flight_bytes += bytes;
  w.deltas.clear();
  ++counts_.data_messages;
  counts_.data_bytes += bytes;
  if (l.config.hub) counts_.hub_bytes += bytes;
  if (lane == Lane::kRelayed) counts_.relayed_bytes += bytes;
}

void MirrorClient::clock(uint64_t clocks) {
  for (int node : clock_to_) {
    if (is_cut(node))
      ++counts_.control_held;  // the heartbeat carries it, and set_cut when heard again
    else
      send_control(node, WireKind::kMirrorClock, clocks, 0, {});
  }
}

void MirrorClient::heartbeat(uint64_t clocks) {
  for (int node : clock_to_) {
    WireHeader h;
    h.kind = WireKind::kMirrorClock;
    h.origin = self_;
    h.dest = node;
    h.iteration = clocks;
    if (van_.try_send_header(node, h)) {
      ++counts_.heartbeats;
      counts_.control_bytes += sizeof(WireHeader);
    } else {
      ++counts_.heartbeats_dropped;
    }
  }
}

void MirrorClient::set_cut(int node, bool cut, uint64_t clocks) {
  if (cut) {
    cut_.insert(node);
    return;
  }
  if (cut_.erase(node) == 0) return;
  // It lifted every barrier of ours when it presumed us cut off (or will, having missed
  // our heartbeats): what waits for it is named again, whole, and it learns our clock.
  send_control(node, WireKind::kMirrorClock, clocks, 0, {});
  for (auto& l : links_) {
    if (l.config.node != node) continue;
    for (auto& w : l.waiting) {
      if (w.deltas.empty()) continue;
      std::vector<uint32_t> keys;
      keys.reserve(w.deltas.size());
      for (const auto& [k, d] : w.deltas) keys.push_back(k);
      bar(l, w, w.clock, keys);
    }
  }
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
    for (const auto& w : l.waiting)
      if (!w.deltas.empty()) return false;
  return true;
}

uint64_t MirrorClient::waiting_keys() const {
  uint64_t n = 0;
  for (const auto& l : links_)
    for (const auto& w : l.waiting) n += w.deltas.size();
  return n;
}

}  // namespace testbed
