#include "agent/transport/van.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace testbed {
namespace {

// ZeroMQ's high-water marks count messages, not bytes: with chunks of up to 4 MB, 64
// queued chunks bound a peer's queue at 256 MB, while never blocking a whole iteration's
// sends to one parent (NetStorm's chunking of the largest models gives tens of chunks).
constexpr int kHighWaterMark = 64;

// ZeroMQ asks the handler bound here whether a connection may be heard (RFC 27, ZAP); the
// user name is fixed, the password is the run's secret.
constexpr const char* kZapEndpoint = "inproc://zeromq.zap.01";
constexpr const char* kUser = "testbed";
// Handshakes that fail: a stranger without the secret or speaking something else.
constexpr int kRefusedEvents = ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                               ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                               ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;
// A connection cut after its handshake (a frame over the limit; a peer that went away).
constexpr int kDroppedEvents = ZMQ_EVENT_DISCONNECTED;
// A peer's connection this node could not take (out of descriptors): the peer waits on it
// for good, so it is said in the node's log, where a silent peer's cause is looked for.
constexpr int kAcceptFailedEvents = ZMQ_EVENT_ACCEPT_FAILED;

// A connection by its routing id: a member's is its node index; a stranger's is ZeroMQ's
// binary id, written in hex so that reports stay text.
std::string connection_name(const zmq::message_t& id) {
  const std::string raw = id.to_string();
  if (!raw.empty() && raw.size() < 8 &&
      std::all_of(raw.begin(), raw.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return raw;
  std::string hex = "peer-";
  for (unsigned char c : raw) {
    static const char* const kDigits = "0123456789abcdef";
    hex += kDigits[c >> 4];
    hex += kDigits[c & 15];
  }
  return hex;
}

// ZeroMQ's own default listen backlog (ZMQ_BACKLOG), kept for small runs.
constexpr size_t kDefaultBacklog = 100;

}  // namespace

Van::Van(zmq::context_t& context, int self, std::vector<std::string> endpoints,
         const std::string& secret, uint64_t max_message, std::optional<VanCurve> curve)
    : context_(context),
      self_(self),
      endpoints_(std::move(endpoints)),
      router_(context, zmq::socket_type::router),
      inbox_(context, zmq::socket_type::pair),
      stop_(context, zmq::socket_type::pair),
      secret_(secret),
      curve_(std::move(curve)) {
  router_.set(zmq::sockopt::rcvhwm, kHighWaterMark);
  router_.set(zmq::sockopt::linger, 0);
  // Room in the listen queue for every other node connecting at once, as a hub's leaves do
  // at a run's start: ZeroMQ's default of 100 overflowed at 1000 leaves (the hub's
  // ListenOverflows 112, ListenDrops 156), and each dropped connection waits out SYN
  // retries of 1, 3, 7 s... The kernel caps it at the namespace's net.core.somaxconn
  // (4096 by default).
  router_.set(zmq::sockopt::backlog,
              static_cast<int>(std::max<size_t>(kDefaultBacklog, endpoints_.size())));
  // ZeroMQ checks each frame's declared length against this before allocating it; the
  // header frame is fixed and small, so the bound is the payload's, at least a header's.
  if (max_message > 0)
    router_.set(zmq::sockopt::maxmsgsize,
                static_cast<int64_t>(std::max<uint64_t>(max_message, sizeof(WireHeader))));
  // Bound before the router's port opens, so no connection is ever unchecked.
  std::optional<zmq::socket_t> zap;
  zmq::socket_t monitor(context, zmq::socket_type::pair);
  const std::string monitor_address = "inproc://van-monitor-" + std::to_string(self_);
  if (!secret_.empty() || curve_) {
    zap.emplace(context, zmq::socket_type::rep);
    zap->set(zmq::sockopt::linger, 0);
    zap->bind(kZapEndpoint);
    if (curve_) {
      router_.set(zmq::sockopt::curve_server, 1);
      router_.set(zmq::sockopt::curve_secretkey, curve_->server.secret_key);
    } else {
      router_.set(zmq::sockopt::plain_server, 1);
    }
    router_.set(zmq::sockopt::zap_domain, "testbed");
  }
  if (zmq_socket_monitor(router_.handle(), monitor_address.c_str(),
                         kRefusedEvents | kDroppedEvents | kAcceptFailedEvents) != 0)
    throw std::runtime_error(std::string("zmq_socket_monitor: ") + zmq_strerror(zmq_errno()));
  monitor.set(zmq::sockopt::linger, 0);
  monitor.connect(monitor_address);
  router_.bind(endpoints_.at(static_cast<size_t>(self)));
  bound_ = router_.get(zmq::sockopt::last_endpoint);
  // Unbounded: what a node holds is bounded by an iteration's chunks, and the receiving
  // thread must never block.
  inbox_.set(zmq::sockopt::rcvhwm, 0);
  inbox_.set(zmq::sockopt::linger, 0);
  const std::string address = "inproc://van-inbox-" + std::to_string(self_);
  inbox_.bind(address);
  // The receiving thread sleeps until something arrives, its stop included: it used to wake
  // every 100 ms to look at a flag, and a box of 1000 idle agents spent both its CPUs on
  // those 10,000 wake-ups a second (a hypervisor call each on a paravirtualized guest).
  zmq::socket_t stopped(context, zmq::socket_type::pair);
  const std::string stop_address = "inproc://van-stop-" + std::to_string(self_);
  stopped.set(zmq::sockopt::linger, 0);
  stopped.bind(stop_address);
  stop_.set(zmq::sockopt::linger, 0);
  stop_.connect(stop_address);
  receiver_ = std::thread([this, address, zap = std::move(zap), monitor = std::move(monitor),
                           stopped = std::move(stopped)]() mutable {
    zmq::socket_t out(context_, zmq::socket_type::pair);
    out.set(zmq::sockopt::sndhwm, 0);
    out.set(zmq::sockopt::linger, 0);
    out.connect(address);
    for (;;) {
      zmq::pollitem_t items[4] = {{router_.handle(), 0, ZMQ_POLLIN, 0},
                                  {monitor.handle(), 0, ZMQ_POLLIN, 0},
                                  {stopped.handle(), 0, ZMQ_POLLIN, 0},
                                  {zap ? zap->handle() : nullptr, 0, ZMQ_POLLIN, 0}};
      if (zmq::poll(items, zap ? 4 : 3, std::chrono::milliseconds(-1)) <= 0) continue;
      if (items[2].revents & ZMQ_POLLIN) break;
      if (items[3].revents & ZMQ_POLLIN) answer_zap(*zap);
      if (items[1].revents & ZMQ_POLLIN) {
        // The event (a 16-bit number, then a 32-bit value) and its endpoint.
        std::vector<zmq::message_t> event;
        if (zmq::recv_multipart(monitor, std::back_inserter(event)) && !event.empty() &&
            event[0].size() >= sizeof(uint16_t)) {
          uint16_t number = 0;
          std::memcpy(&number, event[0].data(), sizeof number);
          if (number & kAcceptFailedEvents)
            note_accept_failure(event[0]);
          else
            ++(number & kDroppedEvents ? dropped_ : refused_);
        }
      }
      if (!(items[0].revents & ZMQ_POLLIN)) continue;
      std::vector<zmq::message_t> frames;
      if (!zmq::recv_multipart(router_, std::back_inserter(frames))) continue;
      const int64_t now = monotonic_ns();
      out.send(zmq::buffer(&now, sizeof now), zmq::send_flags::sndmore);
      zmq::send_multipart(out, frames);
    }
    // The monitor is stopped here, while its receiving end is still open. ZeroMQ's I/O
    // thread sends each event blocking, holding the socket's monitor lock; with the
    // receiving end closed (as it is once this thread returns), an event of peers
    // leaving at the end of a run (several quit together) blocked it for good, and the
    // stop waited on that lock: an agent that never exited after quit, seen under load.
    zmq_socket_monitor(router_.handle(), nullptr, 0);
  });
}

Van::~Van() {
  stop_.send(zmq::str_buffer("stop"), zmq::send_flags::dontwait);
  receiver_.join();
}

void Van::note_accept_failure(const zmq::message_t& event) {
  if (accept_failures_++ > 0) return;  // once: the same cause repeats for every try
  uint32_t error = 0;
  if (event.size() >= sizeof(uint16_t) + sizeof error)
    std::memcpy(&error, static_cast<const char*>(event.data()) + sizeof(uint16_t), sizeof error);
  std::fprintf(stderr, "testbed-agent: node %d cannot accept a peer's connection: %s\n", self_,
               std::strerror(static_cast<int>(error)));
}

void Van::answer_zap(zmq::socket_t& zap) {
  // version, request id, domain, address, identity, mechanism, then the credentials.
  std::vector<zmq::message_t> request;
  if (!zmq::recv_multipart(zap, std::back_inserter(request))) return;
  const auto text = [&](size_t i) { return i < request.size() ? request[i].to_string() : ""; };
  bool ok;
  if (curve_) {
    // CURVE has proven the client holds the secret half of the key it presents (frame 6,
    // 32 bytes); a public key is no secret, so a plain comparison is enough.
    ok = text(5) == "CURVE" && curve_key_to_z85(text(6)) == curve_->client.public_key;
  } else {
    // The secret compared in constant time: how long a refusal takes says nothing of it.
    const std::string given = text(7);
    unsigned char differ = given.size() == secret_.size() ? 0 : 1;
    for (size_t i = 0; i < given.size() && i < secret_.size(); ++i)
      differ |= static_cast<unsigned char>(given[i] ^ secret_[i]);
    ok = text(5) == "PLAIN" && text(6) == kUser && differ == 0;
  }
  std::vector<zmq::message_t> reply;
  reply.emplace_back(std::string("1.0"));
  reply.emplace_back(text(1));
  reply.emplace_back(std::string(ok ? "200" : "400"));
  reply.emplace_back(std::string(ok ? "OK" : "not this run's"));
  reply.emplace_back(std::string(ok ? "member" : ""));
  reply.emplace_back();
  zmq::send_multipart(zap, reply);
}

zmq::socket_t& Van::dealer(int to) {
  auto it = dealers_.find(to);
  if (it != dealers_.end()) return it->second;
  zmq::socket_t s(context_, zmq::socket_type::dealer);
  s.set(zmq::sockopt::routing_id, std::to_string(self_));
  if (curve_) {
    s.set(zmq::sockopt::curve_serverkey, curve_->server.public_key);
    s.set(zmq::sockopt::curve_publickey, curve_->client.public_key);
    s.set(zmq::sockopt::curve_secretkey, curve_->client.secret_key);
  } else if (!secret_.empty()) {
    s.set(zmq::sockopt::plain_username, kUser);
    s.set(zmq::sockopt::plain_password, secret_);
  }
  s.set(zmq::sockopt::sndhwm, kHighWaterMark);
  // Every iteration ends only when all its chunks arrived, so nothing is in flight when a
  // node closes: no need to linger.
  s.set(zmq::sockopt::linger, 0);
  s.connect(endpoints_.at(static_cast<size_t>(to)));
  return dealers_.emplace(to, std::move(s)).first->second;
}

void Van::send(const ChunkMessage& m, const std::vector<int>& route, bool wants_ack) {
  send_chunk(dealer(route.at(1)), m, route, wants_ack);
  bytes_sent_[route[1]] += sizeof(WireHeader) + m.data.size() * sizeof(float);
}

void Van::forward(const Received& r, int next) {
  forward_chunk(dealer(next), r.header, self_, next, r.chunk.data);
  bytes_sent_[next] += sizeof(WireHeader) + r.payload_bytes;
}

void Van::acknowledge(const Received& r) {
  send_ack(dealer(r.header.origin), r.header);
  bytes_sent_[r.header.origin] += sizeof(WireHeader);
}

void Van::probe(int to, uint32_t seq, size_t bytes) {
  send_probe(dealer(to), self_, to, seq, bytes);
  bytes_sent_[to] += sizeof(WireHeader) + bytes;
}

void Van::send_kv(int to, WireHeader header, const std::vector<uint32_t>& keys,
                  const std::vector<float>& values) {
  header.from = self_;
  header.to = to;
  bytes_sent_[to] += testbed::send_kv(dealer(to), header, keys, values);
}

bool Van::try_send_header(int to, WireHeader header) {
  header.from = self_;
  header.to = to;
  if (!testbed::try_send_header(dealer(to), header)) return false;
  bytes_sent_[to] += sizeof header;
  return true;
}

std::optional<Received> Van::receive(std::chrono::milliseconds timeout) {
  // A malformed message is dropped and the wait goes on for a good one, within `timeout`.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    zmq::pollitem_t item{inbox_.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, std::max(left, std::chrono::milliseconds(0))) <= 0) return std::nullopt;
    std::vector<zmq::message_t> frames;
    if (!zmq::recv_multipart(inbox_, std::back_inserter(frames)) || frames.size() < 2)
      return std::nullopt;
    int64_t arrived = 0;
    std::memcpy(&arrived, frames.front().data(), sizeof arrived);
    frames.erase(frames.begin());
    const std::string connection = connection_name(frames[0]);
    auto counted = malformed_.find(connection);
    if (counted != malformed_.end() && counted->second >= kMuteAfter) {
      ++counted->second;  // muted: counted, never read
      continue;
    }
    std::string why;
    Received r;
    try {
      r = decode(frames);
      why = not_this_runs(r, frames[0].to_string(), self_, static_cast<int>(endpoints_.size()));
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (!why.empty()) {
      ++malformed_[connection];
      continue;
    }
    r.received_ns = arrived;
    bytes_received_[r.header.from] += sizeof(WireHeader) + r.payload_bytes;
    return r;
  }
}

}  // namespace testbed
