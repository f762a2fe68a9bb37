// The lab's own Prometheus server (Debian's `prometheus`): a generated configuration that
// scrapes the lab's exporter every second on loopback, data in the lab's run directory,
// listening on a loopback port of its own (Debian's service keeps :9090).
//
// Each server the lab starts binds its own port (port 0: the kernel picks one free) and
// says which; `up` then proves the server at that port is the one it started, by a nonce
// only root could have given it, before reporting it. A port picked by `up` and bound
// later by the child could be taken in between by any user's process, posing as ours.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace testbed {

// 128 random bits as hex, from the kernel's entropy: a nonce, or a password.
std::string random_hex128();

// How often a lab of `directions` link directions is scraped, in whole seconds (the
// timeout the same): every second up to 5000 directions, the size of every lab the
// dashboards were made on; a larger lab's /metrics takes longer to write than a second
// allows, so its scrapes are spaced to hold the exporter to about a sixth of a core
// (docs/observability.md).
int prometheus_scrape_interval_s(size_t directions);
// The scrape configuration for a lab's exporter, as prometheus.yml text; also what
// `up --prometheus=existing` prints for a server the user runs.
std::string prometheus_scrape_job(const std::string& lab, int exporter_port, size_t directions);
// `nonce` becomes an external label (testbed_nonce), shown by the server's
// /api/v1/status/config: how `up` knows the server is the one it configured.
std::string prometheus_config(const std::string& lab, int exporter_port, size_t directions,
                              const std::string& nonce);

// The prometheus binary, if installed.
std::optional<std::string> find_prometheus();

// The command line that runs the lab's server: on 127.0.0.1, a port of the kernel's choice
// (read back by prometheus_listening_port), without the lifecycle API (so no one on the
// machine can POST /-/quit or /-/reload).
std::vector<std::string> prometheus_argv(const std::string& binary, const std::string& lab_dir);
// The port the server's log says it listens on ("Listening on" address=127.0.0.1:PORT);
// nullopt until it does.
std::optional<int> prometheus_listening_port(const std::string& log_text);
// The same for a Grafana the testbed starts with `http_port = 0` on 127.0.0.1: Grafana
// (7.x and later) logs the listener's own address, msg="HTTP Server Listen"
// address=127.0.0.1:PORT, once it has bound it, so the port is the one its own process
// holds, never one picked earlier and possibly taken meanwhile.
std::optional<int> grafana_listening_port(const std::string& log_text);

// True once GET http://127.0.0.1:PORT/PATH answers 200 within `timeout`.
bool http_ok(int port, const std::string& path, std::chrono::milliseconds timeout);

// GET http://127.0.0.1:PORT/TARGET (path and query); the body, or nullopt on failure.
std::optional<std::string> http_get(int port, const std::string& target);

}  // namespace testbed
