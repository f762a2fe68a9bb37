#include "controller/launch/hosts_launch.h"

#include <algorithm>
#include <set>
#include <zmq_addon.hpp>

#include "controller/training/remote_hosts.h"

namespace testbed {
namespace {

// The largest message a host sends is a "lines" message: 64 lines of at most 64 KiB, each
// escaped at worst to six bytes per byte (24 MiB). 64 MiB, as for a run's events
// (agent_group.cpp), refuses a declared gigabyte before it is allocated.
constexpr int64_t kHostMessageBound = int64_t{64} << 20;
// Messages queued unread per host: seconds of a chatty job's lines at kLinesPerMessage each.
constexpr int kHostMessagesQueued = 1000;
// The last words (stop, quit) must reach the hosts before this process ends; an unreachable
// host holds the end of a job for two seconds at most, as for a run.
constexpr int kLingerMs = 2000;

bool same_ranks(std::vector<int> a, std::vector<int> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

}  // namespace

HostsLaunch::HostsLaunch(zmq::context_t& context, Setting setting, OnLine on_line)
    : setting_(std::move(setting)),
      on_line_(std::move(on_line)),
      router_(context, zmq::socket_type::router) {
  router_.set(zmq::sockopt::linger, kLingerMs);
  router_.set(zmq::sockopt::maxmsgsize, kHostMessageBound);
  router_.set(zmq::sockopt::rcvhwm, kHostMessagesQueued);
  gate_ = std::make_unique<CurveGate>(context, router_, setting_.own, setting_.admitted);
  router_.bind(setting_.endpoint);
  for (const auto& [host, ranks] : setting_.ranks_of_host) hosts_[host];
}

HostsLaunch::~HostsLaunch() {
  gate_.reset();  // it watches router_: stopped first
}

void HostsLaunch::send(const std::string& host, const nlohmann::json& message) {
  router_.send(zmq::buffer("host/" + host), zmq::send_flags::sndmore);
  router_.send(zmq::buffer(message.dump()), zmq::send_flags::dontwait);
}

void HostsLaunch::poll(std::chrono::milliseconds wait) {
  zmq::pollitem_t item{router_.handle(), 0, ZMQ_POLLIN, 0};
  // The C call: a signal (Ctrl-C) ends the wait with -1 (EINTR), where cppzmq's would throw.
  if (zmq_poll(&item, 1, static_cast<long>(wait.count())) > 0) {
    std::vector<zmq::message_t> frames;
    while (true) {
      frames.clear();
      if (!zmq::recv_multipart(router_, std::back_inserter(frames), zmq::recv_flags::dontwait))
        break;
      // The host CURVE proved for this connection, which must be the routing id's.
      std::string proven;
      try {
        const char* user = frames.size() == 2 ? frames[1].gets("User-Id") : nullptr;
        proven = user ? user : "";
      } catch (const zmq::error_t&) {
      }
      const std::string id = frames.empty() ? "" : frames[0].to_string();
      if (proven.empty() || id != "host/" + proven || !hosts_.count(proven)) {
        ++malformed_;
        continue;
      }
      const auto message = nlohmann::json::parse(frames[1].to_string(), nullptr, false);
      hear(proven, message);
    }
  }
  const auto now = Clock::now();
  for (auto& [host, h] : hosts_) {
    if (done_.count(host) || lost_.count(host)) continue;
    const bool silent = h.heard ? now - *h.heard >= kHostSilence : now - opened_ >= kFirstContact;
    if (!silent) continue;
    lost_[host] =
        h.heard ? "host " + host + " went silent for " + std::to_string(kHostSilence.count()) + " s"
                : "host " + host + "'s `testbed agents` never connected";
    if (failure_.empty()) {
      failure_ = lost_[host];
      failed_host_ = host;
    }
  }
}

void HostsLaunch::hear(const std::string& host, const nlohmann::json& message) {
  Host& h = hosts_[host];
  const auto event = message.is_object() ? message.find("event") : message.end();
  if (!message.is_object() || event == message.end() || !event->is_string()) {
    ++malformed_;
    return;
  }
  h.heard = Clock::now();
  try {
    if (*event == "beat") {
      if (h.stopped && !h.started) {  // the job stopped before this host joined
        send(host, {{"cmd", "quit"}});
        return;
      }
      if (h.started) {
        send(host, {{"cmd", "beat"}});
        return;
      }
      LaunchCommand command = setting_.command;
      command.ranks = setting_.ranks_of_host.at(host);
      send(host, to_json(command));
      h.started = true;
    } else if (*event == "lines") {
      const HostLines lines = host_lines_from_json(message, setting_.world_size);
      const auto& mine = setting_.ranks_of_host.at(host);
      h.dropped = lines.dropped;
      for (const auto& line : lines.lines) {
        if (std::find(mine.begin(), mine.end(), line.rank) == mine.end()) {
          ++malformed_;  // another host's rank: never this host's to speak for
          continue;
        }
        on_line_(host, line);
      }
    } else if (*event == "ranks_done") {
      HostRanksDone d = host_ranks_done_from_json(message, setting_.world_size);
      if (d.error.empty() && !same_ranks(d.ranks, setting_.ranks_of_host.at(host)))
        throw MalformedMessage("the outcome of ranks that are not the host's");
      if (done_.count(host)) throw MalformedMessage("a second outcome");
      if (failure_.empty() && d.status != "completed" && !h.stopped) {
        failure_ = d.error.empty() ? "a rank on host " + host + " " + d.status
                                   : "host " + host + ": " + d.error;
        failed_rank_ = d.failed_rank;
        failed_host_ = host;
      }
      done_[host] = std::move(d);
    } else {
      ++malformed_;
    }
  } catch (const MalformedMessage&) {
    ++malformed_;
  }
}

bool HostsLaunch::all_started() const {
  return std::all_of(hosts_.begin(), hosts_.end(), [](const auto& h) { return h.second.started; });
}

bool HostsLaunch::all_done() const {
  return std::all_of(hosts_.begin(), hosts_.end(), [&](const auto& h) {
    return done_.count(h.first) > 0 || lost_.count(h.first) > 0;
  });
}

std::vector<std::string> HostsLaunch::awaited() const {
  std::vector<std::string> out;
  for (const auto& [host, h] : hosts_)
    if (!h.heard) out.push_back(host);
  return out;
}

void HostsLaunch::stop() {
  for (auto& [host, h] : hosts_) {
    if (h.stopped || done_.count(host)) continue;
    h.stopped = true;
    if (h.started) send(host, {{"cmd", "stop"}});
  }
}

void HostsLaunch::quit() {
  for (const auto& [host, h] : hosts_)
    if (h.heard) send(host, {{"cmd", "quit"}});
}

uint64_t HostsLaunch::dropped_lines() const {
  uint64_t n = 0;
  for (const auto& [host, h] : hosts_) n += h.dropped;
  return n;
}

}  // namespace testbed
