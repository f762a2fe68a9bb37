// Profiles from measured cloud regions (controller/topology/import/cloud_regions.h), on
// small fixtures written here and on the bundled tables.
#include "controller/topology/import/cloud_regions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "controller/options/workload_settings.h"
#include "controller/topology/diagnostics.h"
#include "controller/topology/topology_parser.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

const char* kThroughput =
    "src_region,src_tier,dst_region,dst_tier,iperf3_connections,throughput_sent_bps,"
    "throughput_received_bps\n"
    "aws:us-east-1,PREMIUM,gcp:europe-west1-b,PREMIUM,64,4000000000,3800000000\n"
    "gcp:europe-west1-b,PREMIUM,aws:us-east-1,PREMIUM,64,5000000000,4900000000\n"
    "aws:us-east-1,PREMIUM,azure:japaneast,PREMIUM,64,1000000000,956000000\n"
    "gcp:europe-west1-b,STANDARD,aws:us-east-1,PREMIUM,64,900000000,800000000\n";
// azure:japaneast -> aws:us-east-1 is not measured; gcp - azure has no throughput at all.
const char* kLatency =
    "src_region,src_tier,dst_region,dst_tier,min_rtt_ms,avg_rtt_ms,max_rtt_ms,mdev_rtt_ms\n"
    "aws:us-east-1,PREMIUM,gcp:europe-west1-b,PREMIUM,80.0,81.0,90.0,0.5\n"
    "azure:japaneast,PREMIUM,aws:us-east-1,PREMIUM,150.0,152.0,160.0,2.0\n"
    "gcp:europe-west1-b,PREMIUM,azure:japaneast,PREMIUM,200.0,210.0,230.0,1.0\n"
    "gcp:europe-west1-b,STANDARD,aws:us-east-1,PREMIUM,90.0,95.0,99.0,0.0\n";

CloudData fixture(const std::string& tp = kThroughput, const std::string& lat = kLatency) {
  std::istringstream t(tp), l(lat);
  return read_cloud_data(t, "tp.csv", l, "lat.csv");
}

const CloudDirection& find(const CloudProfile& p, const std::string& from, const std::string& to) {
  for (const auto& d : p.directions) {
    if (d.from == from && d.to == to) return d;
  }
  throw std::runtime_error("no direction " + from + " -> " + to);
}

TEST(CloudImport, EachDirectionFromItsOwnMeasurement) {
  CloudImportOptions o;
  o.regions = {"aws:us-east-1", "gcp:europe-west1"};  // GCP's zone found: one was measured
  const CloudProfile p = import_cloud(fixture(), o);
  ASSERT_EQ(p.directions.size(), 2u);
  const auto& ab = find(p, "aws-us-east-1", "gcp-europe-west1-b");
  const auto& ba = find(p, "gcp-europe-west1-b", "aws-us-east-1");
  // 3.8 Gbit/s received x 0.01, over TCP's 1448/1514 of the link.
  EXPECT_DOUBLE_EQ(ab.link_kbit, std::round(3.8e9 * 0.01 / (1448.0 / 1514.0) / 1000));
  EXPECT_DOUBLE_EQ(ba.link_kbit, std::round(4.9e9 * 0.01 / (1448.0 / 1514.0) / 1000));
  EXPECT_FALSE(ab.rate_from_reverse);
  // Half the average round trip each way; jitter mdev x sqrt(3/2).
  EXPECT_DOUBLE_EQ(ab.delay_us, 40500);
  EXPECT_DOUBLE_EQ(ba.delay_us, 40500);
  EXPECT_DOUBLE_EQ(ab.jitter_us, std::round(500 * std::sqrt(1.5)));
  // The profile it writes is a valid one, with both directions' rates.
  const Topology t = parse_topology_text(p.yaml, "imported.yaml", SettingRules{});
  ASSERT_EQ(t.nodes.size(), 2u);
  ASSERT_EQ(t.links.size(), 1u);
  EXPECT_NE(p.yaml.find("Apache License 2.0"), std::string::npos);
}

TEST(CloudImport, ADirectionNotMeasuredTakesTheReversesFigureAndSaysSo) {
  CloudImportOptions o;
  o.regions = {"aws:us-east-1", "azure:japaneast"};
  o.names = {"virginia", "tokyo"};
  o.rate_scale = 0.1;
  const CloudProfile p = import_cloud(fixture(), o);
  const auto& back = find(p, "tokyo", "virginia");
  EXPECT_TRUE(back.rate_from_reverse);
  EXPECT_DOUBLE_EQ(back.received_bps, 956e6);
  EXPECT_FALSE(find(p, "virginia", "tokyo").rate_from_reverse);
  EXPECT_NE(p.yaml.find("measured virginia -> tokyo only"), std::string::npos) << p.yaml;
  EXPECT_DOUBLE_EQ(back.delay_us, 76000);  // the round trip measured from the other end
}

TEST(CloudImport, GcpsStandardTierIsItsOwnMeasurement) {
  CloudImportOptions o;
  o.regions = {"gcp:europe-west1-b", "aws:us-east-1"};
  o.gcp_tier = "STANDARD";
  const CloudProfile p = import_cloud(fixture(), o);
  EXPECT_DOUBLE_EQ(find(p, "gcp-europe-west1-b", "aws-us-east-1").received_bps, 800e6);
  EXPECT_DOUBLE_EQ(find(p, "aws-us-east-1", "gcp-europe-west1-b").received_bps, 800e6);
  EXPECT_DOUBLE_EQ(find(p, "aws-us-east-1", "gcp-europe-west1-b").jitter_us, 0);
  EXPECT_EQ(p.yaml.find("us, jitter"), std::string::npos);  // none measured: none written
}

