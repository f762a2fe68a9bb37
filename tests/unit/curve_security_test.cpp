// CURVE across hosts, without root, over loopback TCP: key files (0600, halves that belong
// together), the van with a run's keys (members heard, other keys refused at the handshake),
// and the controller's control port (only the placement's hosts, each for its own nodes; a
// stranger counted and never heard). Every wait is bounded far beyond what loopback needs.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>
#include <zmq_addon.hpp>

#include "agent/runtime/control_channel.h"
#include "agent/transport/curve_keys.h"
#include "agent/transport/handshake_watch.h"
#include "agent/transport/van.h"
#include "controller/runs/host_agents.h"
#include "controller/training/agent_group.h"
#include "controller/training/curve_gate.h"

namespace testbed {
namespace {

constexpr auto kPatience = std::chrono::seconds(10);

struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/tb-curve-test-XXXXXX";
    path = mkdtemp(t);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

template <class F>
bool eventually(F done) {
  const auto deadline = std::chrono::steady_clock::now() + kPatience;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

TEST(CurveKeys, AFileRoundTripsAtMode0600AndIsNeverOverwritten) {
  TempDir dir;
  const CurveKeyPair pair = make_curve_key_pair();
  EXPECT_TRUE(valid_curve_key(pair.public_key));
  EXPECT_TRUE(valid_curve_key(pair.secret_key));
  EXPECT_FALSE(valid_curve_key(pair.public_key.substr(1)));
  EXPECT_FALSE(valid_curve_key(std::string(40, '"')));  // not Z85
  const std::string path = dir.path + "/h1.key";
  write_curve_key_file(path, pair, "host h1");
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(read_curve_key_file(path), pair);
  EXPECT_THROW(write_curve_key_file(path, make_curve_key_pair(), "again"), std::runtime_error);
}

TEST(CurveKeys, AFileOthersCanReadOrWithHalvesOfTwoPairsIsRefused) {
  TempDir dir;
  const CurveKeyPair a = make_curve_key_pair(), b = make_curve_key_pair();
  const std::string open_file = dir.path + "/open.key";
  write_curve_key_file(open_file, a, "a");
  chmod(open_file.c_str(), 0644);
  EXPECT_THROW(read_curve_key_file(open_file), std::runtime_error);
  const std::string mixed = dir.path + "/mixed.key";
  write_curve_key_file(mixed, {a.public_key, b.secret_key}, "mixed");
  try {
    read_curve_key_file(mixed);
    FAIL() << "a public half of another pair was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is not the secret key's"), std::string::npos);
  }
}

TEST(CurveKeys, VanKeysRoundTripAndMalformedOnesAreRefusedByName) {
  const VanCurve v = VanCurve::make();
  EXPECT_EQ(van_curve_from_json(to_json(v)), v);
  auto bad = to_json(v);
  bad["client_secret"] = "short";
  try {
    van_curve_from_json(bad);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("van_curve.client_secret"), std::string::npos);
  }
}

WireHeader kv_header(int from, int to) {
  WireHeader h;
  h.kind = WireKind::kPush;
  h.from = h.origin = from;
  h.to = h.dest = to;
  return h;
}

TEST(CurveVan, MembersWithTheRunsKeysAreHeardAndAnotherRunsAreRefused) {
  const VanCurve run = VanCurve::make();
  zmq::context_t c0, c1, c2;
  Van v0(c0, 0, {"tcp://127.0.0.1:*", "tcp://127.0.0.1:*", "tcp://127.0.0.1:*"}, "", 0, run);
  Van v1(c1, 1, {v0.endpoint(), "tcp://127.0.0.1:*", "tcp://127.0.0.1:*"}, "", 0, run);
  v1.send_kv(0, kv_header(1, 0), {3}, {1.5f});
  const auto r = v0.receive(kPatience);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->values, std::vector<float>{1.5f});
  // Another run's keys (the same server key known, a client key not this run's).
  VanCurve other = run;
  other.client = make_curve_key_pair();
  Van v2(c2, 2, {v0.endpoint(), "tcp://127.0.0.1:*", "tcp://127.0.0.1:*"}, "", 0, other);
  v2.send_kv(0, kv_header(2, 0), {4}, {2.5f});
  EXPECT_TRUE(eventually([&] { return v0.refused_connections() >= 1; }));
  EXPECT_FALSE(v0.receive(std::chrono::milliseconds(300)).has_value());
}

