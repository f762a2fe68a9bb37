// The ports the lab's own servers bound themselves, read from their logs
// (prometheus_server.h): the listener's address each prints once bound, never a port picked
// earlier by us, and nothing that merely looks like it.
#include "controller/observe/prometheus_server.h"

#include <gtest/gtest.h>

namespace testbed {
namespace {

TEST(ServerListen, PrometheusNamesTheListenerItBound) {
  EXPECT_EQ(
      prometheus_listening_port("ts=2026-12-05T10:00:00Z caller=tls_config.go:274 level=info "
                                "component=web msg=\"Listening on\" address=127.0.0.1:40213\n"),
      40213);
  EXPECT_FALSE(prometheus_listening_port("msg=\"Listening on\" address=0.0.0.0:9090\n"));
  EXPECT_FALSE(prometheus_listening_port("level=info msg=\"Starting Prometheus\"\n"));
}

TEST(ServerListen, GrafanaNamesTheListenerItBound) {
  const std::string log =
      "logger=settings t=2026-12-05T10:00:00Z level=info msg=\"Starting Grafana\" "
      "version=10.2.3\n"
      "logger=http.server t=2026-12-05T10:00:02Z level=info msg=\"HTTP Server Listen\" "
      "address=127.0.0.1:37251 protocol=http subUrl= socket=\n";
  EXPECT_EQ(grafana_listening_port(log), 37251);
  // Port 0 as configured, another address, a port out of range, or no line yet: no port.
  for (const char* bad :
       {"msg=\"HTTP Server Listen\" address=127.0.0.1:0 protocol=http\n",
        "msg=\"HTTP Server Listen\" address=[::]:3000 protocol=http\n",
        "msg=\"HTTP Server Listen\" address=127.0.0.1:99999 protocol=http\n",
        "msg=\"HTTP Server Listen\" address=127.0.0.1:3000",  // the line not ended yet
        "logger=settings level=info msg=\"Starting Grafana\"\n"})
    EXPECT_FALSE(grafana_listening_port(bad)) << bad;
}

}  // namespace
}  // namespace testbed