TEST(CloudImport, WhatItHasNoDataForIsRefusedByName) {
  const CloudData d = fixture();
  const auto refused = [&](std::vector<std::string> regions, const std::string& says) {
    CloudImportOptions o;
    o.regions = std::move(regions);
    try {
      import_cloud(d, o);
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused({"aws:us-east-1", "aws:mars-1"}, "no measured data for region 'aws:mars-1'");
  refused({"aws:us-east-1", "aws:mars-1"}, "measured: aws:us-east-1");
  refused({"aws:us-east-1", "ibm:dallas"}, "clouds measured: aws, azure, gcp");
  refused({"gcp:europe-west1-b", "azure:japaneast"},
          "no throughput measured between gcp:europe-west1-b (PREMIUM) and azure:japaneast");
  refused({"aws:us-east-1"}, "at least two");
  refused({"aws:us-east-1", "aws:us-east-1"}, "named twice");
  CloudImportOptions tiny;
  tiny.regions = {"aws:us-east-1", "azure:japaneast"};
  tiny.rate_scale = 1e-9;
  EXPECT_THROW(import_cloud(d, tiny), std::invalid_argument);  // below 1 kbit/s
}

// --partial: a pair with no figures is left out, named, instead of refused; the profile
// keeps every node and the pairs that were measured, and says which it left out.
TEST(CloudImport, APartialMeshLeavesOutThePairsWithoutFiguresAndNamesThem) {
  CloudImportOptions o;
  o.regions = {"aws:us-east-1", "gcp:europe-west1-b", "azure:japaneast"};
  o.names = {"virginia", "belgium", "tokyo"};
  o.partial = true;
  const CloudProfile p = import_cloud(fixture(), o);
  EXPECT_EQ(p.left_out, std::vector<std::string>{"belgium - tokyo"});
  EXPECT_EQ(p.directions.size(), 4u);  // two pairs, both ways
  EXPECT_NE(p.yaml.find("left out (--partial)"), std::string::npos) << p.yaml;
  EXPECT_NE(p.yaml.find("belgium - tokyo"), std::string::npos) << p.yaml;
  // Connected through virginia: a valid profile.
  const Topology t = parse_topology_text(p.yaml, "partial.yaml", SettingRules{});
  EXPECT_EQ(t.nodes.size(), 3u);
  EXPECT_EQ(t.links.size(), 2u);
  // A lab the holes cut in two is refused as any profile is.
  o.regions = {"gcp:europe-west1-b", "azure:japaneast"};
  o.names = {"belgium", "tokyo"};
  const CloudProfile cut = import_cloud(fixture(), o);
  EXPECT_THROW(parse_topology_text(cut.yaml, "cut.yaml", SettingRules{}), ValidationError);
}

TEST(CloudImport, AMalformedRowIsNamedByFileLineAndField) {
  const auto diagnostic = [](const std::string& tp, const std::string& lat) {
    try {
      fixture(tp, lat);
    } catch (const ValidationError& e) {
      return e.diagnostics().at(0).str();
    }
    return std::string("accepted");
  };
  const std::string header =
      "src_region,src_tier,dst_region,dst_tier,iperf3_connections,throughput_sent_bps,"
      "throughput_received_bps\n";
  EXPECT_EQ(diagnostic(header + "aws:a,PREMIUM,aws:b,PREMIUM,64,1,nan\n", kLatency),
            "tp.csv:2:34: throughput_received_bps: 'nan' is not a finite non-negative number");
  EXPECT_EQ(diagnostic(header + "aws:a,PREMIUM,aws:b,PREMIUM,64,1\n", kLatency),
            "tp.csv:2:1: 6 fields, the header has 7");
  EXPECT_EQ(diagnostic(header + "aws:a,GOLD,aws:b,PREMIUM,64,1,1\n", kLatency),
            "tp.csv:2:7: src_tier: 'GOLD' is neither PREMIUM nor STANDARD");
  EXPECT_EQ(diagnostic(kThroughput, "src_region,dst_region\n"),
            "lat.csv:1:1: header has no column 'src_tier'");
  EXPECT_EQ(diagnostic("", kLatency), "tp.csv: empty: no header line");
}

// The bundled tables read whole, and the shipped profiles made from them validate.
TEST(CloudImport, TheBundledTablesAndProfilesRead) {
  const std::string dir = TESTBED_PROFILES_DIR + "/data/cloud-regions";
  std::ifstream t(dir + "/throughput.csv"), l(dir + "/latency.csv");
  const CloudData d = read_cloud_data(t, "throughput.csv", l, "latency.csv");
  // 7,053 rows, as its README counts them: 80 directions twice, their figure the mean.
  EXPECT_EQ(d.received_bps.size(), 7053u - 80u);
  EXPECT_EQ(d.rtt.size(), 2667u);
  for (const char* p : {"/cloud-3.yaml", "/aws-8.yaml", "/gaia-11-measured.yaml"}) {
    std::ifstream f(TESTBED_PROFILES_DIR + p);
    std::stringstream text;
    text << f.rdbuf();
    EXPECT_NO_THROW(parse_profile_text(text.str(), p)) << p;
  }
}

}  // namespace
}  // namespace testbed
