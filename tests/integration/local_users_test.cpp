// Nothing of a lab is open to the other users of the machine. The testbed runs as root; an
// unprivileged user (nobody, through runuser) tries what the issue that asked for this
// listed: reading or connecting to the lab's sockets, making root write where the user
// says (a delay line's stats request, a report into a directory or through a link the user
// planted), squatting the exporter's port, and stopping Prometheus through its API. Every
// attempt is refused, and nothing of the lab or the host changes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <zmq.hpp>

#include "agent/transport/private_ipc.h"
#include "host_snapshot.h"
#include "testbed_cli.h"

namespace testbed::it {
namespace {

namespace fs = std::filesystem;

constexpr uid_t kNobody = 65534;

// Runs `command` (a shell command line) as nobody; its exit status.
int as_nobody(const std::string& command) {
  return WEXITSTATUS(
      std::system(("runuser -u nobody -- sh -c '" + command + "' >/dev/null 2>&1").c_str()));
}

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(lstat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

// Debian's python3, which nobody can run (the PATH's may be root's own).
const char* kPython = "/usr/bin/python3";

class LocalUsers : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!running_as_root()) GTEST_SKIP() << "needs root: brings a lab up";
    // The caller's umask must not matter: the most open one there is.
    const mode_t old = umask(0);
    const Result up = run_testbed({"up", profile_as_lab("tiny/triangle.yaml", lab_)});
    umask(old);
    ASSERT_EQ(up.status, 0) << up.output;
    dir_ = "/run/testbed/" + lab_;
  }
  std::string lab_ = "tbt-users";
  fs::path dir_;
  LabGuard guard_{lab_};
};

TEST_F(LocalUsers, LabDirectoryAndSocketsAreRootsAloneWhateverTheUmask) {
  EXPECT_EQ(mode_of("/run/testbed"), 0700u);
  EXPECT_EQ(mode_of(dir_), 0700u);
  int sockets = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir_)) {
    const mode_t m = mode_of(e.path());
    if (e.is_socket()) {
      ++sockets;
      EXPECT_EQ(m, 0600u) << e.path();
    } else if (!e.is_symlink()) {
      EXPECT_EQ(m & 077, 0u) << e.path() << " is open to group or others";
    }
  }
  // The exporter's, and with the delay line, its.
  EXPECT_GE(sockets, delay_line_backend() ? 2 : 1);
  // As nobody: nothing in the directory can be listed, read or connected to.
  EXPECT_NE(as_nobody("ls /run/testbed/" + lab_), 0);
  EXPECT_NE(as_nobody("cat /run/testbed/" + lab_ + "/state.json"), 0);
  const std::string connect =
      std::string(kPython) +
      " -c \"import socket,sys; s=socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); "
      "s.connect(sys.argv[1])\" /run/testbed/" +
      lab_ + "/metrics.sock";
  EXPECT_NE(as_nobody(connect), 0) << "nobody connected to the exporter's socket";
  // The nodes' hosts files stay readable, as /etc/hosts is: programs in a node may not be
  // root.
  EXPECT_EQ(mode_of("/etc/netns/tb-" + lab_ + "-a/hosts"), 0644u);
}

