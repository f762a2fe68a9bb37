#include "controller/topology/import/cloud_regions.h"

#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "controller/topology/diagnostics.h"

namespace testbed {

namespace {

// TCP's payload in a full-size Ethernet frame: 1448 bytes of 1514 (docs/topologies.md).
// iperf3 reports payload; the lab's rates are link rates.
constexpr double kTcpShareOfLink = 1448.0 / 1514.0;
// Two directions' independent jitters, uniform in +-j, give a round trip whose standard
// deviation is j * sqrt(2/3); ping's mdev is that deviation.
const double kJitterPerMdev = std::sqrt(1.5);
// Node names keep to the topology's rule (a-z 0-9 - _, up to 32 characters).
constexpr size_t kMaxNodeName = 32;

struct Table {
  std::string name;
  std::map<std::string, size_t> columns;
};

std::vector<std::string> split(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();  // the tables end lines in CRLF
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) out.push_back(field);
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

// The 1-based column where field `i` of `line` starts.
int column_of(const std::vector<std::string>& fields, size_t i) {
  int col = 1;
  for (size_t k = 0; k < i; ++k) col += static_cast<int>(fields[k].size()) + 1;
  return col;
}

[[noreturn]] void fail(const std::string& file, int line, int col, const std::string& message) {
  throw ValidationError({{file, line, col, message}});
}

// Reads a table: its header gives the columns; every row's fields go to `row`.
template <typename Row>
void read_table(std::istream& in, const std::string& file, const std::vector<std::string>& needed,
                Row row) {
  std::string line;
  if (!std::getline(in, line)) fail(file, 0, 0, "empty: no header line");
  Table t{file, {}};
  const auto header = split(line);
  for (size_t i = 0; i < header.size(); ++i) t.columns[header[i]] = i;
  for (const auto& c : needed) {
    if (!t.columns.count(c)) fail(file, 1, 1, "header has no column '" + c + "'");
  }
  for (int n = 2; std::getline(in, line); ++n) {
    if (line.empty() || line == "\r") continue;
    const auto fields = split(line);
    if (fields.size() != header.size())
      fail(file, n, 1,
           std::to_string(fields.size()) + " fields, the header has " +
               std::to_string(header.size()));
    const auto text = [&](const std::string& c) -> const std::string& {
      return fields[t.columns.at(c)];
    };
    const auto number = [&](const std::string& c) {
      const std::string& s = text(c);
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      if (s.empty() || *end != '\0' || !std::isfinite(v) || v < 0)
        fail(file, n, column_of(fields, t.columns.at(c)),
             c + ": '" + s + "' is not a finite non-negative number");
      return v;
    };
    const auto endpoint = [&](const std::string& region, const std::string& tier) {
      const std::string& r = text(region);
      if (r.find(':') == std::string::npos || r.size() < 3)
        fail(file, n, column_of(fields, t.columns.at(region)),
             region + ": '" + r + "' is not cloud:region");
      const std::string& tr = text(tier);
      if (tr != "PREMIUM" && tr != "STANDARD")
        fail(file, n, column_of(fields, t.columns.at(tier)),
             tier + ": '" + tr + "' is neither PREMIUM nor STANDARD");
      return CloudEndpoint{r, tr};
    };
    row(endpoint("src_region", "src_tier"), endpoint("dst_region", "dst_tier"), number);
  }
}

std::string node_name(const std::string& region) {
  std::string out;
  for (char c : region) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out += (std::isalnum(static_cast<unsigned char>(l)) || l == '_') ? l : '-';
  }
  return out.substr(0, kMaxNodeName);
}

// "cloud:region" as the tables spell it: exact, or a GCP region without its zone when one
// zone of it was measured.
std::string resolve_region(const CloudData& data, const std::string& asked) {
  if (data.regions.count(asked)) return asked;
  std::vector<std::string> zones;
  for (const auto& r : data.regions) {
    if (r.size() == asked.size() + 2 && r.rfind(asked + "-", 0) == 0) zones.push_back(r);
  }
  if (zones.size() == 1) return zones[0];
  std::string msg = "no measured data for region '" + asked + "'";
  const std::string cloud = asked.substr(0, asked.find(':'));
  std::string known;
  for (const auto& r : data.regions) {
    if (r.rfind(cloud + ":", 0) == 0) known += (known.empty() ? "" : ", ") + r;
  }
  if (zones.size() > 1) {
    msg += ": it has several zones, name one";
    known.clear();
    for (const auto& z : zones) known += (known.empty() ? "" : ", ") + z;
  }
  if (known.empty()) {
    std::set<std::string> clouds;
    for (const auto& r : data.regions) clouds.insert(r.substr(0, r.find(':')));
    for (const auto& c : clouds) known += (known.empty() ? "" : ", ") + c;
    throw std::invalid_argument(msg + " (clouds measured: " + known + ")");
  }
  throw std::invalid_argument(msg + " (measured: " + known + ")");
}

std::string fixed(double v, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}

std::string direction_yaml(const CloudDirection& d) {
  std::string out =
      "{bandwidth: " + fixed(d.link_kbit, 0) + "kbit, delay: " + fixed(d.delay_us, 0) + "us";
  if (d.jitter_us >= 1) out += ", jitter: " + fixed(d.jitter_us, 0) + "us";
  out += "}  # " + fixed(d.received_bps / 1e9, 2) + " Gbit/s received";
  if (d.rate_from_reverse) out += ", measured " + d.to + " -> " + d.from + " only";
  return out;
}

}  // namespace

