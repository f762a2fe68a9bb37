#include "controller/runs/host_agents.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "agent/runtime/control_channel.h"
#include "agent/transport/handshake_watch.h"
#include "controller/dynamics/link_control.h"
#include "controller/health/health_monitor.h"
#include "controller/lab/teardown.h"
#include "controller/launch/host_ranks.h"
#include "controller/observe/link_metrics.h"
#include "controller/runs/child_process.h"
#include "controller/training/host_figures.h"
#include "controller/training/remote_hosts.h"
#include "netns/libnl_kernel.h"
#include "netns/netns_exec.h"
#include "netns/process_exit.h"
#include "netns/stop_signals.h"

namespace testbed {
namespace {

// How often the agents are looked at: a dead one is reported well within a second.
constexpr auto kWatchTick = std::chrono::milliseconds(200);
// A controller's connection closed and not made again within this long is gone: its process
// ended (the kernel closed its socket). libzmq reconnects every 100 ms, so a controller
// still there, or a network back from a blip, has connected again long before.
constexpr auto kGone = std::chrono::seconds(5);
// What an agent ended by us is given after SIGTERM before SIGKILL.
constexpr auto kGrace = std::chrono::seconds(1);

struct Agent {
  size_t node;  // index in the whole lab's plan: the controller's numbering
  std::string name;
  pid_t pid;
  bool ended = false;
  int code = 0;  // its exit code, or 128 + the signal that ended it (process_exit.h)
};

// Above 128, the code is a signal's (the shell's convention, process_exit.h).
std::string how_it_ended(int code) {
  if (code > 128) return "killed by signal " + std::to_string(code - 128);
  return "exit status " + std::to_string(code);
}

// Reaps what has ended; true when every agent has.
bool reap_ended(std::vector<Agent>& agents) {
  bool all = true;
  for (auto& a : agents) {
    if (a.ended) continue;
    if (const auto code = reap_if_ended(a.pid)) {
      a.ended = true;
      a.code = *code;
    }
    all &= a.ended;
  }
  return all;
}

// Ends our own children by their pids (never reaped ones: those may be another's now). All
// are told at once and given one grace together.
void end_agents(std::vector<Agent>& agents) {
  const auto deadline = std::chrono::steady_clock::now() + kGrace;
  std::vector<ProcessHandle> running;
  for (const auto& a : agents) {
    if (a.ended) continue;
    running.push_back(ProcessHandle::open(a.pid));
    kill(a.pid, SIGTERM);
  }
  for (const auto& h : running) h.wait_until(deadline);
  for (auto& a : agents) {
    if (a.ended) continue;
    auto code = reap_if_ended(a.pid);
    if (!code) {
      kill(a.pid, SIGKILL);
      code = reap(a.pid);
    }
    a.code = *code;
    a.ended = true;
  }
}

void forget(LabStore& store, const std::string& lab, const std::vector<Agent>& agents) {
  std::vector<int> pids;
  for (const auto& a : agents) pids.push_back(a.pid);
  forget_processes(store, lab, pids);
}

// The control channel as both of this host's jobs use it: it beats every kHostBeat while it
// is read, keeps what the controller sent in order, and says when the controller is lost.
class ZmqControllerChannel : public ControllerChannel {
 public:
  ZmqControllerChannel(zmq::socket_t& socket, HandshakeWatch& handshake, std::string control,
                       nlohmann::json nodes)
      : socket_(socket),
        handshake_(handshake),
        control_(std::move(control)),
        nodes_(std::move(nodes)) {}
  void send(const nlohmann::json& message) override {
    socket_.send(zmq::buffer(message.dump()), zmq::send_flags::dontwait);
  }
  nlohmann::json receive(std::chrono::milliseconds wait) override {
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_beat_) {
      send({{"event", "beat"}, {"nodes", nodes_}});
      next_beat_ = now + kHostBeat;
    }
    if (pending_.empty()) {
      zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
      // The C call: a signal ends the wait with -1 (EINTR), where cppzmq's would throw.
      if (zmq_poll(&item, 1, static_cast<long>(std::min(wait, kWatchTick).count())) > 0) {
        zmq::message_t msg;
        while (socket_.recv(msg, zmq::recv_flags::dontwait)) {
          heard_ = std::chrono::steady_clock::now();
          auto j = nlohmann::json::parse(msg.to_string(), nullptr, false);
          if (j.is_object()) pending_.push_back(std::move(j));
        }
      }
    }
    if (pending_.empty()) return nullptr;
    nlohmann::json first = std::move(pending_.front());
    pending_.pop_front();
    return first;
  }
  std::string lost() override {
    if (handshake_.poll() == HandshakeWatch::State::failed)
      return "refused the server at " + control_ + " on reconnecting: " + handshake_.why();
    const auto now = std::chrono::steady_clock::now();
    if (const auto since = handshake_.disconnected_since(); since && now - *since >= kGone)
      return "the controller at " + control_ + " closed the connection";
    if (heard_ ? now - *heard_ >= kHostSilence : now - started_ >= kFirstContact)
      return "the controller at " + control_ + (heard_ ? " went silent" : " never answered");
    return "";
  }

