// Anything a user runs in a node can reach the agents' ports. A process in n4's namespace
// opens 40 TCP connections to n1's agent (port 7100) and sends each a ZMTP greeting, a
// handshake and random messages, during a parameter-server run: before, such a run died
// ("node n1: malformed message: 3 frames"). Now the strangers fail the handshake (they lack the
// run's secret), are counted, and the run completes with every iteration; three seeds.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "testbed_cli.h"

namespace testbed::it {
namespace {

const std::string kLab = "tbt-line4";

// 40 connections, each a ZMTP 3.0 greeting (signature, version, the NULL mechanism, as a
// client), the NULL mechanism's READY as a DEALER, 1-20 random multipart messages and
// 1-4096 random bytes: without the secret, an agent that accepted the handshake would
// take these as messages of the run. A connection the agent closes first is fine.
const char* const kGarbage = R"(
import random, socket, struct, sys
host, seed = sys.argv[1], int(sys.argv[2])
rng = random.Random(seed)
greeting = b"\xff" + b"\0" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\0") + b"\0" * 32
# The NULL mechanism READY command, as a DEALER: a peer that completes the handshake.
ready_body = b"\x05READY" + b"\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
ready = b"\x04" + bytes([len(ready_body)]) + ready_body
def frames():
    n = rng.randint(1, 5)
    out = b""
    for i in range(n):
        body = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 200)))
        out += bytes([1 if i + 1 < n else 0, len(body)]) + body
    return out
opened = []
for _ in range(40):
    try:
        s = socket.create_connection((host, 7100), timeout=5)
    except OSError:  # the agent is gone: its run ended (or died, before the fix)
        break
    try:
        s.sendall(greeting)
        s.recv(64)  # the agent greeting: it names its mechanism
        s.sendall(ready + b"".join(frames() for _ in range(rng.randint(1, 20))))
        s.sendall(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 4096))))
    except OSError:
        pass
    opened.append(s)
for s in opened:
    s.close()
print("sent", len(opened))
)";

class HostilePeers : public Line4Lab {};

TEST_F(HostilePeers, GarbageFromInsideANodeNeitherEndsNorJoinsTheRun) {
  REQUIRE_ROOT();
  for (const std::string seed : {"1", "2", "3"}) {
    BackgroundTrain trainer(guard_, kLab,
                            {"--strategy", "bsp", "--model", "mf", "--iterations", "60",
                             "--compute-ms", "20", "--json"},
                            "/tmp/tbt-hostile-train.log");
    // Under way: every agent listens on its port.
    ASSERT_TRUE(trainer.wait_for("iteration 2/", 60)) << trainer.output();
    const Result garbage = run_testbed({"exec", "--lab", kLab, "n4", "--", "/usr/bin/python3", "-c",
                                        kGarbage, "198.18.0.1", seed});
    EXPECT_EQ(garbage.status, 0) << garbage.output;
    EXPECT_NE(garbage.output.find("sent 40"), std::string::npos) << garbage.output;
    const int status = trainer.wait();
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << trainer.output();
    const auto summary = summary_of(trainer.output());
    EXPECT_EQ(summary["iterations"], 60) << seed;
    // Every connection is refused at the handshake; a few may close before ZeroMQ reads
    // their greeting, so most, not all, are counted.
    EXPECT_GE(summary["peers"]["refused_connections"].value("n1", 0), 20) << summary["peers"];
    EXPECT_EQ(summary["peers"]["malformed_total"], 0) << summary["peers"];
  }
}

}  // namespace
}  // namespace testbed::it
