#include "agent/protocols/gaia/mirror_watch.h"

#include <algorithm>

namespace testbed {

namespace {
double seconds(MirrorWatch::Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}
}  // namespace

MirrorWatch::MirrorWatch(std::map<int, std::chrono::milliseconds> silence, Clock::time_point now)
    : next_heartbeat_(now) {
  for (const auto& [node, bound] : silence) {
    Mirror m;
    m.silence = bound;
    m.last_heard = now;  // a mirror starts heard: the run began together
    mirrors_[node] = m;
  }
}

void MirrorWatch::start(Clock::time_point now) {
  next_heartbeat_ = now;
  for (auto& [node, m] : mirrors_) {
    m.last_heard = now;
    m.longest_silence_s = 0;
  }
}

bool MirrorWatch::heard(int node, Clock::time_point now) {
  const auto it = mirrors_.find(node);
  if (it == mirrors_.end()) return false;  // not a mirror: nothing to watch
  Mirror& m = it->second;
  const bool was_cut = m.cut;
  if (was_cut) {
    m.cut = false;
    m.cut_s += seconds(now - m.cut_since);
  } else {
    m.longest_silence_s = std::max(m.longest_silence_s, seconds(now - m.last_heard));
  }
  m.last_heard = now;
  return was_cut;
}

std::vector<int> MirrorWatch::expired(Clock::time_point now) {
  std::vector<int> out;
  for (auto& [node, m] : mirrors_) {
    if (m.cut || now - m.last_heard <= m.silence) continue;
    m.longest_silence_s = std::max(m.longest_silence_s, seconds(now - m.last_heard));
    m.cut = true;
    m.cut_since = now;
    ++m.cuts;
    out.push_back(node);
  }
  return out;
}

bool MirrorWatch::heartbeat_due(Clock::time_point now) {
  if (now < next_heartbeat_) return false;
  // From now, not from when it was due: a process held up (paused, overloaded) sends one
  // heartbeat when it resumes, not the ones it missed.
  next_heartbeat_ = now + kHeartbeat;
  return true;
}

MirrorWatch::Clock::time_point MirrorWatch::next_deadline() const {
  Clock::time_point next = next_heartbeat_;
  for (const auto& [node, m] : mirrors_)
    if (!m.cut) next = std::min(next, m.last_heard + m.silence + std::chrono::milliseconds(1));
  return next;
}

bool MirrorWatch::cut(int node) const {
  const auto it = mirrors_.find(node);
  return it != mirrors_.end() && it->second.cut;
}

std::map<uint64_t, GaiaMirrorView> MirrorWatch::views(Clock::time_point now) const {
  std::map<uint64_t, GaiaMirrorView> out;
  for (const auto& [node, m] : mirrors_) {
    const double cut_s = m.cut_s + (m.cut ? seconds(now - m.cut_since) : 0.0);
    out[static_cast<uint64_t>(node)] = {seconds(m.silence), m.longest_silence_s, m.cuts, cut_s,
                                        m.cut};
  }
  return out;
}

}  // namespace testbed
