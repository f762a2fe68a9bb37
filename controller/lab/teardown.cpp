#include "teardown.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "netns_exec.h"

namespace testbed {
namespace {

// A process gets this long to exit after SIGTERM before SIGKILL: enough for iperf3 or an
// agent to flush results, short enough that `down` stays quick.
constexpr auto kTermGrace = std::chrono::seconds(2);
constexpr auto kPollInterval = std::chrono::milliseconds(2);  // processes exit within ms of SIGTERM

bool is_ours(const ProcessRecord& p) {
  return p.pid > 0 && p.start_time != 0 && process_start_time(p.pid) == p.start_time;
}

}  // namespace

uint64_t process_start_time(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return 0;
  // The command name (field 2) may contain spaces and parentheses: count after the last ')'.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  // Field 3 is the state: a zombie (Z) or dead (X) process has already exited, even if its
  // parent has not reaped it yet.
  if (!(rest >> field) || field == "Z" || field == "X") return 0;
  for (int i = 4; i <= 22 && rest >> field; ++i) {
    if (i == 22) return std::stoull(field);
  }
  return 0;
}

TeardownReport teardown_lab(const LabState& state, Kernel& kernel) {
  TeardownReport report;
  std::vector<const ProcessRecord*> signalled;
  for (const auto& p : state.processes) {
    if (p.pid == getpid()) continue;
    if (!is_ours(p)) continue;  // exited, or the pid now belongs to someone else
    if (kill(p.pid, SIGTERM) == 0) signalled.push_back(&p);
  }
  const auto deadline = std::chrono::steady_clock::now() + kTermGrace;
  for (const auto* p : signalled) {
    while (is_ours(*p) && std::chrono::steady_clock::now() < deadline) {
      waitpid(p->pid, nullptr, WNOHANG);  // reaps it if it happens to be our child
      std::this_thread::sleep_for(kPollInterval);
    }
    if (is_ours(*p)) kill(p->pid, SIGKILL);
    ++report.processes_ended;
  }
  for (const auto& ns : state.namespaces) {
    const uint64_t inode = kernel.namespace_inode(ns.name);
    if (inode == 0) continue;  // already gone
    if (ns.inode != 0 && inode != ns.inode) {
      report.skipped.push_back("namespace " + ns.name + ": replaced since this lab made it");
      continue;
    }
    try {
      kernel.delete_namespace(ns.name);
      ++report.namespaces_deleted;
    } catch (const std::exception& e) {
      report.errors.push_back(e.what());
    }
  }
  return report;
}

int spawn_recorded(const LabStore& store, LabState& state, const std::string& ns,
                   const std::vector<std::string>& argv, const std::string& log_path,
                   const std::string& node) {
  const pid_t pid = spawn_in_netns(ns, argv, log_path);
  state.processes.push_back({pid, process_start_time(pid), node, argv});
  store.save(state);
  return pid;
}

}  // namespace testbed
