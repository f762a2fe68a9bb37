#include "controller/lab/privileges.h"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace testbed {

std::string missing_privileges(const std::string& verb) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (syscall(SYS_capget, &header, data) != 0)
    return "testbed " + verb + ": cannot read capabilities";
  auto has = [&](int cap) { return (data[cap / 32].effective >> (cap % 32)) & 1u; };
  std::string missing;
  if (!has(CAP_SYS_ADMIN)) missing += "CAP_SYS_ADMIN";
  if (!has(CAP_NET_ADMIN)) missing += std::string(missing.empty() ? "" : " and ") + "CAP_NET_ADMIN";
  if (missing.empty()) return "";
  return "testbed " + verb + ": needs " + missing +
         " (network namespaces and links); run it as root, e.g. sudo testbed " + verb;
}

}  // namespace testbed
