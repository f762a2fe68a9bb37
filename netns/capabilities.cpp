#include "netns/capabilities.h"

#include <linux/pkt_sched.h>
#include <netlink/route/qdisc/netem.h>
#include <netlink/route/qdisc/tbf.h>
#include <unistd.h>

#include <zlib.h>

#include <fstream>
#include <sstream>

#include "netns/libnl_kernel.h"

namespace testbed {
namespace {

// Tries to attach a root qdisc of `kind` on `dev`; `configure` fills kind-specific options.
template <typename Configure>
Capability probe_qdisc(LibnlKernel& k, const std::string& ns, const std::string& dev,
                       const std::string& kind, Configure configure) {
  nl::Qdisc q(nl::check_alloc(rtnl_qdisc_alloc(), "rtnl_qdisc_alloc"));
  rtnl_tc_set_ifindex(TC_CAST(q.get()), k.ifindex(ns, dev));
  rtnl_tc_set_parent(TC_CAST(q.get()), TC_H_ROOT);
  rtnl_tc_set_handle(TC_CAST(q.get()), 0x00010000);
  // Kind first: libnl's kind-specific setters crash on an object without one.
  nl::check(rtnl_tc_set_kind(TC_CAST(q.get()), kind.c_str()), "rtnl_tc_set_kind(" + kind + ")");
  configure(q.get());
  const int err = rtnl_qdisc_add(k.socket(ns), q.get(), NLM_F_CREATE | NLM_F_REPLACE);
  if (err < 0) return {kind, false, std::string("rtnl_qdisc_add: ") + nl_geterror(err)};
  rtnl_qdisc_delete(k.socket(ns), q.get());
  return {kind, true, "qdisc attached in a scratch namespace"};
}

Capability probe_nfqueue() {
  // Targets register in this list when built in or loaded; a module not loaded yet shows
  // in the module tree instead.
  std::ifstream targets("/proc/net/ip_tables_targets");
  for (std::string t; std::getline(targets, t);) {
    if (t == "NFQUEUE") return {"nfqueue", true, "iptables NFQUEUE target registered"};
  }
  char release[256] = {};
  std::ifstream("/proc/sys/kernel/osrelease").getline(release, sizeof release);
  const std::string mod =
      std::string("/lib/modules/") + release + "/kernel/net/netfilter/xt_NFQUEUE.ko";
  for (const char* ext : {"", ".xz", ".zst", ".gz"}) {
    if (std::ifstream(mod + ext)) return {"nfqueue", true, "module " + mod + ext};
  }
  return {"nfqueue", false, "no NFQUEUE target registered and no xt_NFQUEUE module"};
}

}  // namespace

bool has_capability(const std::vector<Capability>& caps, const std::string& name) {
  for (const auto& c : caps) {
    if (c.name == name) return c.available;
  }
  return false;
}

std::vector<Capability> probe_capabilities() {
  std::vector<Capability> caps;
  const std::string ns = "tb-doctor-" + std::to_string(getpid());
  LibnlKernel k;
  try {
    k.create_namespace(ns);
    caps.push_back({"netns", true, "created " + ns});
  } catch (const std::exception& e) {
    caps.push_back({"netns", false, e.what()});
    caps.push_back(probe_nfqueue());
    return caps;
  }
  try {
    k.create_veth(ns, "tbdoc0", ns, "tbdoc1");
    caps.push_back({"veth", true, "pair created in a scratch namespace"});
    caps.push_back(probe_qdisc(k, ns, "tbdoc1", "tbf", [](rtnl_qdisc* q) {
      rtnl_qdisc_tbf_set_limit(q, 100000);           // bytes of queue: any valid value will do
      rtnl_qdisc_tbf_set_rate(q, 125000, 10000, 0);  // 1 Mbit/s, 10 KB bucket
    }));
    caps.push_back(probe_qdisc(k, ns, "tbdoc1", "netem", [](rtnl_qdisc* q) {
      rtnl_netem_set_delay(q, 1000);  // 1 ms, in microseconds
    }));
  } catch (const std::exception& e) {
    caps.push_back({"veth", false, e.what()});
  }
  {
    nl::Link ifb(nl::check_alloc(rtnl_link_alloc(), "rtnl_link_alloc"));
    rtnl_link_set_name(ifb.get(), "tbdocifb");
    const int err = rtnl_link_set_type(ifb.get(), "ifb");
    const int add =
        err < 0 ? err : rtnl_link_add(k.socket(ns), ifb.get(), NLM_F_CREATE | NLM_F_EXCL);
    caps.push_back({"ifb", add >= 0,
                    add >= 0 ? "device created in a scratch namespace"
                             : std::string("rtnl_link_add(ifb): ") + nl_geterror(add)});
  }
  caps.push_back(probe_nfqueue());
  try {
    k.delete_namespace(ns);
  } catch (const std::exception& e) {
    caps.push_back({"cleanup", false, e.what()});
  }
  return caps;
}

namespace {

std::string kernel_release() {
  std::string release;
  std::getline(std::ifstream("/proc/sys/kernel/osrelease"), release);
  return release;
}

// The value of CONFIG_NET_SCH_NETEM in the running kernel's config: "y", "m", "n", or ""
// when no config can be read.
std::string netem_config(std::string& source) {
  const std::string key = "CONFIG_NET_SCH_NETEM";
  const auto scan = [&](std::istream& in) -> std::string {
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(key + "=", 0) == 0) return line.substr(key.size() + 1);
      if (line == "# " + key + " is not set") return "n";
    }
    return "n";
  };
  if (gzFile gz = gzopen("/proc/config.gz", "rb")) {
    std::string text;
    char buf[65536];
    for (int n; (n = gzread(gz, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
    gzclose(gz);
    if (!text.empty()) {
      source = "/proc/config.gz";
      std::istringstream in(text);
      return scan(in);
    }
  }
  std::ifstream boot("/boot/config-" + kernel_release());
  if (boot) {
    source = "/boot/config-" + kernel_release();
    return scan(boot);
  }
  return "";
}

}  // namespace

NetemSupport detect_netem() {
  std::string source;
  const std::string value = netem_config(source);
  if (value == "y") return {true, "built in (" + source + ")"};
  if (value == "n") return {false, "not built (" + source + ")"};
  if (value == "m") {
    const std::string dir = "/lib/modules/" + kernel_release() + "/kernel/net/sched/sch_netem.ko";
    for (const char* ext : {"", ".xz", ".zst", ".gz"}) {
      if (std::ifstream(dir + ext)) return {true, "module " + dir + ext};
    }
    return {false, "a module (" + source + ") that is not installed"};
  }
  if (geteuid() == 0) {
    const auto caps = probe_capabilities();
    return {has_capability(caps, "netem"), "probed in a scratch namespace"};
  }
  return {false, "unknown (no kernel config readable; run as root to probe)"};
}

}  // namespace testbed
