#include "controller/lab/applier.h"

#include "controller/lab/overloaded.h"

namespace testbed {
namespace {

// The kernel prints multi-value sysctls with tabs; compare them word by word.
std::string normalize_space(const std::string& s) {
  std::string out;
  bool gap = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n') {
      gap = !out.empty();
    } else {
      if (gap) out += ' ';
      out += c;
      gap = false;
    }
  }
  return out;
}

}  // namespace
}  // namespace testbed

#include <algorithm>
#include <chrono>

namespace testbed {
bool Applier::in_effect(const Step& step) {
  // Inside a namespace this run created, nothing can exist yet: skip the query, which
  // halves the netlink round trips of a fresh bring-up. Not so for an interface someone
  // else makes: it may have been moved in since.
  for (const auto& ns : step_namespaces(step)) {
    if (fresh_namespaces_.count(ns) && !std::holds_alternative<ExpectInterface>(step)) return false;
  }
  return std::visit(
      Overloaded{[&](const CreateNamespace& s) { return kernel_.namespace_exists(s.ns); },
                 [&](const CreateVeth& s) {
                   return kernel_.link_exists(s.ns_a, s.if_a) &&
                          kernel_.link_exists(s.ns_b, s.if_b);
                 },
                 [&](const ExpectInterface& s) { return kernel_.link_exists(s.ns, s.dev); },
                 [&](const CreateVxlan& s) { return kernel_.link_exists(s.ns, s.dev); },
                 [&](const SetLinkUp& s) { return kernel_.link_is_up(s.ns, s.dev); },
                 [&](const AddAddress& s) { return kernel_.has_address(s.ns, s.dev, s.address); },
                 [&](const SetSysctl& s) {
                   return normalize_space(kernel_.sysctl(s.ns, s.key)) == normalize_space(s.value);
                 },
                 [&](const AddIngressHooks& s) {
                   const auto present = kernel_.ingress_delays(s.ns);
                   return std::all_of(s.hooks.begin(), s.hooks.end(), [&](const auto& h) {
                     const auto it = present.find(h.first);
                     return it != present.end() && it->second == h.second;
                   });
                 },
                 [&](const AddIngressNetem& s) {
                   const auto have = kernel_.ingress_netem(s.ns, s.netem.ifb);
                   if (!have) return false;
                   // Order keeping and bursty loss are not read back (kernel.h): taken
                   // as planned.
                   NetemParams want = s.netem.netem;
                   want.keep_order = have->keep_order;
                   want.burst = have->burst;
                   return *have == want;
                 },
                 [&](const ShapeEgress& s) {
                   auto current = kernel_.shaping(s.ns, s.dev);
                   // The kernel keeps burst as timer ticks and reports it rounded; rate, quantum
                   // and queue are what decide the behaviour and come back exactly.
                   return current &&
                          current->config.rate_bytes_per_s == s.shaping.rate_bytes_per_s &&
                          current->config.queue == s.shaping.queue;
                 },
                 [&](const AddRoutes& s) { return missing_routes(s).empty(); },
                 [&](const AddTrafficCounters& s) {
                   const auto have = kernel_.traffic_counts(s.ns);
                   return have.size() == s.counters.devs.size() &&
                          std::all_of(s.counters.devs.begin(), s.counters.devs.end(),
                                      [&](const std::string& d) { return have.count(d) > 0; });
                 }},
      step);
}

std::vector<RouteSpec> Applier::missing_routes(const AddRoutes& step) {
  if (fresh_namespaces_.count(step.ns)) return step.routes;  // nothing can be there yet
  const auto present = kernel_.routes(step.ns);
  const std::set<RouteSpec> have(present.begin(), present.end());
  std::vector<RouteSpec> missing;
  for (const RouteSpec& r : step.routes)
    if (!have.count(r)) missing.push_back(r);
  return missing;
}

void Applier::execute(const Step& step, Done& done) {
  std::visit(
      Overloaded{
          [&](const CreateNamespace& s) {
            if (hooks_.before_create_namespace) hooks_.before_create_namespace(s);
            const uint64_t inode = kernel_.create_namespace(s.ns);
            fresh_namespaces_.insert(s.ns);
            if (hooks_.after_create_namespace) hooks_.after_create_namespace(s, inode);
          },
          [&](const CreateVeth& s) { kernel_.create_veth(s.ns_a, s.if_a, s.ns_b, s.if_b); },
          [&](const ExpectInterface& s) {
            // Not ours to make: say who should have.
            throw KernelError("interface " + s.dev + " is missing in " + s.ns +
                              "; it is made outside the testbed (meshnet, or a VXLAN to " +
                              s.peer_dev + " on host " + s.peer_host + ")");
          },
          // The tunnel's socket in this process's own network: the host's.
          [&](const CreateVxlan& s) { kernel_.create_vxlan("", s.ns, s.dev, s.spec); },
          [&](const SetLinkUp& s) { kernel_.set_link_up(s.ns, s.dev, true); },
          [&](const AddAddress& s) { kernel_.add_address(s.ns, s.dev, s.address); },
          [&](const SetSysctl& s) {
            if (!fresh_namespaces_.count(s.ns)) {
              done.previous_value = kernel_.sysctl(s.ns, s.key);
            }
            kernel_.set_sysctl(s.ns, s.key, s.value);
          },
          [&](const AddIngressHooks& s) { kernel_.set_ingress_delays(s.ns, s.hooks); },
          [&](const AddIngressNetem& s) { kernel_.set_ingress_netem(s.ns, s.dev, s.netem); },
          [&](const ShapeEgress& s) {
            if (!fresh_namespaces_.count(s.ns)) {
              if (auto cur = kernel_.shaping(s.ns, s.dev)) {
                done.previous_shaping = cur->config;
              }
            }
            kernel_.set_shaping(s.ns, s.dev, s.shaping);
          },
          // Some may be there already (a lab applied again after a route was lost):
          // only the missing ones are asked for, as the kernel refuses duplicates.
          [&](const AddRoutes& s) { kernel_.add_routes(s.ns, missing_routes(s)); },
          [&](const AddTrafficCounters& s) { kernel_.set_traffic_counters(s.ns, s.counters); }},
      step);
}

void remove_step(Kernel& kernel, const Step& step) {
  std::visit(Overloaded{[&](const CreateNamespace& s) { kernel.delete_namespace(s.ns); },
                        [&](const CreateVeth& s) { kernel.delete_link(s.ns_a, s.if_a); },
                        [&](const ExpectInterface&) {},  // never made here, so never removed
                        [&](const CreateVxlan& s) { kernel.delete_link(s.ns, s.dev); },
                        [&](const SetLinkUp& s) { kernel.set_link_up(s.ns, s.dev, false); },
                        [&](const AddAddress& s) { kernel.delete_address(s.ns, s.dev, s.address); },
                        [&](const SetSysctl&) {},  // what it held before is not known here
                        [&](const AddIngressHooks& s) {
                          std::vector<std::string> devs;
                          for (const auto& [dev, d] : s.hooks) devs.push_back(dev);
                          kernel.remove_ingress_delays(s.ns, devs);
                        },
                        [&](const AddIngressNetem& s) {
                          kernel.remove_ingress_netem(s.ns, s.dev, s.netem.ifb);
                        },
                        [&](const ShapeEgress& s) { kernel.remove_shaping(s.ns, s.dev); },
                        [&](const AddRoutes& s) { kernel.delete_routes(s.ns); },
                        [&](const AddTrafficCounters& s) { kernel.remove_traffic_counters(s.ns); }},
             step);
}

bool acts_only_in(const Step& step, const std::vector<std::string>& adopted) {
  if (adopted.empty() || std::holds_alternative<ExpectInterface>(step)) return false;
  const auto nss = step_namespaces(step);
  return std::all_of(nss.begin(), nss.end(), [&](const std::string& ns) {
    return std::find(adopted.begin(), adopted.end(), ns) != adopted.end();
  });
}

void Applier::undo(const Step& step, const Done& done) {
  if (const auto* s = std::get_if<SetSysctl>(&step)) {
    if (done.previous_value) kernel_.set_sysctl(s->ns, s->key, *done.previous_value);
    return;
  }
  if (const auto* s = std::get_if<ShapeEgress>(&step); s && done.previous_shaping) {
    kernel_.set_shaping(s->ns, s->dev, *done.previous_shaping);
    return;
  }
  remove_step(kernel_, step);
  if (const auto* s = std::get_if<CreateNamespace>(&step); s && hooks_.after_rollback_namespace) {
    hooks_.after_rollback_namespace(*s);
  }
}

std::vector<std::string> Applier::rollback(const Plan& plan) {
  std::vector<std::string> errors;
  for (auto it = done_.rbegin(); it != done_.rend(); ++it) {
    const Step& step = plan.steps[it->step];
    // Deleting a namespace this run created removes everything inside it, so undoing its
    // contents one by one would only cost time.
    const auto nss = step_namespaces(step);
    const bool swept = !std::holds_alternative<CreateNamespace>(step) &&
                       std::any_of(nss.begin(), nss.end(),
                                   [&](const auto& ns) { return fresh_namespaces_.count(ns) > 0; });
    if (swept) continue;
    try {
      undo(step, *it);
    } catch (const std::exception& e) {
      errors.push_back("undo " + describe_step(step) + ": " + e.what());
    }
  }
  done_.clear();
  fresh_namespaces_.clear();
  return errors;
}

ApplyResult Applier::apply(const Plan& plan) {
  ApplyResult result;
  done_.clear();
  fresh_namespaces_.clear();
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step& step = plan.steps[i];
    try {
      if (interrupted_ && interrupted_->load()) throw std::runtime_error("interrupted by a signal");
      if (in_effect(step)) {
        ++result.unchanged;
        continue;
      }
      const auto started = std::chrono::steady_clock::now();
      if (hooks_.before_step) hooks_.before_step(i, step);
      Done done{i, std::nullopt, std::nullopt};
      execute(step, done);
      done_.push_back(done);
      ++result.changed;
      auto& timing = result.by_op[step_op(step)];
      ++timing.steps;
      timing.seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    } catch (const std::exception& e) {
      const std::string what =
          "step " + std::to_string(i + 1) + " (" + describe_step(step) + "): " + e.what();
      throw ApplyError(what, rollback(plan));
    }
  }
  done_.clear();
  fresh_namespaces_.clear();
  return result;
}

}  // namespace testbed