CloudData read_cloud_data(std::istream& throughput, const std::string& throughput_name,
                          std::istream& latency, const std::string& latency_name) {
  CloudData data;
  // 80 directions (all to or from azure:germanywestcentral) were measured twice: their mean.
  std::map<std::pair<CloudEndpoint, CloudEndpoint>, int> measured;
  read_table(throughput, throughput_name,
             {"src_region", "src_tier", "dst_region", "dst_tier", "throughput_received_bps"},
             [&](const CloudEndpoint& a, const CloudEndpoint& b, const auto& number) {
               const int n = ++measured[{a, b}];
               double& mean = data.received_bps[{a, b}];
               mean += (number("throughput_received_bps") - mean) / n;
               data.regions.insert(a.region);
               data.regions.insert(b.region);
             });
  read_table(latency, latency_name,
             {"src_region", "src_tier", "dst_region", "dst_tier", "min_rtt_ms", "avg_rtt_ms",
              "max_rtt_ms", "mdev_rtt_ms"},
             [&](const CloudEndpoint& a, const CloudEndpoint& b, const auto& number) {
               data.rtt[{a, b}] = {number("min_rtt_ms"), number("avg_rtt_ms"), number("max_rtt_ms"),
                                   number("mdev_rtt_ms")};
               data.regions.insert(a.region);
               data.regions.insert(b.region);
             });
  return data;
}

