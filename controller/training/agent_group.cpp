#include "controller/training/agent_group.h"

#include <cstdio>
#include <random>

#include <algorithm>
#include <stdexcept>
#include <zmq_addon.hpp>

#include "agent/transport/private_ipc.h"
#include "controller/lab/teardown.h"
#include "controller/training/agent_reply.h"

namespace testbed {
namespace {

// An agent silent this long has hung: far beyond any iteration of a testbed-sized model.
constexpr auto kAgentTimeout = std::chrono::seconds(300);
// How often a wait checks whether an agent died: a dead node is named well within 2 s.
constexpr auto kLivenessCheck = std::chrono::milliseconds(200);
// The largest event an agent sends is a shard's report with its values (at most 200000 of
// them, about 5 MB of JSON): 64 MiB leaves ten times that and refuses a declared gigabyte
// before it is allocated.
constexpr int64_t kControlEventBound = int64_t{64} << 20;
// Events queued unread per connection: a host's beats and its nodes' events of an iteration.
constexpr int kControlEventsQueued = 1000;

}  // namespace

AgentGroup::AgentGroup(zmq::context_t& context, const std::string& socket_path,
                       std::vector<std::string> names)
    : router_(context, zmq::socket_type::router), names_(std::move(names)), context_(&context) {
  // 128 bits from the kernel's entropy (std::random_device reads /dev/urandom on Linux):
  // not guessable by a process in a node within a run's lifetime.
  std::random_device entropy;
  char hex[9];
  for (int i = 0; i < 4; ++i) {
    std::snprintf(hex, sizeof hex, "%08x", entropy());
    secret_ += hex;
  }
  router_.set(zmq::sockopt::linger, 0);
  bind_private_ipc(router_, socket_path);
}

void AgentGroup::send(size_t node, const nlohmann::json& command) {
  zmq::socket_t& to = tcp_ && remote_.at(node) ? *tcp_ : router_;
  to.send(zmq::buffer(std::to_string(node)), zmq::send_flags::sndmore);
  to.send(zmq::buffer(command.dump()), zmq::send_flags::none);
}

void AgentGroup::broadcast(const nlohmann::json& command) {
  for (size_t n = 0; n < names_.size(); ++n) send(n, command);
}

void AgentGroup::listen_for_hosts(const std::string& tcp_endpoint, std::vector<bool> remote,
                                  const CurveKeyPair& own, AdmittedHosts admitted,
                                  std::vector<std::string> host_of) {
  hosts_.emplace(names_, remote, host_of);
  remote_ = std::move(remote);
  host_of_ = std::move(host_of);
  tcp_.emplace(*context_, zmq::socket_type::router);
  // The last commands (quit) must reach the other hosts before this process ends: on TCP
  // they may still be queued when the socket closes, unlike on the local socket, where
  // the agents' exits are waited for. Two seconds bound how long an unreachable host holds
  // the end of a run.
  tcp_->set(zmq::sockopt::linger, 2000);
  tcp_->set(zmq::sockopt::maxmsgsize, kControlEventBound);
  tcp_->set(zmq::sockopt::rcvhwm, kControlEventsQueued);
  gate_ = std::make_unique<CurveGate>(*context_, *tcp_, own, std::move(admitted));
  tcp_->bind(tcp_endpoint);
}

bool AgentGroup::from_its_host(std::vector<zmq::message_t>& frames) {
  if (frames.size() != 2) return false;
  // The host CURVE proved (curve_gate.h), on every message of its connection.
  const char* user = nullptr;
  try {
    user = frames[1].gets("User-Id");
  } catch (const zmq::error_t&) {
    return false;
  }
  const std::string host = user ? user : "";
  const std::string id = frames[0].to_string();
  if (RemoteHosts::is_host_id(id)) return id == "host/" + host;
  const auto node = canonical_node_index(id, names_.size());
  return node && remote_[*node] && host_of_[*node] == host;
}

std::vector<std::string> AgentGroup::awaited_nodes() const {
  return hosts_ ? hosts_->unclaimed() : std::vector<std::string>{};
}

void AgentGroup::release_hosts() {
  if (!hosts_) return;
  for (const auto& id : hosts_->routing_ids()) {
    tcp_->send(zmq::buffer(id), zmq::send_flags::sndmore);
    tcp_->send(zmq::buffer(std::string(R"({"cmd":"quit"})")), zmq::send_flags::dontwait);
  }
}

std::string AgentGroup::describe_death(size_t n) const {
  const std::string cause = cause_ ? cause_(n) : "";
  return "the agent of node " + names_[n] + (cause.empty() ? " died" : " was " + cause);
}

void AgentGroup::check_alive() {
  last_check_ = std::chrono::steady_clock::now();
  for (size_t n = 0; n < pids_.size(); ++n) {
    if (pids_[n] == 0 || process_start_time(pids_[n]) != 0) continue;
    if (std::find(may_die_.begin(), may_die_.end(), n) == may_die_.end())
      throw std::runtime_error(describe_death(n));
    pids_[n] = 0;  // reported once
    dead_.push_back(n);
    deaths_to_report_.push_back(n);
  }
}

void AgentGroup::check_stall() {
  last_stall_check_ = std::chrono::steady_clock::now();
  last_stalled_ = stalled_ && stalled_();
  if (!last_stalled_) return;
  if (budget_end_ && last_stall_check_ >= *budget_end_) throw StalledPastBudget();
}

std::optional<std::pair<size_t, nlohmann::json>> AgentGroup::next_event(
    std::chrono::milliseconds timeout) {
  if (!held_.empty()) {
    auto held = std::move(held_.front());
    held_.pop_front();
    return held;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (stop_ && stop_->stopping()) throw Interrupted(stop_->received());
    // Checked on a timer, not only when nothing arrives: a busy run still names the dead.
    if (std::chrono::steady_clock::now() - last_check_ >= kLivenessCheck) check_alive();
    if (std::chrono::steady_clock::now() - last_stall_check_ >= kLivenessCheck) check_stall();
    if (!deaths_to_report_.empty()) {
      const size_t n = deaths_to_report_.front();
      deaths_to_report_.erase(deaths_to_report_.begin());
      return std::make_pair(n, nlohmann::json{{"event", "died"}, {"node", names_[n]}});
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    // The agents' sockets, then the stop signals' pipe: a signal wakes the wait at once.
    std::vector<zmq::pollitem_t> items = {{router_.handle(), 0, ZMQ_POLLIN, 0}};
    if (tcp_) items.push_back({tcp_->handle(), 0, ZMQ_POLLIN, 0});
    if (stop_) items.push_back({nullptr, stop_->fd(), ZMQ_POLLIN, 0});
    if (zmq::poll(items.data(), items.size(),
                  std::clamp(left, std::chrono::milliseconds(0), kLivenessCheck)) <= 0) {
      // Hosts are judged silent only with nothing waiting to be read: beats queued while
      // the controller was busy elsewhere are heard first.
      if (hosts_) hosts_->check(std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      continue;
    }
    if (stop_ && (items.back().revents & ZMQ_POLLIN)) continue;  // thrown at the top
    const bool over_tcp = !(items[0].revents & ZMQ_POLLIN);
    std::vector<zmq::message_t> frames;
    if (!zmq::recv_multipart(over_tcp ? *tcp_ : router_, std::back_inserter(frames))) continue;
    if (over_tcp && !from_its_host(frames)) {
      ++spoofed_messages_;
      continue;
    }
    if (over_tcp && RemoteHosts::is_host_id(frames[0].to_string())) {
      // A host's launcher (remote_hosts.h): its beats are answered, so that it knows the
      // controller is alive; a "died" report throws, naming the node.
      if (hosts_->hear(frames[0].to_string(), frames[1].to_string(),
                       std::chrono::steady_clock::now())) {
        tcp_->send(frames[0], zmq::send_flags::sndmore);
        tcp_->send(zmq::buffer(std::string(R"({"cmd":"beat"})")), zmq::send_flags::dontwait);
      } else {
        ++malformed_host_reports_;
      }
      continue;
    }
    auto reply = frames.size() == 2
                     ? decode_agent_reply(frames[0].to_string(), frames[1].to_string(),
                                          names_.size(), max_clock_)
                     : std::nullopt;
    if (!reply) {
      ++malformed_replies_;
      continue;
    }
    auto& [n, j] = *reply;
    if (j["event"] == "error")
      throw std::runtime_error("node " + names_.at(n) + ": " + j.value("what", "an error"));
    return reply;
  }
}

std::runtime_error AgentGroup::silent_agents(const std::string& event,
                                             const std::vector<nlohmann::json>& answers) const {
  // Named, a few at most: at 1000 nodes the list is the lab.
  constexpr size_t kNamed = 8;
  std::vector<std::string> silent;
  for (size_t n = 0; n < answers.size(); ++n)
    if (answers[n].is_null()) silent.push_back(names_[n]);
  std::string named;
  for (size_t k = 0; k < std::min(silent.size(), kNamed); ++k) named += (k ? ", " : "") + silent[k];
  if (silent.size() > kNamed) named += " and " + std::to_string(silent.size() - kNamed) + " more";
  return std::runtime_error(
      "agents did not answer '" + event + "' within " +
      std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kAgentTimeout).count()) +
      " s: " + std::to_string(silent.size()) + " of " + std::to_string(names_.size()) +
      " silent (" + named + ")");
}

std::vector<nlohmann::json> AgentGroup::gather(const std::string& event) {
  std::vector<nlohmann::json> out(names_.size());
  size_t got = 0;
  // A node allowed to die that died answers nothing: it stands in the result as its death.
  for (size_t n : dead_) {
    out[n] = {{"event", event}, {"died", true}};
    ++got;
  }
  const auto deadline = std::chrono::steady_clock::now() + kAgentTimeout;
  while (got < names_.size()) {
    if (std::chrono::steady_clock::now() > deadline) throw silent_agents(event, out);
    auto e = next_event(kLivenessCheck);
    if (!e) continue;
    auto& [n, j] = *e;
    if (j["event"] == "died" && out[n].is_null()) j = {{"event", event}, {"died", true}};
    if (j["event"] != event || !out[n].is_null()) continue;
    out[n] = std::move(j);
    ++got;
  }
  return out;
}

}  // namespace testbed
