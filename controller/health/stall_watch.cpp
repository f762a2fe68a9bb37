#include "controller/health/stall_watch.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace testbed {
namespace {

constexpr uint8_t kEstablished = 1;  // include/net/tcp_states.h

double seconds_between(StallWatch::Clock::time_point a, StallWatch::Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

StallWatch::StallWatch(std::vector<std::string> names, std::vector<std::string> addresses,
                       uint16_t port, QueueReader read, Clock::time_point start, double stuck_after,
                       std::function<Clock::time_point()> clock)
    : names_(std::move(names)),
      addresses_(std::move(addresses)),
      port_(port),
      read_(std::move(read)),
      clock_(std::move(clock)),
      tables_(names_.size()),
      read_at_(names_.size()),
      start_(start),
      stuck_after_(stuck_after) {
  for (size_t n = 0; n < addresses_.size(); ++n) node_at_.emplace(addresses_[n], n);
}

std::vector<bool> StallWatch::read_some(Clock::time_point now) {
  std::vector<bool> fresh(names_.size(), false);
  const auto began = clock_();
  for (size_t k = 0; k < names_.size(); ++k) {
    const size_t n = cursor_;
    cursor_ = (cursor_ + 1) % names_.size();
    tables_[n] = read_(n);
    read_at_[n] = now;
    fresh[n] = true;
    if (clock_() - began >= kReadBudget) break;
  }
  return fresh;
}

std::vector<StuckPair> StallWatch::sample(Clock::time_point now) {
  const auto node_of = [&](const std::string& address) {
    const auto it = node_at_.find(address);
    return it == node_at_.end() ? names_.size() : it->second;
  };
  const std::vector<bool> fresh = read_some(now);
  std::map<std::pair<size_t, size_t>, uint64_t> sent, unread;
  // Pairs with a connection in loss recovery: a timeout fired, or zero-window probes went
  // out, since the last acknowledgement that moved. A queue that holds the same bytes at
  // every look without that is flowing (delayed acks behind small messages keep a few
  // hundred bytes queued whenever a look falls), not stuck.
  std::set<std::pair<size_t, size_t>> recovering;
  for (size_t n = 0; n < names_.size(); ++n) {
    for (const auto& s : tables_[n]) {
      if (s.state != kEstablished) continue;
      // n's connection to a peer's agent: what n sent that the peer has not acknowledged.
      if (s.local_address == addresses_[n] && s.remote_port == port_) {
        const size_t to = node_of(s.remote_address);
        if (to < names_.size() && to != n) {
          sent[{n, to}] += s.tx_queue;
          if (s.tx_queue > 0 && (s.retransmits > 0 || s.probes > 0)) recovering.insert({n, to});
        }
      }
      // A peer's connection to n's agent: what arrived that n's agent has not read.
      if (s.local_address == addresses_[n] && s.local_port == port_) {
        const size_t from = node_of(s.remote_address);
        if (from < names_.size() && from != n) unread[{from, n}] += s.rx_queue;
      }
    }
  }
  // A queue is looked at when its sender's table is read, and unchanged from the read it
  // last changed at to the sender's last read.
  for (auto& [pair, q] : queues_)
    if (fresh[pair.first] && !sent.count(pair)) sent[pair] = 0;  // a connection gone: empty
  for (const auto& [pair, bytes] : sent) {
    if (!fresh[pair.first]) continue;
    auto [it, added] = queues_.try_emplace(pair, Queue{bytes, now});
    if (!added && it->second.bytes != bytes) it->second = {bytes, now};
  }
  std::vector<StuckPair> stuck;
  for (const auto& [pair, q] : queues_) {
    const double still = seconds_between(q.changed, read_at_[pair.first]);
    if (q.bytes > 0 && still >= stuck_after_ && recovering.count(pair))
      stuck.push_back({names_[pair.first], names_[pair.second], q.bytes, unread[pair], still});
  }
  return stuck;
}

std::optional<StallEpisode> StallWatch::poll(Clock::time_point now) {
  if (last_sample_ != Clock::time_point{} && seconds_between(last_sample_, now) < kSampleEvery)
    return std::nullopt;
  last_sample_ = now;
  const auto stuck = sample(now);
  if (!stuck.empty()) last_stuck_ = now;
  if (stuck.empty()) {
    // A stall ends when nothing has been stuck for twice what makes one: a link of a few
    // bits per second lets a segment through now and then, which unsticks its queue for
    // exactly stuck_after_ before it is stuck again; it is still stalled.
    if (stalled() && seconds_between(last_stuck_, now) >= 2 * stuck_after_) {
      episodes_.back().ongoing = false;
      episodes_.back().seconds = seconds_between(start_, last_stuck_) - episodes_.back().started_s;
    }
    return std::nullopt;
  }
  const double longest = std::max_element(stuck.begin(), stuck.end(), [](auto& a, auto& b) {
                           return a.seconds < b.seconds;
                         })->seconds;
  const bool begins = !stalled();
  if (begins) episodes_.push_back({seconds_between(start_, now) - longest, 0, true, {}});
  StallEpisode& e = episodes_.back();
  e.seconds = seconds_between(start_, now) - e.started_s;
  if (stuck.size() >= e.pairs.size()) e.pairs = stuck;
  if (begins) return e;
  return std::nullopt;
}

nlohmann::json StallWatch::to_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : episodes_) {
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& p : e.pairs)
      pairs.push_back({{"from", p.from},
                       {"to", p.to},
                       {"queued_bytes", p.queued_bytes},
                       {"unread_bytes", p.unread_bytes},
                       {"cause", p.cause()}});
    out.push_back({{"started_s", e.started_s},
                   {"seconds", e.seconds},
                   {"ongoing", e.ongoing},
                   {"stuck_after_s", stuck_after_},
                   {"pairs", pairs}});
  }
  return out;
}

std::string describe(const std::vector<StuckPair>& pairs) {
  std::string out;
  for (const auto& p : pairs) {
    char line[256];
    std::snprintf(line, sizeof line, "%s%s -> %s: %.2f MB not acknowledged for %.0f s (%s)",
                  out.empty() ? "" : "; ", p.from.c_str(), p.to.c_str(),
                  static_cast<double>(p.queued_bytes) / 1e6, p.seconds,
                  p.cause() == "link" ? "the link delivers nothing"
                                      : "delivered, but the receiving node does not read");
    out += line;
  }
  return out;
}

}  // namespace testbed
