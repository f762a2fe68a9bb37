// plan.json read back into the Plan that `up` wrote (plan.h): every verb that works on a
// running lab (status, exec, node, link, partition, timeline, exporter, train, launch) reads
// the plan through here and never by key. Fields are checked by name, as the agents'
// contracts are (agent/contracts/message_fields.h): a missing, mistyped or unknown field
// is refused with its path ("plan.links[2].a2b.delay_us is missing").
#include <algorithm>
#include <array>
#include <set>
#include <string_view>

#include "agent/contracts/message_fields.h"
#include "controller/lab/plan.h"
#include "controller/lab/step_json.h"
#include "controller/topology/node_events.h"
#include "controller/topology/schedule.h"

namespace testbed {
namespace {

using json = nlohmann::json;

std::string at(const std::string& where, size_t i) {
  return where + "[" + std::to_string(i) + "]";
}

// The pieces other files read (shaping, netem, schedules, cross traffic) throw nlohmann's or
// std's errors that name the key but not where it sits: FieldReader::part gives the path.
template <class F>
auto read_part(const FieldReader& r, const char* field, F read) {
  return r.part(field, read);
}

Ipv4Address address_field(const FieldReader& r, const char* field) {
  const auto a = Ipv4Address::parse(r.required<std::string>(field));
  if (!a) throw r.error(field, "is no IPv4 address");
  return *a;
}

Ipv4Prefix prefix_field(const FieldReader& r, const char* field) {
  const auto p = Ipv4Prefix::parse(r.required<std::string>(field), true);
  if (!p) throw r.error(field, "is no IPv4 prefix");
  return *p;
}

const json& array_field(const FieldReader& r, const char* field) {
  if (!r.json().contains(field)) throw r.error(field, "is missing");
  const json& a = r.json().at(field);
  if (!a.is_array()) throw r.error(field, "is not a list");
  return a;
}

NodeEvent event_from(const FieldReader& r) {
  r.refuse_unknown({"at_us", "event", "for_us", "cpus"});
  NodeEvent ev;
  const auto kind = parse_node_event_kind(r.required<std::string>("event"));
  if (!kind) throw r.error("event", "is no node event");
  ev.kind = *kind;
  ev.at_us = r.required<int64_t>("at_us");
  ev.for_us = r.optional<int64_t>("for_us", 0);
  // A CPU share back to the node's own is written as null (plan.cpp).
  if (r.json().contains("cpus") && !r.json().at("cpus").is_null())
    ev.cpus = r.required<double>("cpus");
  return ev;
}

ComputeLimits compute_from(const FieldReader& r) {
  r.refuse_unknown({"cpus", "cpuset", "memory_bytes"});
  ComputeLimits c;
  if (r.json().contains("cpus")) c.cpus = r.required<double>("cpus");
  c.cpuset = r.optional<std::vector<int>>("cpuset", {});
  if (r.json().contains("memory_bytes")) c.memory_bytes = r.required<uint64_t>("memory_bytes");
  return c;
}

PlannedNode node_from(const FieldReader& r, const std::string& where) {
  r.refuse_unknown({"name", "namespace", "address", "events", "compute", "straggler"});
  PlannedNode n;
  n.name = r.required<std::string>("name");
  n.ns = r.required<std::string>("namespace");
  n.address = address_field(r, "address");
  if (r.json().contains("events")) {
    const json& events = array_field(r, "events");
    for (size_t i = 0; i < events.size(); ++i)
      n.events.push_back(event_from(FieldReader(events[i], at(where + ".events", i))));
  }
  if (r.json().contains("compute")) n.compute = compute_from(r.object("compute"));
  if (r.json().contains("straggler")) {
    const FieldReader s = r.object("straggler");
    s.refuse_unknown({"chance", "slowdown", "every_us", "seed"});
    n.straggler = StragglerModel{s.required<double>("chance"), s.required<double>("slowdown"),
                                 s.required<int64_t>("every_us"), s.required<uint64_t>("seed")};
  }
  return n;
}

PlannedDirection direction_from(const FieldReader& r) {
  // "bandwidth", "delay", "jitter" and "loss" are the same figures written for people.
  r.refuse_unknown({"from",
                    "to",
                    "namespace",
                    "dev",
                    "bandwidth",
                    "delay",
                    "jitter",
                    "loss",
                    "rate_bits_per_s",
                    "delay_us",
                    "jitter_us",
                    "loss_fraction",
                    "reorder",
                    "receiver",
                    "stream",
                    "queue",
                    "schedule",
                    "shaping",
                    "gilbert_elliott",
                    "netem",
                    "faults"});
  PlannedDirection d;
  d.from = r.required<std::string>("from");
  d.to = r.required<std::string>("to");
  d.ns = r.required<std::string>("namespace");
  d.dev = r.required<std::string>("dev");
  const FieldReader rx = r.object("receiver");
  rx.refuse_unknown({"namespace", "dev"});
  d.rx_ns = rx.required<std::string>("namespace");
  d.rx_dev = rx.required<std::string>("dev");
  d.params.rate = Rate{r.required<uint64_t>("rate_bits_per_s")};
  d.params.delay = Duration{r.required<int64_t>("delay_us")};
  d.params.jitter = Duration{r.required<int64_t>("jitter_us")};
  d.params.loss =
      Fraction{r.in_range("loss_fraction", r.required<double>("loss_fraction"), 0.0, 1.0)};
  d.params.reorder = r.required<bool>("reorder");
  d.stream = r.required<uint64_t>("stream");
  d.queue = r.required<int>("queue");
  d.params.schedule = read_part(r, "schedule", schedule_from_json);
  d.shaping = read_part(r, "shaping", shaping_from_json);
  if (r.json().contains("gilbert_elliott"))
    d.params.burst_loss = read_part(r, "gilbert_elliott", burst_loss_from_json);
  if (r.json().contains("netem")) d.netem = read_part(r, "netem", netem_from_json);
  if (r.json().contains("faults")) d.params.faults = read_part(r, "faults", changes_from_json);
  return d;
}

PlannedLink link_from(const FieldReader& r) {
  r.refuse_unknown({"index", "a", "b", "if_a", "if_b", "subnet", "a2b", "b2a"});
  PlannedLink l;
  l.index = r.required<size_t>("index");
  l.a = r.required<std::string>("a");
  l.b = r.required<std::string>("b");
  l.if_a = r.required<std::string>("if_a");
  l.if_b = r.required<std::string>("if_b");
  l.subnet = prefix_field(r, "subnet");
  l.a2b = direction_from(r.object("a2b"));
  l.b2a = direction_from(r.object("b2a"));
  return l;
}

PlannedDelayLine delay_line_from(const FieldReader& r, const std::string& where) {
  r.refuse_unknown({"node", "namespace", "queues"});
  PlannedDelayLine dl;
  dl.node = r.required<std::string>("node");
  dl.ns = r.required<std::string>("namespace");
  const json& queues = array_field(r, "queues");
  for (size_t i = 0; i < queues.size(); ++i) {
    const FieldReader q(queues[i], at(where + ".queues", i));
    q.refuse_unknown({"queue", "delay_us", "jitter_us", "seed", "reorder", "gilbert_elliott"});
    PlannedDelayLine::Queue x;
    x.num = q.required<uint16_t>("queue");
    x.delay_us = q.required<int64_t>("delay_us");
    x.jitter_us = q.required<int64_t>("jitter_us");
    x.seed = q.required<uint64_t>("seed");
    x.reorder = q.required<bool>("reorder");
    if (q.json().contains("gilbert_elliott"))
      x.burst = read_part(q, "gilbert_elliott", burst_loss_from_json);
    dl.queues.push_back(x);
  }
  return dl;
}

// The lists of plan.json, which are most of it: each element is read into the plan by
// itself (plan_from_json_text reads each as soon as it is parsed).
constexpr std::array<std::string_view, 4> kLists = {"delay_lines", "nodes", "links", "steps"};

class ListReader {
 public:
  explicit ListReader(Plan& p) : p_(p) {}
  // Element `i` of list `list` (one of kLists).
  void read(std::string_view list, size_t i, const json& e) {
    const std::string where = at("plan." + std::string(list), i);
    if (list == "delay_lines") {
      p_.delay_lines.push_back(delay_line_from(FieldReader(e, where), where));
    } else if (list == "nodes") {
      p_.nodes.push_back(node_from(FieldReader(e, where), where));
      if (!names_.insert(p_.nodes.back().name).second)
        throw ContractError(where + ".name '" + p_.nodes.back().name +
                            "' is a second node of that name");
    } else if (list == "links") {
      p_.links.push_back(link_from(FieldReader(e, where)));
    } else {
      try {
        p_.steps.push_back(step_from_json(e));
      } catch (const std::exception& ex) {
        throw ContractError(where + ": " + ex.what());
      }
    }
  }

