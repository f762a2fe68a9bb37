// The lab's own Prometheus server (Debian's `prometheus`): a generated configuration that
// scrapes the lab's exporter every second on loopback, data in the lab's run directory,
// listening on a loopback port of its own (Debian's service keeps :9090).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace testbed {

// A TCP port on 127.0.0.1 that was free a moment ago (the kernel picks it).
int free_loopback_port();

// The scrape configuration for a lab's exporter, as prometheus.yml text; also what
// `up --prometheus=existing` prints for a server the user runs.
std::string prometheus_scrape_job(const std::string& lab, int exporter_port);
std::string prometheus_config(const std::string& lab, int exporter_port);

// The prometheus binary, if installed.
std::optional<std::string> find_prometheus();

// The command line that runs the lab's server.
std::vector<std::string> prometheus_argv(const std::string& binary, const std::string& lab_dir,
                                         int port);

// True once GET http://127.0.0.1:PORT/PATH answers 200 within `timeout`.
bool http_ok(int port, const std::string& path, std::chrono::milliseconds timeout);

// GET http://127.0.0.1:PORT/TARGET (path and query); the body, or nullopt on failure.
std::optional<std::string> http_get(int port, const std::string& target);

}  // namespace testbed
