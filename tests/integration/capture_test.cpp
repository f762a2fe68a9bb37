// `testbed capture`: a lab's packets in one pcapng file, read back with tshark, an
// interface per link direction, in time order, each direction's count the kernel's own
// count of what its device sent.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "netns/netns_exec.h"
#include "testbed_cli.h"
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

namespace fs = std::filesystem;

const std::string kPair = TESTBED_PROFILES_DIR + "/tiny/pair.yaml";

// tshark's reading of the file: one line per packet, "INTERFACE\tEPOCH".
std::vector<std::pair<std::string, double>> read_back(const std::string& file) {
  const CommandResult r = run_in_netns("", {"tshark", "-r", file, "-T", "fields", "-e",
                                            "frame.interface_name", "-e", "frame.time_epoch"});
  EXPECT_EQ(r.status, 0) << r.output;
  std::vector<std::pair<std::string, double>> out;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) {
    const auto tab = line.find('\t');
    if (tab == std::string::npos) continue;  // tshark's own notes (running as root)
    out.emplace_back(line.substr(0, tab), std::stod(line.substr(tab + 1)));
  }
  return out;
}

TEST(Capture, EveryDirectionsPacketsAreInOneFileAsTheKernelCountedThem) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-pair");
  ASSERT_EQ(run_testbed({"up", kPair, "--prometheus", "off"}).status, 0);
  const std::string file = temp_file("tb-capture.pcapng");
  // Six seconds of capture; the pings start a second in and take three: the counters are
  // read around them while the lab is quiet.
  auto capture = std::async(std::launch::async, [&] {
    return run_testbed(
        {"capture", "tbt-pair", "--all", "--duration", "6s", "--out", file, "--json"});
  });
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const Result ping = run_testbed({"exec", "--lab", "tbt-pair", "left", "--", "ping", "-c", "60",
                                   "-i", "0.05", "-q", "198.18.0.2"});
  EXPECT_EQ(ping.status, 0) << ping.output;
  const Result r = capture.get();
  ASSERT_EQ(r.status, 0) << r.output;
  const auto summary = summary_of(r.output);
  ASSERT_TRUE(summary.is_object()) << r.output;
  EXPECT_EQ(summary["stopped_by"], "duration");

  std::map<std::string, uint64_t> read;
  double last = 0;
  bool ordered = true;
  for (const auto& [interface, t] : read_back(file)) {
    ++read[interface];
    ordered &= t >= last;
    last = t;
  }
  EXPECT_TRUE(ordered) << "packets out of time order";
  ASSERT_EQ(summary["directions"].size(), 2u);
  for (const auto& d : summary["directions"]) {
    const std::string name = d["interface"];
    // What the file holds is what the capture counted, and what the device sent.
    EXPECT_EQ(read[name], d["packets"].get<uint64_t>()) << name;
    EXPECT_EQ(d["packets"], d["kernel_sent_packets"]) << name;
    EXPECT_EQ(d["dropped_by_capture"], 0) << name;
    // Sixty echo requests one way, sixty replies the other, all inside the capture.
    EXPECT_GE(d["packets"].get<uint64_t>(), 60u) << name;
    std::cout << "[ measured ] " << name << ": " << read[name] << " packets read back, the "
              << "device sent " << d["kernel_sent_packets"] << "\n";
  }
  EXPECT_EQ(read.count("left->right") + read.count("right->left"), 2u);
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST(Capture, CtrlCStopsItWithAReadableFileAndBadInputMakesNone) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-pair");
  ASSERT_EQ(run_testbed({"up", kPair, "--prometheus", "off"}).status, 0);
  const std::string file = temp_file("tb-capture-int.pcapng");
  const pid_t capture =
      spawn_testbed({"capture", "tbt-pair", "left", "right", "--dir", "a2b", "--out", file});
  guard.own(capture);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_EQ(run_testbed({"exec", "--lab", "tbt-pair", "left", "--", "ping", "-c", "5", "-i", "0.05",
                         "-q", "198.18.0.2"})
                .status,
            0);
  kill(capture, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(capture, &status, 0), capture);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const auto packets = read_back(file);
  EXPECT_GE(packets.size(), 5u);
  for (const auto& [interface, t] : packets) EXPECT_EQ(interface, "left->right");

  const std::string none = temp_file("tb-capture-none.pcapng");
  const Result no_link = run_testbed({"capture", "tbt-pair", "left", "nobody", "--out", none});
  EXPECT_EQ(no_link.status, 2) << no_link.output;
  EXPECT_NE(no_link.output.find("no link between 'left' and 'nobody'"), std::string::npos)
      << no_link.output;
  EXPECT_EQ(run_testbed({"capture", "tbt-pair", "--all"}).status, 2);  // no --out
  EXPECT_FALSE(fs::exists(none));
}

}  // namespace
}  // namespace testbed::it
