#include "controller/runs/host_agents.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "agent/runtime/control_channel.h"
#include "agent/transport/handshake_watch.h"
#include "controller/lab/teardown.h"
#include "controller/runs/child_process.h"
#include "controller/training/remote_hosts.h"
#include "netns/netns_exec.h"

namespace testbed {
namespace {

std::atomic<int> g_signal{0};
void on_signal(int sig) {
  g_signal = sig;
}

// How often the agents are looked at: a dead one is reported well within a second.
constexpr auto kWatchTick = std::chrono::milliseconds(200);
// What an agent ended by us is given after SIGTERM before SIGKILL.
constexpr auto kGrace = std::chrono::seconds(1);

struct Agent {
  size_t node;  // index in the whole lab's plan: the controller's numbering
  std::string name;
  pid_t pid;
  bool ended = false;
  int status = 0;
};

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

// Reaps what has ended; true when every agent has.
bool reap(std::vector<Agent>& agents) {
  bool all = true;
  for (auto& a : agents) {
    if (!a.ended && waitpid(a.pid, &a.status, WNOHANG) == a.pid) a.ended = true;
    all &= a.ended;
  }
  return all;
}

// Ends our own children by their pids (never reaped ones: those may be another's now).
void end_agents(std::vector<Agent>& agents) {
  for (const auto& a : agents)
    if (!a.ended) kill(a.pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + kGrace;
  while (!reap(agents) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  for (auto& a : agents) {
    if (a.ended) continue;
    kill(a.pid, SIGKILL);
    waitpid(a.pid, &a.status, 0);
    a.ended = true;
  }
}

void forget(LabStore& store, const std::string& lab, const std::vector<Agent>& agents) {
  std::vector<int> pids;
  for (const auto& a : agents) pids.push_back(a.pid);
  forget_processes(store, lab, pids);
}

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
  const nlohmann::json whole = store.load_whole_plan(state);
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

  for (int sig : {SIGINT, SIGTERM}) std::signal(sig, on_signal);
  // No agent runs before the server has proven it is the controller's host.
  const auto waited = std::chrono::steady_clock::now();
  for (;;) {
    const auto h = handshake.poll();
    if (h == HandshakeWatch::State::succeeded) break;
    std::string failure;
    if (h == HandshakeWatch::State::failed)
      failure = "refused the server at " + control + ": " + handshake.why() + " (host " +
                server_host + "'s in the placement); no agent was started";
    else if (g_signal)
      failure =
          "ended by signal " + std::to_string(g_signal.load()) + " before the controller answered";
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
  std::vector<Agent> agents;
  {
    auto lock = store.lock(lab, /*wait=*/true);
    state = store.load(lab);
    for (size_t i = 0; i < whole["nodes"].size(); ++i) {
      const auto& n = whole["nodes"][i];
      if (!here.count(n["namespace"].get<std::string>())) continue;
      const std::string name = n["name"];
      const std::vector<std::string> cmd = {program_path("testbed-agent"),
                                            "--control",
                                            control,
                                            "--node",
                                            std::to_string(i),
                                            "--control-netns",
                                            host_netns,
                                            "--lab-dir",
                                            dir,
                                            "--curve-key",
                                            key_file,
                                            "--server-key",
                                            curve.server_public};
      // Recorded (owned by this command, so `clean` ends it if we die) before it runs.
      const pid_t pid =
          spawn_in_netns(n["namespace"], cmd, dir + "/agent-" + name + ".log", [&](pid_t started) {
            state.processes.push_back(
                owned_by_me({started, process_start_time(started), name, cmd}));
            store.record_process(lab, state.processes.back());
          });
      agents.push_back({i, name, pid});
    }
    store.save(state);
  }
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& a : agents) nodes.push_back(a.node);
  progress << "host " << state.host << ": " << agents.size() << " agents started for " << control
           << "\n"
           << std::flush;

  const auto started = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> heard, told_quit;
  auto next_beat = started;
  std::string failure;
  std::set<size_t> reported;
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (g_signal) {
      failure = "ended by signal " + std::to_string(g_signal.load());
      break;
    }
    if (handshake.poll() == HandshakeWatch::State::failed) {
      failure = "refused the server at " + control + " on reconnecting: " + handshake.why();
      break;
    }
    if (now >= next_beat) {
      channel.send(zmq::buffer(nlohmann::json{{"event", "beat"}, {"nodes", nodes}}.dump()),
                   zmq::send_flags::dontwait);
      next_beat = now + kHostBeat;
    }
    const bool all_ended = reap(agents);
    for (const auto& a : agents) {
      if (!a.ended || reported.count(a.node)) continue;
      reported.insert(a.node);
      const bool quit = WIFEXITED(a.status) && WEXITSTATUS(a.status) == 0;
      if (quit) continue;
      progress << "agent of node " << a.name << " " << how_it_ended(a.status) << "\n";
      channel.send(zmq::buffer(nlohmann::json{
                       {"event", "died"}, {"node", a.node}, {"how", how_it_ended(a.status)}}
                                   .dump()),
                   zmq::send_flags::dontwait);
    }
    if (all_ended) break;
    if (told_quit && now - *told_quit >= kQuitGrace) break;  // the rest did not quit: ended below
    if (heard ? now - *heard >= kHostSilence : now - started >= kFirstContact) {
      failure = "the controller at " + control + (heard ? " went silent" : " never answered");
      break;
    }
    zmq::pollitem_t item{channel.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, kWatchTick) > 0) {
      zmq::message_t msg;
      // The controller's answers to beats, and its word that the run has ended.
      while (channel.recv(msg, zmq::recv_flags::dontwait)) {
        heard = std::chrono::steady_clock::now();
        const auto j = nlohmann::json::parse(msg.to_string(), nullptr, false);
        if (!told_quit && j.is_object() && j.value("cmd", "") == "quit") told_quit = heard;
      }
    }
  }
  std::vector<std::string> lingering;  // told to quit, still running after kQuitGrace
  for (const auto& a : agents)
    if (!a.ended && failure.empty()) lingering.push_back(a.name);
  end_agents(agents);
  forget(store, lab, agents);
  size_t quit = 0;
  for (const auto& a : agents) quit += WIFEXITED(a.status) && WEXITSTATUS(a.status) == 0;
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
