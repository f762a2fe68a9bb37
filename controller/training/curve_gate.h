// Who may speak on a run's control port across hosts (docs/multihost.md#security): the
// controller's TCP ROUTER is a CURVE server with its host's key, and this gate is its ZAP
// handler (RFC 27), admitting a connection only with one of the placement's other host keys
// and naming that host as the connection's User-Id, so every message it sends is known to
// come from that host (AgentGroup then lets it speak only for that host's nodes).
//
// Refusals are counted from the socket's own handshake events (a key not admitted, no CURVE
// at all, garbage) and described where ZAP saw them; a stranger never reaches the run. The
// gate runs on a thread of its own: a handshake waits on its answer, and the controller's
// loop may be busy.
#pragma once

#include <zmq.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/transport/curve_keys.h"

namespace testbed {

struct AdmittedHosts {
  std::map<std::string, std::string> host_of_key;      // Z85 public key -> host
  std::map<std::string, std::string> host_of_address;  // underlay IPv4 -> host, to name refusals
};

class CurveGate {
 public:
  // Refusals described at most; past it they are counted only (a scanner's reconnections).
  static constexpr size_t kDescribed = 100;

  // Makes `router` a CURVE server with `own` and starts the gate; call before it binds.
  CurveGate(zmq::context_t& context, zmq::socket_t& router, const CurveKeyPair& own,
            AdmittedHosts admitted);
  ~CurveGate();
  CurveGate(const CurveGate&) = delete;
  CurveGate& operator=(const CurveGate&) = delete;

  // Connections whose handshake failed, and the descriptions not taken yet.
  uint64_t refused() const { return refused_; }
  std::vector<std::string> take_refusals();

  // What ZAP answers a request's frames: the host admitted, or "" with `why` set. Pure.
  static std::string admit(const std::vector<std::string>& request, const AdmittedHosts& admitted,
                           std::string& why);

 private:
  void serve(zmq::socket_t zap, zmq::socket_t monitor);
  zmq::socket_t& router_;
  AdmittedHosts admitted_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> refused_{0};
  std::mutex mutex_;
  std::vector<std::string> described_;
  size_t total_described_ = 0;
  std::thread thread_;
};

}  // namespace testbed
