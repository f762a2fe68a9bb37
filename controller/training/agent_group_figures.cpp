// AgentGroup::host_figures: the other hosts' links in a run's figures (host_figures.h).
#include <algorithm>

#include "controller/training/agent_group.h"

namespace testbed {

std::vector<std::string> AgentGroup::other_hosts() const {
  std::vector<std::string> out;
  if (!hosts_) return out;
  for (const auto& id : hosts_->routing_ids()) out.push_back(id.substr(5));  // "host/NAME"
  return out;
}

std::map<std::string, HostFigures> AgentGroup::host_figures(bool health,
                                                            std::chrono::milliseconds wait) {
  std::map<std::string, HostFigures> out;
  if (!hosts_ || !tcp_) return out;
  const FiguresRequest request{++figures_request_, health};
  const std::string text = to_json(request).dump();
  const std::vector<std::string> asked = hosts_->routing_ids();
  for (const auto& id : asked) {
    tcp_->send(zmq::buffer(id), zmq::send_flags::sndmore);
    tcp_->send(zmq::buffer(text), zmq::send_flags::dontwait);
  }
  const auto answered = [&] {
    return std::all_of(asked.begin(), asked.end(), [&](const std::string& id) {
      const auto it = hosts_->figures().find(id.substr(5));  // "host/NAME"
      return it != hosts_->figures().end() && it->second.request == request.request;
    });
  };
  const auto deadline = std::chrono::steady_clock::now() + wait;
  // The events that come meanwhile are the run's: kept, in order, for next_event. Those
  // already held are set aside first, so that next_event reads the socket here.
  std::deque<std::pair<size_t, nlohmann::json>> earlier;
  earlier.swap(held_);
  while (!answered() && std::chrono::steady_clock::now() < deadline) {
    if (auto e = next_event(std::chrono::milliseconds(100))) earlier.push_back(std::move(*e));
  }
  held_.swap(earlier);
  for (const auto& [host, figures] : hosts_->figures())
    if (figures.request == request.request) out[host] = figures;
  return out;
}

}  // namespace testbed
