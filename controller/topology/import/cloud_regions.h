// Profiles from measured figures between public-cloud regions (AWS, Azure, GCP): the
// Skyplane project's tables (profiles/data/cloud-regions/README.md), read and turned into a
// full mesh. Pure: the tables come in as streams and the profile goes out as text, so it is
// unit-tested on small fixtures; `testbed import cloud` (controller/cli/cmd_import.cpp)
// finds the files and writes the result.
//
// How a direction is filled, each a choice the tables leave open (docs/topologies.md):
//  - rate: iperf3's received throughput (64 TCP flows between large VMs) times the rate
//    scale, divided by TCP's share of an Ethernet link with full-size frames (1448/1514),
//    so that TCP in the lab carries the scaled figure; a direction not measured takes the
//    reverse direction's figure, and says so;
//  - delay: half the ping's average round trip (the tables hold round trips only);
//  - jitter: ping's deviation times sqrt(3/2): two directions' independent uniform jitters
//    of +-j give a round trip whose standard deviation is j * sqrt(2/3);
//  - a pair with no throughput or no round trip either way is refused, by name.
#pragma once

#include <istream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace testbed {

struct CloudRtt {
  double min_ms = 0, avg_ms = 0, max_ms = 0, mdev_ms = 0;
};

// One end of a measurement: "cloud:region" and its network tier (PREMIUM, or STANDARD,
// which only GCP offers).
struct CloudEndpoint {
  std::string region;
  std::string tier;
  auto operator<=>(const CloudEndpoint&) const = default;
};

struct CloudData {
  std::map<std::pair<CloudEndpoint, CloudEndpoint>, double> received_bps;  // one direction
  std::map<std::pair<CloudEndpoint, CloudEndpoint>, CloudRtt> rtt;         // as measured from
  std::set<std::string> regions;                                           // every region named
};

// Reads throughput.csv and latency.csv (columns as their README gives them, by header name).
// Throws ValidationError naming FILE:LINE:COL and the field for a malformed row.
CloudData read_cloud_data(std::istream& throughput, const std::string& throughput_name,
                          std::istream& latency, const std::string& latency_name);

struct CloudImportOptions {
  std::vector<std::string> regions;  // "cloud:region"; a GCP region may omit its zone
  std::vector<std::string> names;    // node names, one per region; empty: from the regions
  double rate_scale = 0.01;          // measured rates are 64 flows on large VMs: 1/100 by default
  std::string gcp_tier = "PREMIUM";  // PREMIUM or STANDARD
  std::string lab = "tbcloud";
  std::string command;  // how the profile was made, for its header
  // A pair with no round trip or no throughput either way is left out instead of refused:
  // the tables measured few pairs within GCP or within Azure (none among their US
  // regions), so a mesh of many regions has holes; their traffic is routed over the others.
  bool partial = false;
};

// How one direction of one pair was filled.
struct CloudDirection {
  std::string from, to;                // node names
  std::string from_region, to_region;  // as found in the tables
  double received_bps = 0;             // the figure used, before scaling
  double link_kbit = 0;                // the profile's rate
  double delay_us = 0, jitter_us = 0;
  bool rate_from_reverse = false;  // not measured this way: the reverse's figure
};

struct CloudProfile {
  std::string yaml;
  std::vector<CloudDirection> directions;
  std::vector<std::string> left_out;  // with `partial`: the pairs without figures
};

// Throws std::invalid_argument naming the region or pair it has no data for, or a bad option.
CloudProfile import_cloud(const CloudData& data, const CloudImportOptions& options);

}  // namespace testbed
