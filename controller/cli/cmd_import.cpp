// testbed import cloud --regions LIST [...]: a profile from measured figures between cloud
// regions (controller/topology/import/cloud_regions.h); testbed import graphml|gml FILE: one
// from a real network's topology (controller/topology/import/zoo_graph.h). Nothing is
// written unless the whole profile is made and validates.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/lab/planner.h"
#include "controller/topology/diagnostics.h"
#include "controller/topology/import/cloud_regions.h"
#include "controller/topology/import/graph_file.h"
#include "controller/topology/import/zoo_graph.h"
#include "controller/topology/profile_locator.h"
#include "controller/topology/topology_parser.h"
#include "netns/private_files.h"

namespace testbed::cli {

namespace fs = std::filesystem;

namespace {

// The profile written where --out says, as every file a user names is (private_files.h):
// its directory root's alone or sticky, the file made new, never through a planted link.
// False, said on stderr, when it cannot be.
bool write_profile(const std::string& who, const std::string& out, const std::string& yaml) {
  try {
    write_output_file(out, yaml);
    return true;
  } catch (const std::exception& e) {
    std::cerr << who << ": cannot write " << out << ": " << e.what() << "\n";
    return false;
  }
}

constexpr const char* kUsage =
    "usage: testbed import cloud --regions CLOUD:REGION,... [--names N1,N2,...] "
    "[--rate-scale X] [--tier premium|standard] [--partial] [--lab NAME] [--data DIR] "
    "[--out FILE] [--json]\n"
    "       testbed import graphml|gml FILE [--lab NAME] [--default-delay D] [--default-rate R] "
    "[--rate-scale X] [--largest-component] [--out FILE] [--json]";

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

// --rate-scale: a number above 0, else `otherwise`.
double rate_scale_option(const Args& args, double otherwise) {
  const auto text = args.option("rate-scale");
  if (!text) return otherwise;
  double scale = 0;
  try {
    scale = std::stod(*text);
  } catch (const std::exception&) {
  }
  if (!(scale > 0))
    throw UsageError("--rate-scale must be a number greater than 0, not '" + *text + "'");
  return scale;
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
  options.rate_scale = rate_scale_option(args, options.rate_scale);
  if (auto t = args.option("tier")) {
    options.gcp_tier = upper(*t);
    if (options.gcp_tier != "PREMIUM" && options.gcp_tier != "STANDARD")
      throw UsageError("--tier must be premium or standard, not '" + *t + "'");
  }
  if (auto l = args.option("lab")) options.lab = *l;
  options.partial = args.flag("partial");
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
    if (!write_profile("testbed import cloud", *out, profile.yaml)) return kExitFailure;
  } else if (!args.flag("json")) {
    std::cout << profile.yaml;
  }
  std::cerr << "testbed import cloud: " << options.regions.size() << " regions, "
            << profile.directions.size() << " directions: " << profile.directions.size() - reversed
            << " measured, " << reversed << " from the reverse direction";
  if (options.partial)
    std::cerr << "; " << profile.left_out.size() << " pairs without figures left out";
  std::cerr << "\n";
  if (args.flag("json")) {
    nlohmann::json j = {{"regions", options.regions},
                        {"rate_scale", options.rate_scale},
                        {"gcp_tier", options.gcp_tier},
                        {"rate_rule", "received throughput x rate_scale / (1448/1514)"},
                        {"delay_rule", "avg RTT / 2"},
                        {"jitter_rule", "mdev x sqrt(3/2) per direction"},
                        {"directions", report(profile)}};
    if (options.partial) j["left_out"] = profile.left_out;
    if (!args.option("out")) j["profile"] = profile.yaml;
    std::cout << j.dump(1) << "\n";
  }
  return kExitOk;
}

// A lab name from a file's name: its stem, lower case, other characters as '-', at most the
// profile's 24 characters.
std::string lab_from_file(const std::string& path) {
  std::string out;
  for (unsigned char c : fs::path(path).stem().string()) {
    const char lower = static_cast<char>(std::tolower(c));
    out += (std::isalnum(c) ? lower : '-');
  }
  while (!out.empty() && !std::isalnum(static_cast<unsigned char>(out.front()))) out.erase(0, 1);
  out = out.substr(0, 24);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "tbzoo" : out;
}

int import_graph_verb(const Args& args, const Argv& argv, GraphFormat format) {
  if (args.positionals().size() != 2) throw UsageError(kUsage);
  const std::string file = args.positional(1);
  GraphImportOptions options;
  options.source = fs::path(file).filename().string();
  options.lab = args.option("lab").value_or(lab_from_file(file));
  options.largest_component = args.flag("largest-component");
  if (auto d = args.option("default-delay")) {
    std::string why;
    const auto delay = parse_duration(*d, why);
    if (!delay) throw UsageError("--default-delay: " + why);
    options.default_delay_us = static_cast<double>(delay->us);
  }
  if (auto r = args.option("default-rate")) {
    std::string why;
    const auto rate = parse_rate(*r, why);
    if (!rate || rate->bits_per_s == 0)
      throw UsageError("--default-rate: " + (why.empty() ? "must be above 0" : why));
    options.default_rate_bps = static_cast<double>(rate->bits_per_s);
  }
  options.rate_scale = rate_scale_option(args, options.rate_scale);
  options.command = "testbed import";
  for (const auto& a : argv) options.command += " " + a;

  const char* verb = format == GraphFormat::graphml ? "graphml" : "gml";
  GraphProfile profile;
  try {
    profile = import_graph(read_graph_file(file, format), options);
    // What it writes must be a valid profile that plans: the same checks as `validate`
    // and `plan`.
    make_plan(parse_topology_text(profile.yaml, args.option("out").value_or(file), SettingRules{}),
              false);
  } catch (const ValidationError& e) {
    std::cerr << e.what();
    return kExitInvalid;
  } catch (const std::exception& e) {  // unreadable, refused by the rules, or does not plan
    std::cerr << "testbed import " << verb << ": " << e.what() << "\n";
    return kExitInvalid;
  }
  if (auto out = args.option("out")) {
    if (!write_profile(std::string("testbed import ") + verb, *out, profile.yaml))
      return kExitFailure;
  } else if (!args.flag("json")) {
    std::cout << profile.yaml;
  }
  std::cerr << "testbed import " << verb << ": " << profile.node_names.size() << " nodes, "
            << profile.links.size() << " links (" << profile.default_delay_links
            << " with the default delay, " << profile.default_rate_links
            << " with the default rate, " << profile.merged_edges << " parallel merged, "
            << profile.self_loops << " self-loops left out";
  if (profile.nodes_left_out > 0)
    std::cerr << ", " << profile.nodes_left_out << " nodes outside the largest of "
              << profile.components << " components left out";
  std::cerr << ")\n";
  if (args.flag("json")) {
    nlohmann::json links = nlohmann::json::array();
    for (const auto& l : profile.links) {
      links.push_back(
          {{"a", l.a},
           {"b", l.b},
           {"rate_bps", l.rate_bps},
           {"rate", l.rate_given ? "LinkSpeedRaw" : "default"},
           {"delay_us", l.delay_us},
           {"distance_km", l.distance_km >= 0 ? nlohmann::json(l.distance_km) : nullptr},
           {"parallel_links", l.parallel}});
    }
    nlohmann::json j = {
        {"source", file},
        {"nodes", profile.node_names},
        {"components", profile.components},
        {"nodes_left_out", profile.nodes_left_out},
        {"self_loops_left_out", profile.self_loops},
        {"parallel_links_merged", profile.merged_edges},
        {"delay_rule", "great-circle distance at c/1.468 (light in fibre), else --default-delay"},
        {"rate_rule", "LinkSpeedRaw, else --default-rate (" +
                          std::to_string(static_cast<long long>(options.default_rate_bps)) +
                          " bit/s); times rate_scale; parallel links summed"},
        {"rate_scale", options.rate_scale},
        {"links", links}};
    if (!args.option("out")) j["profile"] = profile.yaml;
    std::cout << j.dump(1) << "\n";
  }
  return kExitOk;
}

}  // namespace

int run_import(const Argv& argv) {
  Args args(argv, {"json", "largest-component", "partial"},
            {"regions", "names", "rate-scale", "tier", "lab", "data", "out", "default-delay",
             "default-rate"});
  args.at_most(2, kUsage);
  const std::string kind = args.positional(0);
  if (kind == "cloud") {
    args.at_most(1, kUsage);
    return import_cloud_verb(args, argv);
  }
  if (kind == "graphml") return import_graph_verb(args, argv, GraphFormat::graphml);
  if (kind == "gml") return import_graph_verb(args, argv, GraphFormat::gml);
  throw UsageError(kind.empty()
                       ? std::string(kUsage)
                       : "import: '" + kind + "' is not a source (cloud, graphml, gml)\n" + kUsage);
}

}  // namespace testbed::cli
