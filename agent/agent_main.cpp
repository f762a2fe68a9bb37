// testbed-agent: one data center's node, started inside the node's namespace by
// `testbed train` (control over the lab's ipc:// socket) or, on another host of a lab spread
// over hosts, by `testbed agents` (control over TCP with CURVE, made in the host's namespace).
// usage: testbed-agent --control ipc://PATH|tcp://ADDR:PORT --node INDEX [--nodes COUNT]
//          [--lab-dir DIR] [--control-netns PATH] [--curve-key FILE --server-key KEY]
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
#include "netns/open_files_limit.h"

namespace {

// What a node may hold with every other node of its lab as a peer: each peer's connection
// into its router (a descriptor), and its own dealer to the peer (a ZeroMQ socket: its
// mailbox's eventfd and its connection). A hub serving 1000 leaves holds about 3000, past
// the host's usual soft limit of 1024 descriptors and ZeroMQ's default of 1023 sockets a
// context: such a hub stopped accepting connections, and its leaves sat silent at 'ready'.
constexpr size_t kFilesPerPeer = 3;
// The rest: the control channel, the van's router, inbox, monitor and ZAP handler, the I/O
// thread's poller, logs and a DRPS store's files.
constexpr size_t kOtherFiles = 64;
constexpr int kOtherSockets = 16;

// Sized before the context's first socket: ZeroMQ fixes its table of sockets then.
void size_for_peers(zmq::context_t& context, int nodes) {
  if (nodes <= 0) return;
  testbed::ensure_open_files_limit(kOtherFiles + kFilesPerPeer * static_cast<size_t>(nodes));
  if (nodes + kOtherSockets > ZMQ_MAX_SOCKETS_DFLT)
    context.set(zmq::ctxopt::max_sockets, nodes + kOtherSockets);
}

}  // namespace

int main(int argc, char** argv) {
  umask(077);  // what it writes (a DRPS store, logs) is root's alone, as everything of a lab
  std::string control, control_netns, lab_dir, curve_key, server_key;
  int node = -1, nodes = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    if (opt == "--control") control = argv[i + 1];
    if (opt == "--node") node = std::atoi(argv[i + 1]);
    if (opt == "--nodes") nodes = std::atoi(argv[i + 1]);
    if (opt == "--control-netns") control_netns = argv[i + 1];
    if (opt == "--lab-dir") lab_dir = argv[i + 1];
    if (opt == "--curve-key") curve_key = argv[i + 1];
    if (opt == "--server-key") server_key = argv[i + 1];
  }
  if (control.empty() || node < 0 || curve_key.empty() != server_key.empty()) {
    std::fprintf(stderr,
                 "usage: testbed-agent --control ipc://PATH|tcp://ADDR:PORT --node INDEX "
                 "[--nodes COUNT] [--lab-dir DIR] [--control-netns PATH] "
                 "[--curve-key FILE --server-key KEY]\n");
    return 2;
  }
  // Two contexts when the channel lives in another namespace: each context's I/O thread
  // stays in the namespace it was started in (control_channel.h).
  zmq::context_t control_context, van_context;
  try {
    size_for_peers(van_context, nodes);
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
