#include "netns/delay_line_args.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace testbed::delay_line {
namespace {

// XORed into a queue's seed for its loss chain, so that loss and jitter draw apart (the
// 64-bit golden ratio, an arbitrary constant with well-mixed bits).
constexpr uint64_t kBurstSeedMask = 0x9e3779b97f4a7c15ULL;

// NUM:DELAY_US:JITTER_US:SEED, then any of ":reorder" and ":ge=P,R,BAD,GOOD" (the
// Gilbert-Elliott model's probabilities, netns/burst_loss.h).
bool parse_queue(const std::string& spec, Node& node) {
  std::vector<std::string> fields;
  std::stringstream in(spec);
  for (std::string f; std::getline(in, f, ':');) fields.push_back(f);
  unsigned num = 0;
  long long delay = 0, jitter = 0;
  unsigned long long seed = 0;
  char end = 0;
  if (fields.size() < 4 || std::sscanf(fields[0].c_str(), "%u%c", &num, &end) != 1 ||
      std::sscanf(fields[1].c_str(), "%lld%c", &delay, &end) != 1 ||
      std::sscanf(fields[2].c_str(), "%lld%c", &jitter, &end) != 1 ||
      std::sscanf(fields[3].c_str(), "%llu%c", &seed, &end) != 1 || num > UINT16_MAX) {
    return false;
  }
  bool reorder = false;
  std::optional<GilbertElliott> burst;
  for (size_t i = 4; i < fields.size(); ++i) {
    GilbertElliott m;
    if (fields[i] == "reorder") {
      reorder = true;
    } else if (std::sscanf(fields[i].c_str(), "ge=%lf,%lf,%lf,%lf%c", &m.p, &m.r, &m.bad_loss,
                           &m.good_loss, &end) == 4) {
      for (double x : {m.p, m.r, m.bad_loss, m.good_loss})
        if (!(x >= 0 && x <= 1)) return false;
      burst = m;
    } else {
      return false;
    }
  }
  Queue q{static_cast<uint16_t>(num),
          nullptr,
          nullptr,
          DelayQueue({delay, jitter, reorder}, seed),
          0,
          std::nullopt};
  // Its own stream, apart from the jitter's: the same seed, scrambled by a constant.
  if (burst) q.burst.emplace(*burst, seed ^ kBurstSeedMask);
  node.queues.emplace(num, std::move(q));
  return true;
}

}  // namespace

const char* const kUsage =
    "usage: testbed-delayline NODE... [--release-window-us N]\n"
    "  NODE: --control PATH [--netns /run/netns/NS] --queue "
    "NUM:DELAY_US:JITTER_US:SEED[:reorder][:ge=P,R,BAD,GOOD] ...\n";

bool parse(int argc, char** argv, std::vector<Node>& nodes, int64_t& window_cap_us) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string opt = argv[i], val = argv[i + 1];
    if (opt == "--control") {
      nodes.emplace_back();
      nodes.back().control = val;
    } else if (opt == "--release-window-us") {
      window_cap_us = std::atoll(val.c_str());
    } else if ((opt == "--netns" || opt == "--queue") && nodes.empty()) {
      std::fprintf(stderr, "testbed-delayline: %s before any --control\n", opt.c_str());
      return false;
    } else if (opt == "--netns") {
      nodes.back().netns = val;
    } else if (opt == "--queue") {
      if (!parse_queue(val, nodes.back())) {
        std::fprintf(stderr, "testbed-delayline: bad --queue '%s'\n", val.c_str());
        return false;
      }
    } else {
      std::fprintf(stderr, "testbed-delayline: unknown option %s\n", opt.c_str());
      return false;
    }
  }
  if (nodes.empty()) return false;
  for (const Node& n : nodes) {
    if (n.queues.empty()) return false;
  }
  return true;
}

}  // namespace testbed::delay_line
