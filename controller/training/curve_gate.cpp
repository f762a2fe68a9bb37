#include "controller/training/curve_gate.h"

#include <zmq_addon.hpp>

#include <cstring>

namespace testbed {
namespace {

// libzmq asks the handler bound here (one per context).
constexpr const char* kZapEndpoint = "inproc://zeromq.zap.01";
constexpr const char* kMonitor = "inproc://tb-control-gate-monitor";
constexpr int kRefusedEvents = ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                               ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                               ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;
// The gate wakes this often to notice it is stopped.
constexpr auto kPollTick = std::chrono::milliseconds(100);

}  // namespace

std::string CurveGate::admit(const std::vector<std::string>& request, const AdmittedHosts& admitted,
                             std::string& why) {
  // version, request id, domain, address, routing id, mechanism, then the credentials.
  const auto frame = [&](size_t i) { return i < request.size() ? request[i] : std::string(); };
  const std::string address = frame(3);
  const auto known = admitted.host_of_address.find(address);
  const std::string from =
      address +
      (known == admitted.host_of_address.end() ? "" : " (host " + known->second + "'s address)");
  if (frame(0) != "1.0" || frame(5) != "CURVE") {
    why = "a connection from " + from + " without CURVE";
    return "";
  }
  const std::string key = curve_key_to_z85(frame(6));
  const auto host = key.empty() ? admitted.host_of_key.end() : admitted.host_of_key.find(key);
  if (host == admitted.host_of_key.end()) {
    why = "a connection from " + from + " with a key that is no host's in the placement (" +
          (key.empty() ? "malformed" : key.substr(0, 8) + "...") + ")";
    return "";
  }
  return host->second;
}

CurveGate::CurveGate(zmq::context_t& context, zmq::socket_t& router, const CurveKeyPair& own,
                     AdmittedHosts admitted)
    : router_(router), admitted_(std::move(admitted)) {
  zmq::socket_t zap(context, zmq::socket_type::rep);
  zap.set(zmq::sockopt::linger, 0);
  zap.bind(kZapEndpoint);  // before the router can accept: no connection is ever unchecked
  router.set(zmq::sockopt::curve_server, 1);
  router.set(zmq::sockopt::curve_secretkey, own.secret_key);
  router.set(zmq::sockopt::zap_domain, "testbed-control");
  if (zmq_socket_monitor(router.handle(), kMonitor, kRefusedEvents) != 0)
    throw std::runtime_error(std::string("zmq_socket_monitor: ") + zmq_strerror(zmq_errno()));
  zmq::socket_t monitor(context, zmq::socket_type::pair);
  monitor.set(zmq::sockopt::linger, 0);
  monitor.connect(kMonitor);
  thread_ = std::thread([this, zap = std::move(zap), monitor = std::move(monitor)]() mutable {
    serve(std::move(zap), std::move(monitor));
  });
}

CurveGate::~CurveGate() {
  // The monitor is stopped while its reading end is open (van.cpp says why), then the thread.
  zmq_socket_monitor(router_.handle(), nullptr, 0);
  stop_ = true;
  thread_.join();
}

std::vector<std::string> CurveGate::take_refusals() {
  std::lock_guard lock(mutex_);
  return std::exchange(described_, {});
}

void CurveGate::serve(zmq::socket_t zap, zmq::socket_t monitor) {
  while (!stop_) {
    zmq::pollitem_t items[2] = {{zap.handle(), 0, ZMQ_POLLIN, 0},
                                {monitor.handle(), 0, ZMQ_POLLIN, 0}};
    if (zmq::poll(items, 2, kPollTick) <= 0) continue;
    if (items[0].revents & ZMQ_POLLIN) {
      std::vector<zmq::message_t> request;
      if (!zmq::recv_multipart(zap, std::back_inserter(request))) continue;
      std::vector<std::string> frames;
      for (const auto& m : request) frames.push_back(m.to_string());
      std::string why;
      const std::string host = admit(frames, admitted_, why);
      if (host.empty()) {
        std::lock_guard lock(mutex_);
        if (total_described_++ < kDescribed) described_.push_back(why);
      }
      std::vector<zmq::message_t> reply;
      reply.emplace_back(std::string("1.0"));
      reply.emplace_back(frames.size() > 1 ? frames[1] : std::string());
      reply.emplace_back(std::string(host.empty() ? "400" : "200"));
      reply.emplace_back(std::string(host.empty() ? "not a host of this lab" : "OK"));
      reply.emplace_back(host);  // the User-Id of every message on the connection
      reply.emplace_back();
      zmq::send_multipart(zap, reply);
    }
    if (items[1].revents & ZMQ_POLLIN) {
      std::vector<zmq::message_t> event;
      if (zmq::recv_multipart(monitor, std::back_inserter(event)) && !event.empty() &&
          event[0].size() >= sizeof(uint16_t))
        ++refused_;
    }
  }
}

}  // namespace testbed
