#include "controller/runs/observability.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "controller/lab/teardown.h"
#include "controller/observe/prometheus_server.h"
#include "controller/options/usage_error.h"
#include "controller/runs/child_process.h"
#include "controller/topology/port_number.h"
#include "controller/topology/profile_locator.h"

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

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Polls `ready` (every 50 ms) until it gives a value; throws when the process ended or
// kStartTimeout passed first, pointing at its log. The process is known alive before each
// look and again after the value is had: an answer while it is not (another process on a
// port it left) is never taken for its own.
template <typename Ready>
auto wait_for(pid_t pid, const std::string& what, const std::string& log, Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  const auto ended = [&] { return process_start_time(pid) == 0; };
  for (;;) {
    if (ended() || std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error(what + " did not start; see " + log);
    if (auto value = ready()) {
      if (ended()) throw std::runtime_error(what + " ended as it started; see " + log);
      return *value;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// Until the server answers 200 at `path` (it may still be opening its database).
void wait_answering(pid_t pid, int port, const std::string& path, const std::string& what,
                    const std::string& log) {
  wait_for(pid, what, log, [&]() -> std::optional<bool> {
    if (http_ok(port, path, std::chrono::milliseconds(200))) return true;
    return std::nullopt;
  });
}

// The server at `port` is the one we started when `page` shows `nonce`, which only it (and
// root) could know; anything else there (another user's process that took the port) is
// refused by name, and `up` rolls back.
void prove_ours(int port, const std::string& page, const std::string& nonce,
                const std::string& what) {
  const auto body = http_get(port, page);
  if (!body || body->find(nonce) == std::string::npos) {
    throw std::runtime_error("the server on 127.0.0.1:" + std::to_string(port) + " is not " + what +
                             " this lab started (" + page +
                             " lacks its nonce); another process holds the port");
  }
}

// The exporter binds its port itself and writes it, with its nonce, to exporter.ready in
// the lab's directory (cmd_exporter.cpp): only root can write there.
int start_exporter(const LabStore& store, LabState& state, const ObservabilityOptions& options) {
  const std::string dir = store.dir(state.lab);
  std::vector<std::string> exporter = {program_path("testbed"), "_exporter", state.lab, "--port",
                                       std::to_string(options.metrics_port)};
  // Readiness is still asked through loopback, which 0.0.0.0 includes.
  if (options.metrics_on_all_addresses) exporter.push_back("--all-addresses");
  const pid_t pid = start(store, state, exporter, "exporter.log");
  const std::string log = dir + "/exporter.log";
  const auto ready = wait_for(pid, "the exporter", log, [&]() -> std::optional<nlohmann::json> {
    auto j = nlohmann::json::parse(read_text(dir + "/exporter.ready"), nullptr, false);
    if (!j.is_object() || !j.contains("port") || !j.contains("nonce")) return std::nullopt;
    return j;
  });
  const int port = ready["port"].get<int>();
  // Its readiness page, not /metrics: a read of /metrics counts as someone watching, and
  // the links are sampled for a minute after it (cmd_exporter.cpp).
  prove_ours(port, "/ready", ready["nonce"].get<std::string>(), "the exporter");
  return port;
}

// Prometheus binds 127.0.0.1:0 and logs the port it got; its configuration carries a nonce.
int start_prometheus(const LabStore& store, LabState& state, const std::string& binary,
                     int exporter_port) {
  const std::string dir = store.dir(state.lab), log = dir + "/prometheus.log";
  const std::string nonce = random_hex128();
  std::ofstream(dir + "/prometheus.yml")
      << prometheus_config(state.lab, exporter_port, 2 * state.plan.links.size(), nonce);
  const pid_t pid = start(store, state, prometheus_argv(binary, dir), "prometheus.log");
  const int port =
      wait_for(pid, "prometheus", log, [&] { return prometheus_listening_port(read_text(log)); });
  wait_answering(pid, port, "/-/ready", "prometheus", log);
  prove_ours(port, "/api/v1/status/config", nonce, "the Prometheus");
  return port;
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
  const int exporter_port = start_exporter(store, state, options);
  state.urls["exporter"] = url(exporter_port) + "/metrics";

  if (options.prometheus == PrometheusMode::kExisting) {
    lines.push_back("metrics: " + state.urls["exporter"] +
                    "; add this job to your Prometheus's scrape_configs:\n" +
                    prometheus_scrape_job(state.lab, exporter_port, 2 * state.plan.links.size()));
  } else if (options.prometheus == PrometheusMode::kOn) {
    if (const auto binary = find_prometheus()) {
      state.urls["prometheus"] = url(start_prometheus(store, state, *binary, exporter_port));
    } else {
      lines.push_back("prometheus is not installed (apt-get install prometheus); metrics are at " +
                      state.urls["exporter"]);
    }
  }

  if (options.grafana) {
    const std::string dashboards = bundled_dashboards_dir();
    const auto grafana = find_grafana();
    if (grafana && state.urls.count("prometheus") && !dashboards.empty()) {
      write_grafana_provisioning(dir + "/grafana/provisioning", state.urls["prometheus"],
                                 dashboards);
      // Not admin/admin: a random password, in a file only root can read, and in a
      // configuration file rather than on the command line (which every user can read).
      // Port 0: Grafana binds a free port itself and logs it (grafana_listening_port), as
      // Prometheus does; the port is read from its own log in the lab's directory.
      const std::string password = random_hex128();
      std::ofstream(dir + "/grafana/admin-password") << password << "\n";
      std::ofstream(dir + "/grafana/grafana.ini")
          << "[server]\nhttp_addr = 127.0.0.1\nhttp_port = 0\n[security]\nadmin_user = "
             "admin\nadmin_password = "
          << password << "\n[paths]\nprovisioning = " << dir
          << "/grafana/provisioning\ndata = " << dir << "/grafana/data\n";
      const std::vector<std::string> argv = {*grafana, "--homepath=/usr/share/grafana",
                                             "--config=" + dir + "/grafana/grafana.ini"};
      const std::string log = dir + "/grafana.log";
      const pid_t pid = start(store, state, argv, "grafana.log");
      const int port = wait_for(pid, "grafana-server", log,
                                [&] { return grafana_listening_port(read_text(log)); });
      wait_answering(pid, port, "/api/health", "grafana-server", log);
      lines.push_back("grafana: user admin, password in " + dir + "/grafana/admin-password");
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
