#include "agent/runtime/control_channel.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace testbed {
namespace {

[[noreturn]] void fail(const std::string& call) {
  throw std::system_error(errno, std::generic_category(), call);
}

// An open descriptor, closed on every path.
struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

zmq::socket_t make_dealer(zmq::context_t& context, const std::string& endpoint, int self,
                          const ControlCurve* curve) {
  zmq::socket_t control(context, zmq::socket_type::dealer);
  control.set(zmq::sockopt::routing_id, std::to_string(self));
  control.set(zmq::sockopt::linger, 1000);  // the last event must reach the controller
  control.set(zmq::sockopt::maxmsgsize, kControlFrameBound);
  control.set(zmq::sockopt::rcvhwm, kControlHighWaterMark);
  if (curve) set_control_curve(control, *curve);
  control.connect(endpoint);
  return control;
}

}  // namespace

void set_control_curve(zmq::socket_t& socket, const ControlCurve& curve) {
  socket.set(zmq::sockopt::curve_serverkey, curve.server_public);
  socket.set(zmq::sockopt::curve_publickey, curve.own.public_key);
  socket.set(zmq::sockopt::curve_secretkey, curve.own.secret_key);
}

zmq::socket_t connect_control(zmq::context_t& context, const std::string& endpoint, int self,
                              const std::string& control_netns, const ControlCurve* curve) {
  if (control_netns.empty()) return make_dealer(context, endpoint, self, curve);
  Fd own(open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC));
  if (own.fd < 0) fail("open(/proc/thread-self/ns/net)");
  Fd host(open(control_netns.c_str(), O_RDONLY | O_CLOEXEC));
  if (host.fd < 0) fail("open(" + control_netns + ")");
  if (setns(host.fd, CLONE_NEWNET) != 0) fail("setns(" + control_netns + ")");
  // The context's first socket starts its I/O thread, here, in the host's namespace; the
  // connection itself is made by that thread, so it is in the host's network too.
  zmq::socket_t control;
  try {
    control = make_dealer(context, endpoint, self, curve);
  } catch (...) {
    setns(own.fd, CLONE_NEWNET);
    throw;
  }
  if (setns(own.fd, CLONE_NEWNET) != 0) fail("setns(back to the node's namespace)");
  return control;
}

}  // namespace testbed