 private:
  zmq::socket_t& socket_;
  HandshakeWatch& handshake_;
  std::string control_;
  nlohmann::json nodes_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point next_beat_ = started_;
  std::optional<std::chrono::steady_clock::time_point> heard_;
  std::deque<nlohmann::json> pending_;
};

// What this host tells the controller of its own links when asked (host_figures.h): their
// counters as they stand, and their health from the agents' start to the first request for
// it (the monitor stops there; later requests get the same report).
class OwnLinksFigures {
 public:
  OwnLinksFigures(const std::string& lab_dir, std::vector<LiveDirection> directions)
      : directions_(directions),
        monitor_(std::make_unique<LibnlKernel>(), lab_dir, std::move(directions)) {
    monitor_.start();
  }
  void answer(const nlohmann::json& request, ControllerChannel& link) {
    FiguresRequest r;
    try {
      r = figures_request_from_json(request);
    } catch (const std::invalid_argument&) {
      return;  // the controller proved its key; a request it garbled is still answered by none
    }
    HostFigures f;
    f.request = r.request;
    f.wan_bytes = transmitted_bytes(directions_, kernel_);
    if (r.health) {
      if (!health_) health_ = monitor_.stop();
      f.health = health_;
    }
    link.send(to_json(f));
  }

 private:
  std::vector<LiveDirection> directions_;
  LibnlKernel kernel_;
  HealthMonitor monitor_;
  std::optional<HealthReport> health_;
};

}  // namespace

std::string controller_host_of(const nlohmann::json& placement, const std::string& control,
                               const std::string& given) {
  const auto& hosts = placement.at("hosts");
  if (!given.empty()) {
    if (!hosts.contains(given))
      throw std::runtime_error("--controller-host: no host '" + given + "' in the placement");
    return given;
  }
  const std::string address = control.substr(6, control.rfind(':') - 6);  // tcp://A:P
  for (const auto& [host, entry] : hosts.items())
    if (entry.value("address", "") == address) return host;
  throw std::runtime_error("no host of the placement has the underlay address " + address +
                           ": name the controller's host with --controller-host H");
}

