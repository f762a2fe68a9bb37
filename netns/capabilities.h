// What this kernel offers for emulation, found by trying each feature in a scratch
// namespace (created and removed by the probe) rather than by reading version numbers.
#pragma once

#include <string>
#include <vector>

namespace testbed {

struct Capability {
  std::string name;  // "netns", "veth", "tbf", "netem", "ifb", "nfqueue"
  bool available = false;
  std::string detail;  // how it was found, or the error
};

// Needs root. Leaves nothing behind, even when a probe throws.
std::vector<Capability> probe_capabilities();

bool has_capability(const std::vector<Capability>& caps, const std::string& name);

// Whether the kernel has sch_netem, without root when possible: the kernel's config
// (/proc/config.gz, /boot/config-RELEASE) and module tree; as root, a real probe when the
// config cannot be read. `how` says which.
struct NetemSupport {
  bool available = false;
  std::string how;
};
NetemSupport detect_netem();

}  // namespace testbed
