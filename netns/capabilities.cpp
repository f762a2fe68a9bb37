#include "capabilities.h"

#include <linux/pkt_sched.h>
#include <netlink/route/qdisc/netem.h>
#include <netlink/route/qdisc/tbf.h>
#include <unistd.h>

#include <fstream>

#include "libnl_kernel.h"

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
    caps.push_back(probe_qdisc(k, ns, "tbdoc0", "htb", [](rtnl_qdisc*) {}));
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

}  // namespace testbed