TEST_F(LocalUsers, DelayLineRefusesOtherUsersAndPathsOutsideTheLab) {
  REQUIRE_DELAY_LINE();
  fs::path socket;
  for (const auto& e : fs::directory_iterator(dir_))
    if (e.path().filename().string().rfind("delayline-", 0) == 0 && e.is_socket())
      socket = e.path();
  ASSERT_FALSE(socket.empty()) << "no delay line socket in " << dir_;
  const std::string victim = temp_file("delay-line-victim");
  fs::remove(victim);
  const auto send_as = [&](bool nobody, const std::string& message) {
    const std::string cmd = std::string(kPython) +
                            " -c \"import socket,sys; s=socket.socket(socket.AF_UNIX, "
                            "socket.SOCK_DGRAM); s.sendto(sys.argv[2].encode(), sys.argv[1])\" " +
                            socket.string() + " '" + message + "'";
    return nobody ? as_nobody(cmd) : WEXITSTATUS(std::system((cmd + " >/dev/null 2>&1").c_str()));
  };
  // Root asking for a file outside the lab's directory: not a plain name, ignored.
  EXPECT_EQ(send_as(false, "stats " + victim), 0);
  // Nobody, given a way in for the test (the directory's search bit and the socket's
  // write bit, as a careless umask once left them): its datagram reaches the socket, and
  // the delay line drops it for its sender's uid.
  chmod("/run/testbed", 0711);
  chmod(dir_.c_str(), 0711);
  chmod(socket.c_str(), 0666);
  EXPECT_EQ(send_as(true, "stats nobody-asked.stats"), 0) << "the way in did not open";
  EXPECT_EQ(send_as(true, "set 1 999999999 0"), 0);
  chmod(socket.c_str(), 0600);
  chmod(dir_.c_str(), 0700);
  chmod("/run/testbed", 0700);
  usleep(300'000);  // the delay line handles control datagrams within its next wake-up
  EXPECT_FALSE(fs::exists(victim)) << "root wrote where a request said";
  EXPECT_FALSE(fs::exists(dir_ / "nobody-asked.stats")) << "a request from nobody was obeyed";
  // One log per group of nodes: read them all.
  std::string all;
  for (const auto& e : fs::directory_iterator(dir_)) {
    if (e.path().extension() == ".log" && e.path().filename().string().rfind("delayline", 0) == 0) {
      std::ifstream in(e.path());
      all.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  }
  EXPECT_NE(all.find("refused a control message from uid 65534"), std::string::npos) << all;
  // The lab still works at the delay it had: the forged "set" changed nothing.
  const Result ping = run_testbed({"exec", "--lab", lab_, "a", "--", "ping", "-c", "2", "-q", "b"});
  EXPECT_EQ(ping.status, 0) << ping.output;
}

// The IPC filter alone, without the directory's protection: a socket made open to all, a
// message from nobody and one from root; only root's arrives.
TEST(PrivateIpc, RefusesPeersOfAnotherUser) {
  REQUIRE_ROOT();
  const fs::path dir = fs::temp_directory_path() / ("tbt-ipc-" + std::to_string(getpid()));
  fs::create_directories(dir);
  chmod(dir.c_str(), 0777);
  const std::string path = (dir / "s.sock").string();
  zmq::context_t ctx;
  zmq::socket_t pull(ctx, zmq::socket_type::pull);
  bind_private_ipc(pull, path);
  EXPECT_EQ(mode_of(path), 0600u);
  chmod(path.c_str(), 0666);  // the filter must hold on its own
  const auto send_from = [&](uid_t uid, const char* text) {
    const pid_t child = fork();
    if (child == 0) {
      if (uid != 0 && setuid(uid) != 0) _exit(3);
      zmq::context_t c;
      zmq::socket_t push(c, zmq::socket_type::push);
      push.set(zmq::sockopt::linger, 1000);
      push.connect("ipc://" + path);
      push.send(zmq::buffer(std::string(text)), zmq::send_flags::dontwait);
      usleep(300'000);
      _exit(0);
    }
    return child;
  };
  const pid_t a = send_from(kNobody, "from nobody"), b = send_from(0, "from root");
  pull.set(zmq::sockopt::rcvtimeo, 2000);
  std::vector<std::string> got;
  for (zmq::message_t m; pull.recv(m);) got.push_back(m.to_string());
  waitpid(a, nullptr, 0);
  waitpid(b, nullptr, 0);
  fs::remove_all(dir);
  EXPECT_EQ(got, std::vector<std::string>{"from root"});
}

TEST_F(LocalUsers, ReportRefusesDirectoriesAndLinksOthersCouldSwap) {
  // Two samples of the links at least, for a plot to draw: the exporter samples once a
  // second while its /metrics is read.
  const nlohmann::json status =
      nlohmann::json::parse(run_testbed({"status", lab_, "--json"}).output);
  ASSERT_EQ(std::system(("curl -sf " + status.value("metrics_url", "") + " >/dev/null").c_str()),
            0);
  usleep(2'500'000);
  const fs::path base = fs::temp_directory_path() / ("tbt-report-" + std::to_string(getpid()));
  fs::remove_all(base);
  fs::create_directories(base);
  chmod(base.c_str(), 0755);
  // Nobody's own directory: nobody could swap report.gp before gnuplot runs it.
  const fs::path theirs = base / "theirs";
  fs::create_directory(theirs);
  ASSERT_EQ(chown(theirs.c_str(), kNobody, kNobody), 0);
  Result r = run_testbed({"report", lab_, "--out", theirs.string()});
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("owned by uid 65534"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(theirs)) << "root wrote into another user's directory";
  // Root's, but open to all.
  const fs::path open_dir = base / "open";
  fs::create_directory(open_dir);
  chmod(open_dir.c_str(), 0777);
  r = run_testbed({"report", lab_, "--out", open_dir.string()});
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("writable by group or others"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(open_dir));
  // A link planted where the report would go, pointing at a directory root owns.
  const fs::path target = base / "target", link = base / "link";
  fs::create_directory(target);
  fs::create_directory_symlink(target, link);
  r = run_testbed({"report", lab_, "--out", link.string()});
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("not a directory"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(target)) << "root followed a planted link";
  // A new directory: made 0700, and the report drawn in it.
  const fs::path fresh = base / "fresh";
  r = run_testbed({"report", lab_, "--out", fresh.string()});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(mode_of(fresh), 0700u);
  EXPECT_TRUE(fs::exists(fresh / "links.png")) << r.output;
  fs::remove_all(base);
}

// `capture --out` into a sticky directory shared with others (as /tmp is), where nobody
// planted a link at the file's name: refused, the link's target unchanged. Before, the
// capture opened the path with O_TRUNC and overwrote what nobody pointed it at.
TEST_F(LocalUsers, CaptureOutNeverFollowsALinkPlantedInASharedDirectory) {
  const fs::path base = fs::temp_directory_path() / ("tbt-capture-out-" + std::to_string(getpid()));
  fs::remove_all(base);
  fs::create_directories(base / "shared");
  chmod(base.c_str(), 0755);
  chmod((base / "shared").c_str(), 01777);
  const fs::path secret = base / "root-owned", planted = base / "shared" / "a.pcapng";
  std::ofstream(secret) << "root's own\n";
  fs::create_symlink(secret, planted);
  ASSERT_EQ(lchown(planted.c_str(), kNobody, kNobody), 0);
  Result r = run_testbed({"capture", lab_, "--all", "--duration", "1s", "--out", planted.string()});
  EXPECT_NE(r.status, 0) << r.output;
  std::ifstream in(secret);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "root's own\n");
  EXPECT_TRUE(fs::is_symlink(planted));
  // A directory nobody owns: refused, nothing made there.
  fs::create_directory(base / "theirs");
  ASSERT_EQ(chown((base / "theirs").c_str(), kNobody, kNobody), 0);
  r = run_testbed({"capture", lab_, "--all", "--duration", "1s", "--out",
                   (base / "theirs" / "a.pcapng").string()});
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_TRUE(fs::is_empty(base / "theirs"));
  fs::remove_all(base);
}

TEST_F(LocalUsers, PrometheusHasNoLifecycleApi) {
  const nlohmann::json status =
      nlohmann::json::parse(run_testbed({"status", lab_, "--json"}).output);
  const std::string url = status.value("prometheus_url", "");
  if (url.empty()) GTEST_SKIP() << "prometheus is not installed";
  EXPECT_EQ(as_nobody("curl -sf -X POST " + url + "/-/quit"), 22) << "the lifecycle API answered";
  usleep(500'000);
  EXPECT_EQ(as_nobody("curl -sf " + url + "/-/ready"), 0) << "prometheus is gone";
}

// A port squatted by another user before `up`: `up --metrics 127.0.0.1:P` cannot bind it,
// and says so, instead of taking the squatter's answers for its exporter's; nothing is left.
TEST(LocalUsersPort, SquattedMetricsPortFailsUpAndLeavesNothing) {
  REQUIRE_ROOT();
  const HostSnapshot before = take_host_snapshot();
  const int port = 20000 + getpid() % 20000;
  // A server answering 200 to every request, as nobody.
  const pid_t squatter = fork();
  if (squatter == 0) {
    if (setgid(kNobody) != 0 || setuid(kNobody) != 0) _exit(3);
    execl(kPython, kPython, "-m", "http.server", "--bind", "127.0.0.1",
          std::to_string(port).c_str(), "--directory", "/", static_cast<char*>(nullptr));
    _exit(4);
  }
  for (int i = 0; i < 100 && as_nobody("curl -sf http://127.0.0.1:" + std::to_string(port) +
                                       "/ -o /dev/null") != 0;
       ++i)
    usleep(50'000);
  LabGuard guard("tbt-squat");
  const Result up = run_testbed({"up", profile_as_lab("tiny/pair.yaml", "tbt-squat"), "--metrics",
                                 "127.0.0.1:" + std::to_string(port)});
  kill(squatter, SIGTERM);
  waitpid(squatter, nullptr, 0);
  EXPECT_EQ(up.status, 1) << up.output;
  EXPECT_NE(up.output.find("exporter did not start"), std::string::npos) << up.output;
  EXPECT_NE(up.output.find("rolled back"), std::string::npos) << up.output;
  EXPECT_FALSE(lab_state_exists("tbt-squat"));
  EXPECT_EQ(take_host_snapshot(), before);
}

}  // namespace
}  // namespace testbed::it
