// Verbs that touch the kernel need CAP_SYS_ADMIN (namespaces, mounts) and CAP_NET_ADMIN
// (links, addresses, qdiscs). Checked up front so a user gets one clear line, not EPERM.
#pragma once

#include <string>

namespace testbed {

// Empty when the process may proceed, else a one-line message naming what is missing.
std::string missing_privileges(const std::string& verb);

}  // namespace testbed
