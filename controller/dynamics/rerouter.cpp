#include "controller/dynamics/rerouter.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "controller/dynamics/lab_json_file.h"
#include "netns/libnl_kernel.h"

namespace testbed {
namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

constexpr const char* kHeader = "unix_s,dead_links,routes,namespaces,compute_ms,kernel_ms\n";

}  // namespace

std::set<size_t> dead_links(const std::vector<LiveDirection>& directions) {
  std::set<size_t> out;
  for (const LiveDirection& d : directions)
    if (d.down) out.insert(d.link);
  return out;
}

Rerouter::Rerouter(Kernel& kernel, std::string lab_dir, const Plan& plan)
    : kernel_(kernel),
      lab_dir_(std::move(lab_dir)),
      plan_(plan),
      convergence_us_(plan.reroute_convergence_us),
      base_(route_book_of(plan)) {
  // A lab spread over hosts converges on each host, each its own nodes' routes: a node
  // whose namespace is not here is another host's.
  for (const auto& n : plan.nodes)
    namespaces_.push_back(kernel_.namespace_exists(n.ns) ? n.ns : "");
}

RerouteResult Rerouter::converge() {
  LabFileLock lock(lab_dir_ + "/routes.lock");
  const auto started = std::chrono::steady_clock::now();
  RerouteResult r;
  r.dead = dead_links(live_directions(plan_, read_current(lab_dir_)));
  const nlohmann::json state = read_json_object(lab_dir_ + "/routes.json");
  const std::set<size_t> before = state.value("dead_links", std::set<size_t>{});
  if (before == r.dead) return r;
  const auto changes = changed_kernel_routes(base_.avoiding(before), base_.avoiding(r.dead));
  r.compute_ms = ms_since(started);
  const auto kernel_started = std::chrono::steady_clock::now();
  for (const auto& [src, change] : changes) {
    if (src >= namespaces_.size() || namespaces_[src].empty()) continue;
    // The new prefixes first: until the old ones go, a destination still has a route.
    kernel_.replace_routes(namespaces_[src], change.replace);
    kernel_.withdraw_routes(namespaces_[src], change.withdraw);
    r.routes += change.replace.size() + change.withdraw.size();
    ++r.namespaces;
  }
  r.kernel_ms = ms_since(kernel_started);
  replace_json(lab_dir_ + "/routes.json", {{"dead_links", r.dead}});
  // reroutes.csv: one row per convergence that changed something, for people and for the
  // soak's percentiles; one write with O_APPEND, as timeline.csv's rows.
  const std::string path = lab_dir_ + "/reroutes.csv";
  const bool fresh = access(path.c_str(), F_OK) != 0;
  std::string dead;
  for (size_t l : r.dead) dead += (dead.empty() ? "" : " ") + std::to_string(l);
  char row[256];
  std::snprintf(
      row, sizeof row, "%.6f,%s,%zu,%zu,%.3f,%.3f\n",
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(),
      dead.c_str(), r.routes, r.namespaces, r.compute_ms, r.kernel_ms);
  const std::string text = (fresh ? std::string(kHeader) : "") + row;
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd >= 0) {
    if (write(fd, text.data(), text.size()) < 0) std::perror("reroutes.csv");
    close(fd);
  }
  return r;
}

std::optional<RerouteResult> converge_by_hand(const Plan& plan, const std::string& lab_dir) {
  if (!plan.reroute_convergence_us) return std::nullopt;
  LibnlKernel kernel;
  Rerouter rerouter(kernel, lab_dir, plan);
  std::this_thread::sleep_for(std::chrono::microseconds(*rerouter.convergence_us()));
  return rerouter.converge();
}

std::string reroute_summary(const std::optional<RerouteResult>& r) {
  if (!r) return "";
  char buf[200];
  std::snprintf(
      buf, sizeof buf,
      "routes: converged around %zu dead link%s, %zu prefixes replaced or withdrawn in %zu "
      "namespaces (kernel %.1f ms)\n",
      r->dead.size(), r->dead.size() == 1 ? "" : "s", r->routes, r->namespaces, r->kernel_ms);
  return buf;
}

}  // namespace testbed
