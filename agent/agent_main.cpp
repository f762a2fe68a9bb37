// testbed-agent: one data center's node, started inside the node's namespace by
// `testbed train` (control over the lab's ipc:// socket) or, on another host of a lab spread
// over hosts, by `testbed agents` (control over TCP with CURVE, made in the host's namespace).
// usage: testbed-agent --control ipc://PATH|tcp://ADDR:PORT --node INDEX [--lab-dir DIR]
//          [--control-netns PATH] [--curve-key FILE --server-key KEY]
#include <zmq.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

#include <sys/stat.h>

#include "agent/protocols/protocol_registry.h"
#include "agent/runtime/control_channel.h"
#include "agent/runtime/node_runtime.h"

int main(int argc, char** argv) {
  umask(077);  // what it writes (a DRPS store, logs) is root's alone, as everything of a lab
  std::string control, control_netns, lab_dir, curve_key, server_key;
  int node = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    if (opt == "--control") control = argv[i + 1];
    if (opt == "--node") node = std::atoi(argv[i + 1]);
    if (opt == "--control-netns") control_netns = argv[i + 1];
    if (opt == "--lab-dir") lab_dir = argv[i + 1];
    if (opt == "--curve-key") curve_key = argv[i + 1];
    if (opt == "--server-key") server_key = argv[i + 1];
  }
  if (control.empty() || node < 0 || curve_key.empty() != server_key.empty()) {
    std::fprintf(stderr,
                 "usage: testbed-agent --control ipc://PATH|tcp://ADDR:PORT --node INDEX "
                 "[--lab-dir DIR] [--control-netns PATH] [--curve-key FILE --server-key KEY]\n");
    return 2;
  }
  // Two contexts when the channel lives in another namespace: each context's I/O thread
  // stays in the namespace it was started in (control_channel.h).
  zmq::context_t control_context, van_context;
  try {
    std::optional<testbed::ControlCurve> curve;
    if (!curve_key.empty()) {
      if (!testbed::valid_curve_key(server_key))
        throw std::runtime_error("--server-key: a 40-character Z85 key");
      curve = testbed::ControlCurve{testbed::read_curve_key_file(curve_key), server_key};
    }
    zmq::socket_t channel =
        testbed::connect_control(control_netns.empty() ? van_context : control_context, control,
                                 node, control_netns, curve ? &*curve : nullptr);
    return testbed::NodeRuntime(van_context, std::move(channel), node, testbed::make_protocol,
                                lab_dir)
        .run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "testbed-agent: %s\n", e.what());
    return 1;
  }
}
