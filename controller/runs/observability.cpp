#include "observability.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "child_process.h"
#include "port_number.h"
#include "profile_locator.h"
#include "prometheus_server.h"
#include "teardown.h"
#include "usage_error.h"

namespace testbed {
namespace {

namespace fs = std::filesystem;

// Far beyond the milliseconds the exporter needs and the second or two Prometheus needs
// to open its database, even on a loaded two-core host.
constexpr auto kStartTimeout = std::chrono::seconds(30);

std::string url(int port) {
  return "http://127.0.0.1:" + std::to_string(port);
}

pid_t start(const LabStore& store, LabState& state, const std::vector<std::string>& argv,
            const std::string& log) {
  return spawn_recorded(store, state, "", argv, store.dir(state.lab) + "/" + log);
}

void wait_ready(pid_t pid, int port, const std::string& path, const std::string& what,
                const std::string& log) {
  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  while (!http_ok(port, path, std::chrono::milliseconds(200))) {
    if (process_start_time(pid) == 0 || std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error(what + " did not start; see " + log);
  }
}

std::optional<std::string> find_grafana() {
  for (const char* p : {"/usr/sbin/grafana-server", "/usr/bin/grafana-server",
                        "/usr/share/grafana/bin/grafana-server"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return std::nullopt;
}

// Provisioning for a Grafana the testbed starts: the lab's Prometheus as the default
// datasource and the bundled dashboards, read from where they are installed.
void write_grafana_provisioning(const std::string& dir, const std::string& prometheus_url,
                                const std::string& dashboards) {
  fs::create_directories(dir + "/datasources");
  fs::create_directories(dir + "/dashboards");
  std::ofstream(dir + "/datasources/testbed.yaml")
      << "apiVersion: 1\ndatasources:\n  - name: testbed\n    uid: testbed-prometheus\n"
         "    type: prometheus\n    access: proxy\n    url: "
      << prometheus_url << "\n    isDefault: true\n";
  std::ofstream(dir + "/dashboards/testbed.yaml")
      << "apiVersion: 1\nproviders:\n  - name: testbed\n    folder: testbed\n    type: file\n"
         "    options:\n      path: "
      << dashboards << "\n";
}

}  // namespace

PrometheusMode parse_prometheus_option(const std::string& value) {
  if (value == "on") return PrometheusMode::kOn;
  if (value == "off") return PrometheusMode::kOff;
  if (value == "existing") return PrometheusMode::kExisting;
  throw UsageError("--prometheus must be on, off or existing, not '" + value + "'");
}

void parse_metrics_option(const std::string& value, ObservabilityOptions& options) {
  const auto at = parse_host_port(value);
  if (!at || (at->address != "127.0.0.1" && at->address != "0.0.0.0")) {
    throw UsageError("--metrics must be 127.0.0.1:PORT or 0.0.0.0:PORT, not '" + value + "'");
  }
  options.metrics_on_all_addresses = at->address == "0.0.0.0";
  options.metrics_port = at->port;
}

std::vector<std::string> start_observability(const LabStore& store, LabState& state,
                                             const ObservabilityOptions& options) {
  std::vector<std::string> lines;
  const std::string dir = store.dir(state.lab);
  const int exporter_port = options.metrics_port ? options.metrics_port : free_loopback_port();
  std::vector<std::string> exporter = {program_path("testbed"), "_exporter", state.lab, "--port",
                                       std::to_string(exporter_port)};
  // Readiness is still asked through loopback, which 0.0.0.0 includes.
  if (options.metrics_on_all_addresses) exporter.push_back("--all-addresses");
  const pid_t exporter_pid = start(store, state, exporter, "exporter.log");
  // Its readiness page, not /metrics: a read of /metrics counts as someone watching, and
  // the links are sampled for a minute after it (cmd_exporter.cpp).
  wait_ready(exporter_pid, exporter_port, "/ready", "the exporter", dir + "/exporter.log");
  state.urls["exporter"] = url(exporter_port) + "/metrics";

  if (options.prometheus == PrometheusMode::kExisting) {
    lines.push_back("metrics: " + state.urls["exporter"] +
                    "; add this job to your Prometheus's scrape_configs:\n" +
                    prometheus_scrape_job(state.lab, exporter_port));
  } else if (options.prometheus == PrometheusMode::kOn) {
    if (const auto binary = find_prometheus()) {
      std::ofstream(dir + "/prometheus.yml") << prometheus_config(state.lab, exporter_port);
      const int port = free_loopback_port();
      const pid_t pid = start(store, state, prometheus_argv(*binary, dir, port), "prometheus.log");
      wait_ready(pid, port, "/-/ready", "prometheus", dir + "/prometheus.log");
      state.urls["prometheus"] = url(port);
    } else {
      lines.push_back("prometheus is not installed (apt-get install prometheus); metrics are at " +
                      state.urls["exporter"]);
    }
  }

  if (options.grafana) {
    const std::string dashboards = bundled_dashboards_dir();
    const auto grafana = find_grafana();
    if (grafana && state.urls.count("prometheus") && !dashboards.empty()) {
      const int port = free_loopback_port();
      write_grafana_provisioning(dir + "/grafana/provisioning", state.urls["prometheus"],
                                 dashboards);
      const std::vector<std::string> argv = {
          *grafana,
          "--homepath=/usr/share/grafana",
          "cfg:default.paths.provisioning=" + dir + "/grafana/provisioning",
          "cfg:default.paths.data=" + dir + "/grafana/data",
          "cfg:default.server.http_addr=127.0.0.1",
          "cfg:default.server.http_port=" + std::to_string(port)};
      const pid_t pid = start(store, state, argv, "grafana.log");
      wait_ready(pid, port, "/api/health", "grafana-server", dir + "/grafana.log");
      state.urls["grafana"] = url(port);
    } else {
      lines.push_back(
          "grafana-server is not installed here. To use an existing Grafana: add a Prometheus "
          "datasource with uid 'testbed-prometheus' and URL " +
          (state.urls.count("prometheus") ? state.urls["prometheus"]
                                          : std::string("of your Prometheus")) +
          ", then import the dashboards in " +
          (dashboards.empty() ? std::string("dashboards/") : dashboards) +
          " (or copy its provisioning/ directory into Grafana's provisioning path).");
    }
  }
  store.save(state);
  return lines;
}

}  // namespace testbed
