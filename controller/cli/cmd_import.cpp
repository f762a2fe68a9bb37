// testbed import cloud --regions LIST [...]: a profile from measured figures between cloud
// regions (controller/topology/import/cloud_regions.h). Nothing is written unless the whole
// profile is made and validates.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/topology/diagnostics.h"
#include "controller/topology/import/cloud_regions.h"
#include "controller/topology/profile_locator.h"
#include "controller/topology/topology_parser.h"

namespace testbed::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage =
    "usage: testbed import cloud --regions CLOUD:REGION,... [--names N1,N2,...] "
    "[--rate-scale X] [--tier premium|standard] [--lab NAME] [--data DIR] [--out FILE] [--json]";

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// The tables: --data, else the bundled copy (profiles/data/cloud-regions).
std::string data_dir(const std::optional<std::string>& given) {
  if (given) return *given;
  for (const auto& dir : bundled_profile_dirs()) {
    const fs::path d = fs::path(dir) / "data" / "cloud-regions";
    if (fs::is_regular_file(d / "throughput.csv")) return d.string();
  }
  throw UsageError("import cloud: no bundled data/cloud-regions found; give --data DIR");
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

nlohmann::json report(const CloudProfile& profile) {
  nlohmann::json dirs = nlohmann::json::array();
  for (const auto& d : profile.directions) {
    dirs.push_back({{"from", d.from},
                    {"to", d.to},
                    {"from_region", d.from_region},
                    {"to_region", d.to_region},
                    {"received_bps", d.received_bps},
                    {"link_kbit", d.link_kbit},
                    {"delay_us", d.delay_us},
                    {"jitter_us", d.jitter_us},
                    {"rate", d.rate_from_reverse ? "reverse direction" : "measured"}});
  }
  return dirs;
}

int import_cloud_verb(const Args& args, const Argv& argv) {
  CloudImportOptions options;
  const auto regions = args.option("regions");
  if (!regions) throw UsageError(kUsage);
  options.regions = split_list(*regions);
  if (auto n = args.option("names")) options.names = split_list(*n);
  if (auto s = args.option("rate-scale")) {
    try {
      options.rate_scale = std::stod(*s);
    } catch (const std::exception&) {
      options.rate_scale = 0;
    }
    if (!(options.rate_scale > 0))
      throw UsageError("--rate-scale must be a number greater than 0, not '" + *s + "'");
  }
  if (auto t = args.option("tier")) {
    options.gcp_tier = upper(*t);
    if (options.gcp_tier != "PREMIUM" && options.gcp_tier != "STANDARD")
      throw UsageError("--tier must be premium or standard, not '" + *t + "'");
  }
  if (auto l = args.option("lab")) options.lab = *l;
  options.command = "testbed import";
  for (const auto& a : argv) options.command += " " + a;

  const std::string dir = data_dir(args.option("data"));
  const std::string tp_path = dir + "/throughput.csv", lat_path = dir + "/latency.csv";
  std::ifstream tp(tp_path), lat(lat_path);
  if (!tp || !lat) {
    std::cerr << "testbed import cloud: cannot read " << (tp ? lat_path : tp_path) << "\n";
    return kExitInvalid;
  }
  CloudProfile profile;
  try {
    profile = import_cloud(read_cloud_data(tp, tp_path, lat, lat_path), options);
    // What it writes must be a valid profile: the same checks as `validate`.
    parse_topology_text(profile.yaml, args.option("out").value_or("(the imported profile)"),
                        SettingRules{});
  } catch (const ValidationError& e) {
    std::cerr << e.what();
    return kExitInvalid;
  } catch (const std::invalid_argument& e) {
    std::cerr << "testbed import cloud: " << e.what() << "\n";
    return kExitInvalid;
  }

  size_t reversed = 0;
  for (const auto& d : profile.directions) {
    if (!d.rate_from_reverse) continue;
    ++reversed;
    std::cerr << "testbed import cloud: " << d.from_region << " -> " << d.to_region
              << " was not measured; its rate is the reverse direction's\n";
  }
  if (auto out = args.option("out")) {
    std::ofstream f(*out);
    f << profile.yaml;
    if (!f.flush()) {
      std::cerr << "testbed import cloud: cannot write " << *out << "\n";
      return kExitFailure;
    }
  } else if (!args.flag("json")) {
    std::cout << profile.yaml;
  }
  std::cerr << "testbed import cloud: " << options.regions.size() << " regions, "
            << profile.directions.size() << " directions: " << profile.directions.size() - reversed
            << " measured, " << reversed << " from the reverse direction\n";
  if (args.flag("json")) {
    nlohmann::json j = {{"regions", options.regions},
                        {"rate_scale", options.rate_scale},
                        {"gcp_tier", options.gcp_tier},
                        {"rate_rule", "received throughput x rate_scale / (1448/1514)"},
                        {"delay_rule", "avg RTT / 2"},
                        {"jitter_rule", "mdev x sqrt(3/2) per direction"},
                        {"directions", report(profile)}};
    if (!args.option("out")) j["profile"] = profile.yaml;
    std::cout << j.dump(1) << "\n";
  }
  return kExitOk;
}

}  // namespace

int run_import(const Argv& argv) {
  Args args(argv, {"json"}, {"regions", "names", "rate-scale", "tier", "lab", "data", "out"});
  args.at_most(1, kUsage);
  const std::string kind = args.positional(0);
  if (kind == "cloud") return import_cloud_verb(args, argv);
  throw UsageError(kind.empty() ? std::string(kUsage)
                                : "import: '" + kind + "' is not a source (cloud)\n" + kUsage);
}

}  // namespace testbed::cli
