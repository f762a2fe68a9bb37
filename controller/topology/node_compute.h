// A node's compute in a profile (docs/compute.md): a share of the machine's CPUs, the CPUs
// it may run on, and a hard memory limit, as a data center of its own size.
//
//   nodes:
//     seattle: {cpus: 0.5, memory: 2GiB}
//     chicago: {cpus: 1, cpuset: [1]}
//
// `cpus` is the CFS bandwidth controller's share (0.5: half of one CPU's time, on any of
// the CPUs unless pinned); `memory` a size in bytes or with a binary unit (KiB, MiB, GiB;
// k, m and g mean the same, as Docker reads them).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>

#include "controller/topology/schedule.h"
#include "netns/node_cgroup.h"

namespace testbed {

// Below this a node's processes cannot start: the agent alone (ZeroMQ's threads and its
// model) is resident at about 12 MiB, a Python interpreter at about 10 MiB.
constexpr uint64_t kMinNodeMemory = 16ULL << 20;
// CPU shares above this are surely a typo (no host we run on has 1024 CPUs).
constexpr double kMaxCpus = 1024;
// The keys of a node's mapping that this reads.
inline const std::vector<std::string> kComputeKeys = {"cpus", "cpuset", "memory"};

std::optional<uint64_t> parse_memory_size(const std::string& text, std::string& why);
std::string format_memory_size(uint64_t bytes);  // "2GiB", "1536MiB", "1000000B"

// Reads the keys above from a node's mapping; errors go to `error`, positioned.
ComputeLimits parse_node_compute(const YAML::Node& node, const std::string& name,
                                 const YamlErrorSink& error);

}  // namespace testbed
