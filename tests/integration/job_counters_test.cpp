// The jobs' chains (TBJM, TBJC: netns/job_marks.h) read two ways: over nf_tables' netlink
// from this process, as a job's start and end and the exporter's samples now read them,
// and with `iptables -S -v`, as they were read. Both must give the same rules and counts
// (devices, code points, packets and bytes) after real packets marked with a job's code
// point crossed a real link; and a job's rules deleted by their handles leave the others'.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "netns/job_marks.h"
#include "netns/netns_exec.h"
#include "netns/nft_delay_hooks.h"
#include "netns/nft_mangle_rules.h"
#include "testbed_cli.h"

namespace testbed::it {
namespace {

const std::string kLab = "tbt-jcount";

std::vector<std::string> link_devices(const std::string& ns) {
  std::vector<std::string> out;
  std::istringstream lines(run_in_netns(ns, {"ip", "-o", "link", "show"}).output);
  // "2: tb1-a@if3: <BROADCAST,...": the name up to '@' or ':'.
  for (std::string line; std::getline(lines, line);) {
    const auto start = line.find(": ");
    if (start == std::string::npos) continue;
    const std::string name =
        line.substr(start + 2, line.find_first_of("@:", start + 2) - start - 2);
    if (name.rfind("tb", 0) == 0) out.push_back(name);
  }
  return out;
}

TEST(JobCounters, NfTablesGivesWhatIptablesPrints) {
  REQUIRE_ROOT();
  if (!iptables_is_nft()) GTEST_SKIP() << "the legacy iptables: its counters are read as text";
  LabGuard guard(kLab);
  const std::string profile = "/tmp/" + kLab + ".yaml";
  {
    std::ofstream out(profile);
    out << "lab: " << kLab << "\ndefaults: {bandwidth: 100mbit}\nnodes: {a: {}, b: {}}\n"
        << "links:\n  - {endpoints: [a, b]}\n";
  }
  ASSERT_EQ(run_testbed({"up", profile, "--prometheus", "off"}).status, 0);
  const std::string ns = "tb-" + kLab + "-b";
  const auto devs = link_devices(ns);
  ASSERT_EQ(devs.size(), 1u) << run_in_netns(ns, {"ip", "-o", "link", "show"}).output;
  // No job has been in b yet: no chain, no rules; nor in a namespace that does not exist.
  EXPECT_TRUE(read_nft_mangle_rules(ns, "TBJC").empty());
  EXPECT_FALSE(nft_mangle_chain_exists(ns, "TBJM"));
  EXPECT_TRUE(read_nft_mangle_rules("tb-" + kLab + "-nobody", "TBJC").empty());

  // Slot 3's rules in b (its code point 0x0b; the group is the hierarchy's root, which
  // exists everywhere), then packets from a carrying that code point (TOS 0x2c) and some
  // carrying none.
  IptablesJobMarks marks;
  marks.add(ns, devs, 3, "/");
  const Result marked = run_testbed(
      {"exec", "--lab", kLab, "a", "--", "ping", "-c", "5", "-i", "0.2", "-q", "-Q", "0x2c", "b"});
  ASSERT_EQ(marked.status, 0) << marked.output;
  const Result plain =
      run_testbed({"exec", "--lab", kLab, "a", "--", "ping", "-c", "3", "-i", "0.2", "-q", "b"});
  ASSERT_EQ(plain.status, 0) << plain.output;

  const auto text = run_in_netns(ns, {"iptables", "-t", "mangle", "-S", "TBJC", "-v"}).output;
  const auto by_nft = read_nft_mangle_rules(ns, "TBJC");
  EXPECT_EQ(by_nft, job_counting_rules(text)) << text;
  const auto arrivals = job_arrivals(by_nft);
  ASSERT_EQ(arrivals.count(devs[0]), 1u) << text;
  const JobArrivals& a = arrivals.at(devs[0]);
  EXPECT_EQ(a.slot_packets.at(3), 5u) << text;      // the marked echo requests, no more
  EXPECT_GE(a.packets, 8u) << text;                 // every one that arrived
  EXPECT_GE(a.slot_bytes.at(3), 5u * 84u) << text;  // an echo request: 84 IP bytes

  // The mark chain: one rule, setting the slot's code point, as iptables prints it.
  const auto mark = read_nft_mangle_rules(ns, "TBJM");
  ASSERT_EQ(mark.size(), 1u);
  EXPECT_EQ(mark[0].dscp, job_dscp(3));
  EXPECT_NE(
      run_in_netns(ns, {"iptables", "-t", "mangle", "-S", "TBJM"}).output.find("--set-dscp 0x0b"),
      std::string::npos);

  // A second job beside it, then the first one's rules removed: the second's stay, and
  // the chains, as iptables sees them.
  marks.add(ns, devs, 4, "/");
  marks.remove(ns, 3);
  EXPECT_TRUE(nft_mangle_chain_exists(ns, "TBJM"));
  const auto left = read_nft_mangle_rules(ns, "TBJM");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].dscp, job_dscp(4));
  const auto counting = read_nft_mangle_rules(ns, "TBJC");
  ASSERT_EQ(counting.size(), 2u) << "the device's total and the second job's";
  EXPECT_EQ(counting[0].dscp, -1);
  EXPECT_EQ(counting[1].dscp, job_dscp(4));
  EXPECT_EQ(counting,
            job_counting_rules(
                run_in_netns(ns, {"iptables", "-t", "mangle", "-S", "TBJC", "-v"}).output));
  marks.remove(ns, 4);
  EXPECT_TRUE(read_nft_mangle_rules(ns, "TBJM").empty());
  EXPECT_EQ(read_nft_mangle_rules(ns, "TBJC").size(), 1u);
}

}  // namespace
}  // namespace testbed::it
