#include "van.h"

#include <cstring>

namespace testbed {
namespace {

// ZeroMQ's high-water marks count messages, not bytes: with chunks of up to 4 MB, 64
// queued chunks bound a peer's queue at 256 MB, while never blocking a whole iteration's
// sends to one parent (NetStorm's chunking of the largest models gives tens of chunks).
constexpr int kHighWaterMark = 64;

}  // namespace

Van::Van(zmq::context_t& context, int self, std::vector<std::string> endpoints)
    : context_(context),
      self_(self),
      endpoints_(std::move(endpoints)),
      router_(context, zmq::socket_type::router),
      inbox_(context, zmq::socket_type::pair) {
  router_.set(zmq::sockopt::rcvhwm, kHighWaterMark);
  router_.set(zmq::sockopt::linger, 0);
  router_.bind(endpoints_.at(static_cast<size_t>(self)));
  // Unbounded: what a node holds is bounded by an iteration's chunks, and the receiving
  // thread must never block.
  inbox_.set(zmq::sockopt::rcvhwm, 0);
  inbox_.set(zmq::sockopt::linger, 0);
  const std::string address = "inproc://van-inbox-" + std::to_string(self_);
  inbox_.bind(address);
  receiver_ = std::thread([this, address] {
    zmq::socket_t out(context_, zmq::socket_type::pair);
    out.set(zmq::sockopt::sndhwm, 0);
    out.set(zmq::sockopt::linger, 0);
    out.connect(address);
    while (!stop_) {
      zmq::pollitem_t item{router_.handle(), 0, ZMQ_POLLIN, 0};
      // Wake every 100 ms to notice stop_.
      if (zmq::poll(&item, 1, std::chrono::milliseconds(100)) <= 0) continue;
      std::vector<zmq::message_t> frames;
      if (!zmq::recv_multipart(router_, std::back_inserter(frames))) continue;
      const int64_t now = monotonic_ns();
      out.send(zmq::buffer(&now, sizeof now), zmq::send_flags::sndmore);
      zmq::send_multipart(out, frames);
    }
  });
}

Van::~Van() {
  stop_ = true;
  receiver_.join();
}

zmq::socket_t& Van::dealer(int to) {
  auto it = dealers_.find(to);
  if (it != dealers_.end()) return it->second;
  zmq::socket_t s(context_, zmq::socket_type::dealer);
  s.set(zmq::sockopt::routing_id, std::to_string(self_));
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

nlohmann::json Van::byte_counters() const {
  const auto to_json = [](const std::map<int, uint64_t>& m) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [peer, bytes] : m) j[std::to_string(peer)] = bytes;
    return j;
  };
  return {{"bytes_sent", to_json(bytes_sent_)}, {"bytes_received", to_json(bytes_received_)}};
}

std::optional<Received> Van::receive(std::chrono::milliseconds timeout) {
  zmq::pollitem_t item{inbox_.handle(), 0, ZMQ_POLLIN, 0};
  if (zmq::poll(&item, 1, timeout) <= 0) return std::nullopt;
  std::vector<zmq::message_t> frames;
  if (!zmq::recv_multipart(inbox_, std::back_inserter(frames)) || frames.empty())
    return std::nullopt;
  int64_t arrived = 0;
  std::memcpy(&arrived, frames.front().data(), sizeof arrived);
  frames.erase(frames.begin());
  Received r = decode(frames);
  r.received_ns = arrived;
  bytes_received_[r.header.from] += sizeof(WireHeader) + r.payload_bytes;
  return r;
}

}  // namespace testbed
