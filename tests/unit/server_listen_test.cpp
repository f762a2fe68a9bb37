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

// A lab of up to 5000 directions is scraped every second, as the dashboards were made
// for; a larger one at 0.54 ms a direction, with a timeout as long, so that a scrape of
// the 10,000-leaf star (1.2 s of wall time) is not cut off at one second.
TEST(ScrapeInterval, EverySecondUpTo5000DirectionsThenSpacedByTheLabsSize) {
  EXPECT_EQ(prometheus_scrape_interval_s(0), 1);
  EXPECT_EQ(prometheus_scrape_interval_s(4000), 1);  // 1000 nodes, 2000 links
  EXPECT_EQ(prometheus_scrape_interval_s(5000), 1);
  EXPECT_EQ(prometheus_scrape_interval_s(5001), 3);    // 2.7 s, in whole seconds
  EXPECT_EQ(prometheus_scrape_interval_s(20000), 11);  // the 10,000-leaf star: 10.8 s
  const std::string job = prometheus_scrape_job("tbx", 9100, 20000);
  EXPECT_NE(job.find("scrape_interval: 11s\n"), std::string::npos) << job;
  EXPECT_NE(job.find("scrape_timeout: 11s\n"), std::string::npos) << job;
  EXPECT_NE(prometheus_config("tbx", 9100, 8, "n").find("scrape_interval: 1s\n"),
            std::string::npos);
}

}  // namespace
}  // namespace testbed