// The controller's side of a run over three hosts: h1 (its own, node 0 local), h2 (node 1)
// and h3 (node 2), on loopback.
struct ControlPort {
  TempDir dir;
  zmq::context_t context;
  CurveKeyPair h1 = make_curve_key_pair(), h2 = make_curve_key_pair(), h3 = make_curve_key_pair();
  AgentGroup group{context, dir.path + "/agents.sock", {"a", "b", "c"}};
  std::string endpoint;
  ControlPort() {
    AdmittedHosts admitted;
    admitted.host_of_key = {{h2.public_key, "h2"}, {h3.public_key, "h3"}};
    admitted.host_of_address = {{"127.0.0.1", "h2"}};
    group.listen_for_hosts("tcp://127.0.0.1:*", {false, true, true}, h1, admitted,
                           {"h1", "h2", "h3"});
    endpoint = group.tcp_endpoint();
  }
};

zmq::socket_t client(zmq::context_t& c, const std::string& endpoint, const std::string& id,
                     const CurveKeyPair* own, const std::string& server) {
  zmq::socket_t s(c, zmq::socket_type::dealer);
  s.set(zmq::sockopt::routing_id, id);
  s.set(zmq::sockopt::linger, 0);
  if (own) set_control_curve(s, {*own, server});
  s.connect(endpoint);
  return s;
}

TEST(ControlPort, AHostSpeaksForItsOwnNodesAndNoOneElse) {
  ControlPort p;
  zmq::context_t c;
  auto h2_node = client(c, p.endpoint, "1", &p.h2, p.h1.public_key);
  auto h2_posing_as_h3 = client(c, p.endpoint, "2", &p.h2, p.h1.public_key);
  h2_posing_as_h3.send(zmq::buffer(std::string(R"({"event":"hello"})")));
  h2_node.send(zmq::buffer(std::string(R"({"event":"hello"})")));
  std::optional<std::pair<size_t, nlohmann::json>> e;
  ASSERT_TRUE(eventually([&] {
    e = p.group.next_event(std::chrono::milliseconds(50));
    return e.has_value();
  }));
  EXPECT_EQ(e->first, 1u);
  EXPECT_TRUE(eventually([&] {
    p.group.next_event(std::chrono::milliseconds(20));
    return p.group.spoofed_messages() >= 1;
  }));
  EXPECT_EQ(p.group.refused_connections(), 0u);
}

TEST(ControlPort, StrangersAreRefusedAtTheHandshakeCountedAndNamed) {
  ControlPort p;
  zmq::context_t c;
  const CurveKeyPair stranger_key = make_curve_key_pair();
  // No CURVE at all (ids that are no canonical node, a forged event, a huge frame), and
  // CURVE with a key that is no host's.
  auto plain = client(c, p.endpoint, "00", nullptr, "");
  plain.send(zmq::buffer(std::string(R"({"event":"died"})")));
  auto keyed = client(c, p.endpoint, "1", &stranger_key, p.h1.public_key);
  keyed.send(zmq::buffer(std::string(R"({"event":"clock","clock":18446744073709551615})")));
  std::vector<std::string> refusals;
  EXPECT_TRUE(eventually([&] {
    p.group.next_event(std::chrono::milliseconds(20));
    for (auto& r : p.group.take_refusals()) refusals.push_back(r);
    return p.group.refused_connections() >= 2 && !refusals.empty();
  }));
  EXPECT_FALSE(p.group.next_event(std::chrono::milliseconds(300)).has_value());
  EXPECT_EQ(p.group.spoofed_messages(), 0u);  // none got far enough to be judged
  ASSERT_FALSE(refusals.empty());
  EXPECT_NE(refusals.front().find("127.0.0.1 (host h2's address)"), std::string::npos)
      << refusals.front();
}

