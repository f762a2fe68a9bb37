#include "controller/observe/metrics_sink.h"

namespace testbed {

std::string metrics_socket(const std::string& lab_dir) {
  return lab_dir + "/metrics.sock";
}

ZmqMetricsSink::ZmqMetricsSink(zmq::context_t& context, const std::string& socket_path)
    : socket_(context, zmq::socket_type::push) {
  // Queue nothing for an exporter that is not there (immediate), and give the last events
  // of a run a second to reach one that is (linger).
  socket_.set(zmq::sockopt::immediate, 1);
  socket_.set(zmq::sockopt::linger, 1000);
  socket_.connect("ipc://" + socket_path);
}

void ZmqMetricsSink::publish(const nlohmann::json& event) {
  // dontwait: a missing or stuck exporter must not slow the run; the event is dropped.
  (void)socket_.send(zmq::buffer(event.dump()), zmq::send_flags::dontwait);
}

}  // namespace testbed
