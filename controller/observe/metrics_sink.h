// Where `testbed train` publishes its metric events (see train_metrics.h): the lab's
// exporter, over a filesystem socket on the host, so metrics never cross the shaped links.
// Publishing never blocks training: with no exporter listening, events are dropped.
#pragma once

#include <nlohmann/json.hpp>
#include <zmq.hpp>

#include <string>

namespace testbed {

class MetricsSink {
 public:
  virtual ~MetricsSink() = default;
  virtual void publish(const nlohmann::json& event) = 0;
};

class ZmqMetricsSink : public MetricsSink {
 public:
  ZmqMetricsSink(zmq::context_t& context, const std::string& socket_path);
  void publish(const nlohmann::json& event) override;

 private:
  zmq::socket_t socket_;
};

// The exporter's socket in a lab's run directory.
std::string metrics_socket(const std::string& lab_dir);

}  // namespace testbed