CloudProfile import_cloud(const CloudData& data, const CloudImportOptions& options) {
  if (options.regions.size() < 2) throw std::invalid_argument("--regions: name at least two");
  if (!options.names.empty() && options.names.size() != options.regions.size())
    throw std::invalid_argument("--names: " + std::to_string(options.names.size()) + " names for " +
                                std::to_string(options.regions.size()) + " regions");
  if (!(options.rate_scale > 0) || !std::isfinite(options.rate_scale))
    throw std::invalid_argument("--rate-scale: must be a positive number");
  if (options.gcp_tier != "PREMIUM" && options.gcp_tier != "STANDARD")
    throw std::invalid_argument("--tier: premium or standard");

  std::vector<CloudEndpoint> ends;
  std::vector<std::string> names;
  std::set<std::string> seen_regions, seen_names;
  for (size_t i = 0; i < options.regions.size(); ++i) {
    const std::string region = resolve_region(data, options.regions[i]);
    if (!seen_regions.insert(region).second)
      throw std::invalid_argument("--regions: '" + region + "' named twice");
    ends.push_back({region, region.rfind("gcp:", 0) == 0 ? options.gcp_tier : "PREMIUM"});
    names.push_back(options.names.empty() ? node_name(region) : options.names[i]);
    if (!seen_names.insert(names.back()).second)
      throw std::invalid_argument("two regions would both be node '" + names.back() +
                                  "': give --names");
  }

  CloudProfile out;
  std::ostringstream links;
  for (size_t i = 0; i < ends.size(); ++i) {
    for (size_t j = i + 1; j < ends.size(); ++j) {
      const auto pair_name = ends[i].region + " (" + ends[i].tier + ") and " + ends[j].region +
                             " (" + ends[j].tier + ")";
      const auto rtt_ab = data.rtt.find({ends[i], ends[j]});
      const auto rtt_ba = data.rtt.find({ends[j], ends[i]});
      const auto tp_ab = data.received_bps.find({ends[i], ends[j]});
      const auto tp_ba = data.received_bps.find({ends[j], ends[i]});
      const bool no_rtt = rtt_ab == data.rtt.end() && rtt_ba == data.rtt.end();
      const bool no_rate = tp_ab == data.received_bps.end() && tp_ba == data.received_bps.end();
      if ((no_rtt || no_rate) && options.partial) {
        out.left_out.push_back(names[i] + " - " + names[j]);
        continue;
      }
      if (no_rtt) throw std::invalid_argument("no round trip measured between " + pair_name);
      if (no_rate)
        throw std::invalid_argument("no throughput measured between " + pair_name +
                                    " in either direction");
      const CloudRtt& rtt = rtt_ab != data.rtt.end() ? rtt_ab->second : rtt_ba->second;
      CloudDirection d[2];
      for (int k = 0; k < 2; ++k) {
        const size_t from = k == 0 ? i : j, to = k == 0 ? j : i;
        const auto own = k == 0 ? tp_ab : tp_ba, other = k == 0 ? tp_ba : tp_ab;
        CloudDirection& x = d[k];
        x.from = names[from];
        x.to = names[to];
        x.from_region = ends[from].region;
        x.to_region = ends[to].region;
        x.rate_from_reverse = own == data.received_bps.end();
        x.received_bps = (x.rate_from_reverse ? other : own)->second;
        x.link_kbit = std::round(x.received_bps * options.rate_scale / kTcpShareOfLink / 1000);
        if (x.link_kbit < 1)
          throw std::invalid_argument(x.from_region + " -> " + x.to_region + ": " +
                                      fixed(x.received_bps / 1e6, 1) + " Mbit/s at x" +
                                      fixed(options.rate_scale, 6) +
                                      " is below 1 kbit/s: raise --rate-scale");
        x.delay_us = std::round(rtt.avg_ms * 1000 / 2);
        x.jitter_us = std::round(rtt.mdev_ms * 1000 * kJitterPerMdev);
        out.directions.push_back(x);
      }
      links << "  - endpoints: [" << names[i] << ", " << names[j] << "]  # " << ends[i].region
            << " - " << ends[j].region << ": RTT avg " << fixed(rtt.avg_ms, 1) << " ms, mdev "
            << fixed(rtt.mdev_ms, 2) << " ms\n"
            << "    a2b: " << direction_yaml(d[0]) << "\n"
            << "    b2a: " << direction_yaml(d[1]) << "\n";
    }
  }

  std::ostringstream y;
  y << "# Made by: " << (options.command.empty() ? "testbed import cloud" : options.command) << "\n"
    << "# From measured figures between cloud regions: the Skyplane project\n"
    << "# (github skyplane-project/skyplane, profiles/throughput.csv and profiles/latency.csv,\n"
    << "# Jan-Apr 2022), Apache License 2.0; see profiles/data/cloud-regions/README.md.\n"
    << "# Rates: iperf3's received throughput of 64 TCP flows between large VMs, x"
    << fixed(options.rate_scale, 6) << ",\n"
    << "# over TCP's 1448/1514 share of a link; delay: half ping's average RTT; jitter: ping's\n"
    << "# mdev x sqrt(3/2) per direction (docs/topologies.md). GCP tier: " << options.gcp_tier
    << ".\n";
  if (!out.left_out.empty()) {
    y << "# Pairs with no figures either way, left out (--partial): the lab routes their\n"
      << "# traffic over the others. " << out.left_out.size() << ":";
    for (size_t k = 0; k < out.left_out.size(); ++k)
      y << (k % 4 == 0 ? "\n#  " : ",") << " " << out.left_out[k];
    y << "\n";
  }
  y << "lab: " << options.lab << "\nnodes:\n";
  for (size_t i = 0; i < names.size(); ++i)
    y << "  " << names[i] << ": {}  # " << ends[i].region << "\n";
  y << "links:\n" << links.str();
  out.yaml = y.str();
  return out;
}

}  // namespace testbed