 private:
  Plan& p_;
  std::set<std::string> names_;
};

// Everything of plan.json but its lists' elements.
void read_fields(const json& j, Plan& p) {
  const FieldReader r(j, "plan");
  r.refuse_unknown({"lab", "source", "pool", "routing", "backend", "backend_reason", "seed",
                    "workload", "has_schedules", "release_window_us", "reroute", "cross_traffic",
                    "delay_lines", "nodes", "links", "routes", "steps", "notes", "fit"});
  for (const auto list : kLists) array_field(r, std::string(list).c_str());
  p.lab = r.required<std::string>("lab");
  p.source_file = r.required<std::string>("source");
  p.pool = prefix_field(r, "pool");
  const auto routing = r.required<std::string>("routing");
  if (routing != "hops" && routing != "delay")
    throw r.error("routing", "is neither hops nor delay");
  p.metric = routing == "delay" ? RouteMetric::kDelay : RouteMetric::kHops;
  const auto backend = parse_backend_name(r.required<std::string>("backend"));
  if (!backend || *backend == ImpairmentBackend::kAuto)
    throw r.error("backend", "is no resolved backend");
  p.backend = *backend;
  p.backend_reason = r.required<std::string>("backend_reason");
  p.seed = r.required<uint64_t>("seed");
  p.workload = r.required<std::map<std::string, std::string>>("workload");
  p.has_schedules = r.required<bool>("has_schedules");
  if (j.contains("release_window_us"))
    p.release_window_us = r.required<int64_t>("release_window_us");
  if (j.contains("reroute")) {
    const FieldReader rr = r.object("reroute");
    rr.refuse_unknown({"convergence_us"});
    p.reroute_convergence_us = rr.required<int64_t>("convergence_us");
  }
  if (j.contains("cross_traffic")) {
    const json& list = array_field(r, "cross_traffic");
    for (size_t i = 0; i < list.size(); ++i) {
      try {
        p.traffic.push_back(traffic_from_json(list[i]));
      } catch (const std::exception& e) {
        throw ContractError(at("plan.cross_traffic", i) + ": " + e.what());
      }
    }
  }
  p.notes = r.required<std::vector<std::string>>("notes");
  if (j.contains("fit")) {
    const auto& fit = j["fit"];
    const double factor = fit.is_object() ? fit.value("factor", 0.0) : 0.0;
    if (!(factor > 0 && factor <= 1))
      throw ContractError("plan.json: 'fit' must be an object with a factor in (0, 1]");
    p.fit = fit;
  }
  // "routes" is the book's rule and count (or, from `plan --routes`, every route): the book
  // itself is made again from the nodes and links, by route_book_of, when a verb needs it.
  if (!j.contains("routes")) throw r.error("routes", "is missing");
  if (j["routes"].is_object() && j["routes"].contains("count")) p.route_summary = j["routes"];
}

}  // namespace

Plan plan_from_json(const nlohmann::json& j) {
  Plan p;
  FieldReader(j, "plan");  // refuses what is not an object before any list is looked at
  ListReader lists(p);
  for (const auto list : kLists) {
    if (!j.contains(list) || !j.at(list).is_array()) continue;  // refused by read_fields
    const json& a = j.at(list);
    for (size_t i = 0; i < a.size(); ++i) lists.read(list, i, a[i]);
  }
  read_fields(j, p);
  return p;
}

Plan plan_from_json_text(const std::string& text, bool with_steps) {
  Plan p;
  ListReader lists(p);
  // Where the parser is: the top-level key whose value it is in, whether that value is one
  // of kLists, and how many of its elements were read.
  std::string key;
  bool in_list = false;
  size_t next = 0;
  using event = json::parse_event_t;
  const json::parser_callback_t read_each = [&](int depth, event e, json& parsed) {
    if (depth == 1) {
      if (e == event::key) {
        key = parsed.get<std::string>();
        in_list = false;
        next = 0;
        return with_steps || key != "steps";  // skipped: checked as JSON, never built
      }
      if (e == event::array_start)
        in_list = std::find(kLists.begin(), kLists.end(), key) != kLists.end();
      return true;
    }
    // An element ends: an object as it should be, or anything else, refused by the same
    // reader with the same words as from a whole tree.
    if (depth != 2 || !in_list ||
        (e != event::object_end && e != event::array_end && e != event::value))
      return true;
    lists.read(key, next++, parsed);
    return false;  // read: its tree is dropped at once, not kept to the end
  };
  json j = json::parse(text, read_each, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw ContractError("not JSON");
  if (!with_steps && j.is_object()) j["steps"] = json::array();
  read_fields(j, p);
  return p;
}

RouteBook route_book_of(const Plan& plan) {
  std::vector<RouteBook::Node> nodes;
  std::map<std::string, size_t> index;
  for (const auto& n : plan.nodes) {
    index[n.name] = nodes.size();
    nodes.push_back({n.name, n.address});
  }
  const auto node = [&](const std::string& name) {
    const auto it = index.find(name);
    if (it == index.end())
      throw ContractError("plan: a link's end '" + name + "' is not a node of the plan");
    return it->second;
  };
  std::vector<RouteBook::Link> links;
  for (const auto& l : plan.links) {
    links.push_back({node(l.a), node(l.b), l.subnet, l.if_a, l.if_b, l.a2b.params.delay.us,
                     l.b2a.params.delay.us});
  }
  return RouteBook(plan.metric, std::move(nodes), std::move(links));
}

}  // namespace testbed