// Host h2 connecting to the control port while pinning `server` as the controller's key:
// what its handshake watch comes to.
HandshakeWatch::State pinned_handshake(ControlPort& p, const std::string& server,
                                       const std::string& name) {
  zmq::context_t c;
  zmq::socket_t s(c, zmq::socket_type::dealer);
  s.set(zmq::sockopt::linger, 0);
  set_control_curve(s, {p.h2, server});
  HandshakeWatch watch(c, s, name);
  s.connect(p.endpoint);
  HandshakeWatch::State state = HandshakeWatch::State::waiting;
  eventually([&] {
    p.group.next_event(std::chrono::milliseconds(10));
    state = watch.poll();
    return state != HandshakeWatch::State::waiting;
  });
  if (state == HandshakeWatch::State::failed) {
    EXPECT_FALSE(watch.why().empty());
  }
  return state;
}

TEST(ControlPort, AClientPinningAnotherKeyRefusesTheServer) {
  ControlPort p;
  // h2 expects the controller to be h3: the real server cannot prove h3's key.
  EXPECT_EQ(pinned_handshake(p, p.h3.public_key, "pin-h3"), HandshakeWatch::State::failed);
  EXPECT_EQ(pinned_handshake(p, p.h1.public_key, "pin-h1"), HandshakeWatch::State::succeeded);
}

TEST(CurveGate, AdmitsOnlyCurveWithAPlacementsKey) {
  AdmittedHosts admitted;
  const CurveKeyPair h2 = make_curve_key_pair();
  admitted.host_of_key = {{h2.public_key, "h2"}};
  std::array<uint8_t, 32> raw{};
  ASSERT_NE(zmq_z85_decode(raw.data(), h2.public_key.c_str()), nullptr);
  const std::string binary(reinterpret_cast<const char*>(raw.data()), raw.size());
  std::string why;
  EXPECT_EQ(CurveGate::admit({"1.0", "1", "d", "10.0.0.2", "", "CURVE", binary}, admitted, why),
            "h2");
  EXPECT_EQ(CurveGate::admit({"1.0", "1", "d", "10.0.0.2", "", "PLAIN", "x", "y"}, admitted, why),
            "");
  EXPECT_NE(why.find("without CURVE"), std::string::npos);
  EXPECT_EQ(CurveGate::admit({"1.0", "1", "d", "10.0.0.2", "", "CURVE", std::string(32, 'x')},
                             admitted, why),
            "");
  EXPECT_NE(why.find("no host's in the placement"), std::string::npos);
  EXPECT_EQ(CurveGate::admit({"1.0"}, admitted, why), "");
}

TEST(HostAgents, TheControllersHostIsFoundByItsUnderlayAddressOrNamed) {
  const nlohmann::json placement = {{"hosts",
                                     {{"east", {{"nodes", {"a"}}, {"address", "192.0.2.10"}}},
                                      {"west", {{"nodes", {"b"}}, {"address", "192.0.2.11"}}}}}};
  EXPECT_EQ(controller_host_of(placement, "tcp://192.0.2.11:7199", ""), "west");
  EXPECT_EQ(controller_host_of(placement, "tcp://10.9.9.9:7199", "east"), "east");
  EXPECT_THROW(controller_host_of(placement, "tcp://10.9.9.9:7199", ""), std::runtime_error);
  EXPECT_THROW(controller_host_of(placement, "tcp://192.0.2.11:7199", "north"), std::runtime_error);
}

}  // namespace
}  // namespace testbed
