#include "host_snapshot.h"

#include <array>
#include <cstdio>

namespace testbed::it {

std::string shell_output(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf;
  for (size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) out.append(buf.data(), n);
  pclose(p);
  return out;
}

HostSnapshot take_host_snapshot() {
  return {shell_output("ip netns list | awk '{print $1}' | sort"),
          shell_output("ip -o link show | awk -F': ' '{print $2}' | sort"),
          shell_output("ip -4 route show table all | sort"),
          shell_output("iptables-save 2>/dev/null | grep -v '^#' | sed 's/\\[[0-9:]*\\]//'"),
          shell_output("find /run/testbed-uts /etc/netns -mindepth 1 2>/dev/null; "
                       "grep -c ' /run/testbed-uts/' /proc/self/mountinfo"),
          // The nodes' control groups, v1 (a directory per hierarchy) and v2 alike.
          shell_output("find /sys/fs/cgroup -maxdepth 2 -type d -name 'tb-*' 2>/dev/null | sort")};
}

}  // namespace testbed::it