int run_host_agents(LabStore& store, const std::string& lab, const std::string& control,
                    const std::string& controller_host, std::ostream& progress) {
  LabState state = store.load(lab);
  if (state.host.empty())
    throw std::runtime_error("lab " + lab +
                             " is not a slice of a lab spread over hosts; `testbed train` starts "
                             "its agents itself");
  const nlohmann::json::json_pointer own_key("/hosts/" + state.host + "/key");
  if (!state.placement.is_object() || !state.placement.contains(own_key))
    throw std::runtime_error(
        "lab " + lab +
        "'s placement has no keys: a run across hosts is authenticated with "
        "CURVE keys. Make them with `testbed keys PLACEMENT --out DIR` and bring the slices up "
        "with DIR/placement.yaml (docs/multihost.md#security)");
  const std::string server_host = controller_host_of(state.placement, control, controller_host);
  if (server_host == state.host)
    throw std::runtime_error("the controller's host is this host (" + state.host +
                             "): its agents are started by `testbed train` itself");
  const std::string key_file = store.host_key_path(lab);
  const ControlCurve curve{
      read_curve_key_file(key_file),
      state.placement.value(nlohmann::json::json_pointer("/hosts/" + server_host + "/key"), "")};
  if (curve.own.public_key != state.placement.at(own_key))
    throw std::runtime_error(key_file + " is not host " + state.host + "'s key in the placement");
  const Plan whole = store.load_whole_plan(state);
  const std::set<std::string> here = plan_namespaces(state.plan);
  const std::string dir = store.dir(lab);
  // The agents make their control channels in this process's network: this host's.
  const std::string host_netns = "/proc/" + std::to_string(getpid()) + "/ns/net";

  zmq::context_t ctx;
  zmq::socket_t channel(ctx, zmq::socket_type::dealer);
  channel.set(zmq::sockopt::routing_id, "host/" + state.host);
  channel.set(zmq::sockopt::linger, 1000);  // a "died" report must get out before we exit
  channel.set(zmq::sockopt::maxmsgsize, kControlFrameBound);
  set_control_curve(channel, curve);
  HandshakeWatch handshake(ctx, channel, "host-" + state.host);
  channel.connect(control);

  StopSignals stop_signals({SIGINT, SIGTERM});  // netns/stop_signals.h
  // No agent runs before the server has proven it is the controller's host.
  const auto waited = std::chrono::steady_clock::now();
  for (;;) {
    const auto h = handshake.poll();
    if (h == HandshakeWatch::State::succeeded) break;
    std::string failure;
    if (h == HandshakeWatch::State::failed)
      failure = "refused the server at " + control + ": " + handshake.why() + " (host " +
                server_host + "'s in the placement); no agent was started";
    else if (stop_signals.received())
      failure = "ended by signal " + std::to_string(stop_signals.received().load()) +
                " before the controller answered";
    else if (std::chrono::steady_clock::now() - waited >= kFirstContact)
      failure = "the controller at " + control + " never answered";
    if (!failure.empty()) {
      progress << "host " << state.host << ": " << failure << "\n";
      return 1;
    }
    std::this_thread::sleep_for(kWatchTick / 4);
  }
  progress << "host " << state.host << ": the controller at " << control << " proved host "
           << server_host << "'s key\n"
           << std::flush;
  nlohmann::json nodes = nlohmann::json::array();
  for (size_t i = 0; i < whole.nodes.size(); ++i)
    if (here.count(whole.nodes[i].ns)) nodes.push_back(i);
  ZmqControllerChannel link(channel, handshake, control, nodes);
  // The controller's answer to the first beat says what this host runs: a run's agents
  // ("beat") or a launch's ranks ("launch", launch/host_ranks.h).
  nlohmann::json first;
  while (!first.is_object()) {
    std::string failure = link.lost();
    if (stop_signals.received())
      failure = "ended by signal " + std::to_string(stop_signals.received().load()) +
                " before the controller said what to run";
    if (!failure.empty()) {
      progress << "host " << state.host << ": " << failure << "; nothing was started\n";
      return 1;
    }
    first = link.receive(kWatchTick);
  }
  const auto cmd = first.find("cmd");
  const std::string what = cmd != first.end() && cmd->is_string() ? cmd->get<std::string>() : "";
  if (what == "quit") {
    progress << "host " << state.host << ": the run ended before this host's nodes joined\n";
    return 0;
  }
  if (what == "launch") {
    LaunchCommand command;
    try {
      command = launch_command_from_json(first);
    } catch (const MalformedMessage& e) {
      progress << "host " << state.host << ": the controller's launch is malformed (" << e.what()
               << "); nothing was started\n";
      HostRanksDone refused;
      refused.status = "failed";
      refused.error = std::string("a malformed launch: ") + e.what();
      link.send(to_json(refused));
      return 1;
    }
    LibnlKernel kernel;  // this host's links' counters: its part of the job's WAN bytes
    std::unique_ptr<HealthMonitor> monitor;  // and their health while the ranks run
    const HostRanksSetting setting{
        lab,
        whole,
        here,
        {program_path("testbed"), "_rank", "--"},
        [&] { return transmitted_bytes(live_directions(state.plan, read_current(dir)), kernel); },
        [&] {
          monitor = std::make_unique<HealthMonitor>(std::make_unique<LibnlKernel>(), dir,
                                                    live_directions(state.plan, read_current(dir)));
          monitor->start();
          return std::function<HealthReport()>([&] { return monitor->stop(); });
        }};
    return run_host_ranks(store, setting, command, link, progress, stop_signals.received());
  }
  std::vector<Agent> agents;
  {
    auto lock = store.lock(lab, /*wait=*/true);
    state = store.load(lab);
    for (size_t i = 0; i < whole.nodes.size(); ++i) {
      const PlannedNode& n = whole.nodes[i];
      if (!here.count(n.ns)) continue;
      const std::string& name = n.name;
      const std::vector<std::string> cmd = {program_path("testbed-agent"),
                                            "--control",
                                            control,
                                            "--node",
                                            std::to_string(i),
                                            "--nodes",
                                            std::to_string(whole.nodes.size()),
                                            "--control-netns",
                                            host_netns,
                                            "--lab-dir",
                                            dir,
                                            "--curve-key",
                                            key_file,
                                            "--server-key",
                                            curve.server_public};
      // Recorded (owned by this command, so `clean` ends it if we die) before it runs.
      const pid_t pid = spawn_in_netns(
          n.ns, cmd, dir + "/agent-" + name + ".log",
          [&](pid_t started) {
            state.processes.push_back(
                owned_by_me({started, process_start_time(started), name, cmd}));
            store.record_process(lab, state.processes.back());
          },
          kAgentParentDied);
      agents.push_back({i, name, pid});
    }
    store.save(state);
  }
  progress << "host " << state.host << ": " << agents.size() << " agents started for " << control
           << "\n"
           << std::flush;
  // This host's links in the run's figures (training/host_figures.h): the kernel here alone
  // sees them. Their health is watched from now to the controller's asking for it.
  OwnLinksFigures own_links(dir, live_directions(state.plan, read_current(dir)));

  std::optional<std::chrono::steady_clock::time_point> told_quit;
  std::string failure;
  std::set<size_t> reported;
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (stop_signals.received()) {
      failure = "ended by signal " + std::to_string(stop_signals.received().load());
      break;
    }
    if (failure = link.lost(); !failure.empty()) break;
    const bool all_ended = reap_ended(agents);
    for (const auto& a : agents) {
      if (!a.ended || reported.count(a.node)) continue;
      reported.insert(a.node);
      if (a.code == 0) continue;  // it quit
      progress << "agent of node " << a.name << " " << how_it_ended(a.code) << "\n";
      link.send({{"event", "died"}, {"node", a.node}, {"how", how_it_ended(a.code)}});
    }
    if (all_ended) break;
    if (told_quit && now - *told_quit >= kQuitGrace) break;  // the rest did not quit: ended below
    // The controller's answers to beats, and its word that the run has ended.
    for (auto j = link.receive(kWatchTick); j.is_object(); j = link.receive(kWatchTick / 10)) {
      const auto c = j.find("cmd");
      if (!told_quit && c != j.end() && *c == "quit") told_quit = std::chrono::steady_clock::now();
      if (c != j.end() && *c == "figures") own_links.answer(j, link);
    }
  }
  std::vector<std::string> lingering;  // told to quit, still running after kQuitGrace
  for (const auto& a : agents)
    if (!a.ended && failure.empty()) lingering.push_back(a.name);
  end_agents(agents);
  forget(store, lab, agents);
  size_t quit = 0;
  for (const auto& a : agents) quit += a.code == 0;
  for (const auto& name : lingering)
    progress << "agent of node " << name << " did not quit within " << kQuitGrace.count()
             << " s of being told; killed\n";
  if (!failure.empty()) {
    progress << "host " << state.host << ": " << failure << "; its " << agents.size()
             << " agents were ended\n";
    return 1;
  }
  progress << "host " << state.host << ": " << quit << " of " << agents.size()
           << " agents quit when told\n";
  return quit == agents.size() ? 0 : 1;
}

}  // namespace testbed
