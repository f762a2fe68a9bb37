#include "agent/contracts/tree_messages.h"

#include <cmath>
#include <limits>

namespace testbed {
namespace {

// Read as JSON first: a float too large for an int is undefined behaviour in a cast.
std::vector<int> node_list(const FieldReader& r, const char* field, size_t nodes) {
  const auto list = r.required<nlohmann::json>(field);
  if (!list.is_array()) throw r.error(field, "is not a list of node indices");
  std::vector<int> out;
  for (const auto& n : list) {
    if (!n.is_number_integer() || n.get<int64_t>() < 0 ||
        static_cast<uint64_t>(n.get<int64_t>()) >= nodes)
      throw r.error(field, "names " + n.dump() + ", no node of the lab's " + std::to_string(nodes));
    out.push_back(static_cast<int>(n.get<int64_t>()));
  }
  return out;
}

nlohmann::json deliveries(const Deliveries& d) {
  return {{"count", d.count}, {"seconds", d.seconds}};
}

Deliveries deliveries_from(const FieldReader& r) {
  r.refuse_unknown({"count", "seconds"});
  return {r.whole("count"), r.measure("seconds")};
}

// A logreg job a single process can still check in a test's time: beyond these the
// reference run alone would take minutes.
constexpr int kMaxLogRegFeatures = 1'000'000;
constexpr int kMaxLogRegSamples = 10'000'000;

}  // namespace

nlohmann::json to_json(const TreeSetup& s) {
  nlohmann::json j = {{"cmd", "setup"},
                      {"protocol", "tree"},
                      {"chunk_elements", s.chunk_elements},
                      {"model_elements", s.model_elements},
                      {"seed", s.seed},
                      {"neighbors", s.neighbors},
                      {"probe_bytes", s.probe_bytes}};
  write_van_setup(j, s.van);
  if (s.logreg)
    j["logreg"] = {{"nodes", s.logreg->nodes},
                   {"features", s.logreg->features},
                   {"samples_per_node", s.logreg->samples_per_node},
                   {"learning_rate", s.logreg->learning_rate}};
  return j;
}

TreeSetup tree_setup_from_json(const nlohmann::json& j) {
  const FieldReader r(j, "setup");
  r.refuse_unknown({"cmd", "protocol", "chunk_elements", "model_elements", "seed", "logreg",
                    "neighbors", "probe_bytes"},
                   kVanSetupFields);
  if (r.required<std::string>("cmd") != "setup") throw r.error("cmd", "is not setup");
  if (r.required<std::string>("protocol") != "tree") throw r.error("protocol", "is not tree");
  TreeSetup s;
  s.van = van_setup_from(r);
  // The protocol counts a chunk's elements in 32 bits (the wire header's chunk index too).
  s.chunk_elements = r.whole("chunk_elements", std::numeric_limits<uint32_t>::max());
  if (s.chunk_elements == 0) throw r.error("chunk_elements", "is 0");
  s.model_elements = r.whole("model_elements");
  s.seed = r.whole("seed");
  for (int n : node_list(r, "neighbors", s.van.nodes())) s.neighbors.insert(n);
  s.probe_bytes = r.whole("probe_bytes");
  if (j.contains("logreg")) {
    const FieldReader l = r.object("logreg");
    l.refuse_unknown({"nodes", "features", "samples_per_node", "learning_rate"});
    TreeLogRegJob job;
    job.nodes = static_cast<int>(l.whole("nodes", static_cast<uint64_t>(s.van.nodes())));
    job.features = static_cast<int>(l.whole("features", kMaxLogRegFeatures));
    job.samples_per_node = static_cast<int>(l.whole("samples_per_node", kMaxLogRegSamples));
    job.learning_rate =  // The agent computes in float: a rate past float's range would be
                         // undefined there.
        l.measure("learning_rate", std::numeric_limits<float>::max());
    if (job.nodes == 0 || job.features == 0 || job.samples_per_node == 0)
      throw l.error("nodes", "features and samples_per_node must be above 0");
    s.logreg = job;
  }
  return s;
}

nlohmann::json to_json(const ProbeLinks& c) {
  return {{"cmd", ProbeLinks::kCommand},
          {"to", c.to},
          {"from", c.from},
          {"bytes", c.bytes},
          {"count", c.count}};
}

ProbeLinks probe_links_from_json(const nlohmann::json& j, size_t nodes) {
  const FieldReader r = FieldReader::named(j, ProbeLinks::kCommand, "cmd");
  r.refuse_unknown({"cmd", "to", "from", "bytes", "count"});
  ProbeLinks c;
  c.to = node_list(r, "to", nodes);
  c.from = node_list(r, "from", nodes);
  c.bytes = r.whole("bytes");
  c.count = static_cast<uint32_t>(r.whole("count", std::numeric_limits<uint32_t>::max()));
  return c;
}

nlohmann::json to_json(const LinksProbed& e) {
  nlohmann::json mbit = nlohmann::json::object();
  for (const auto& [peer, rate] : e.mbit) mbit[std::to_string(peer)] = rate;
  return {{"event", LinksProbed::kEvent}, {"mbit", mbit}};
}

LinksProbed links_probed_from_json(const nlohmann::json& j, size_t nodes) {
  const FieldReader r = FieldReader::named(j, LinksProbed::kEvent);
  r.refuse_unknown({"event", "mbit"});
  LinksProbed e;
  const FieldReader m = r.object("mbit");
  for (const auto& [key, value] : m.json().items()) {
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
      throw r.error("mbit", "holds a rate that is no finite number >= 0");
    e.mbit[r.node_key("mbit", key, nodes)] = value.get<double>();
  }
  return e;
}

nlohmann::json to_json(const IterateCommand& c) {
  return {{"cmd", IterateCommand::kCommand},
          {"iteration", c.iteration},
          {"compute_ms", c.compute_ms},
          {"policy", c.policy}};
}

IterateCommand iterate_command_from_json(const nlohmann::json& j) {
  const FieldReader r = FieldReader::named(j, IterateCommand::kCommand, "cmd");
  r.refuse_unknown({"cmd", "iteration", "compute_ms", "policy"});
  IterateCommand c;
  c.iteration = r.whole("iteration");
  c.compute_ms = r.whole("compute_ms");
  c.policy = r.required<nlohmann::json>("policy");
  if (!c.policy.is_object()) throw r.error("policy", "is not an object");
  return c;
}

nlohmann::json to_json(const IterationDone& e) {
  nlohmann::json samples = nlohmann::json::object();
  for (const auto& [from, s] : e.link_samples)
    samples[std::to_string(from)] = {
        {"bytes", s.bytes}, {"seconds", s.seconds}, {"count", s.count}};
  nlohmann::json j = {
      {"event", IterationDone::kEvent},
      {"iteration", e.iteration},
      {"seconds", e.seconds},
      {"checksum", e.checksum},
      {"link_samples", samples},
      {"chunks_sent", e.chunks_sent},
      {"aux_chunks_sent", e.aux_chunks_sent},
      {"chunks_forwarded", e.chunks_forwarded},
      {"delivered", {{"primary", deliveries(e.primary)}, {"aux", deliveries(e.aux)}}}};
  // A NaN loss (a diverged job) is written as null, and read back as NaN.
  if (e.loss) j["job"] = {{"loss", *e.loss}, {"weights", e.weights}};
  write_van_counters(j, e.counters);
  return j;
}

IterationDone iteration_done_from_json(const nlohmann::json& j, size_t nodes,
                                       uint64_t max_iteration) {
  const FieldReader r = FieldReader::named(j, IterationDone::kEvent);
  r.refuse_unknown({"event", "iteration", "seconds", "checksum", "job", "link_samples",
                    "chunks_sent", "aux_chunks_sent", "chunks_forwarded", "delivered", "bytes_sent",
                    "bytes_received", "malformed_messages", "refused_connections",
                    "dropped_connections"});
  IterationDone e;
  e.iteration = r.whole("iteration", max_iteration);
  e.seconds = r.measure("seconds");
  // The checksum is compared between nodes only; any finite sum is one.
  e.checksum = j.contains("checksum") && j.at("checksum").is_null()
                   ? std::numeric_limits<double>::quiet_NaN()
                   : r.required<double>("checksum");
  if (j.contains("job")) {
    const FieldReader job = r.object("job");
    job.refuse_unknown({"loss", "weights"});
    e.loss = j.at("job").contains("loss") && j.at("job").at("loss").is_null()
                 ? std::numeric_limits<double>::quiet_NaN()
                 : job.required<double>("loss");
    // Each a number a float holds: casting a larger double to float is undefined.
    for (const auto& w : job.required<std::vector<double>>("weights")) {
      if (!(std::fabs(w) <= std::numeric_limits<float>::max()))
        throw job.error("weights", "holds a value no float holds");
      e.weights.push_back(static_cast<float>(w));
    }
  }
  for (const auto& [key, value] : r.object("link_samples").json().items()) {
    const FieldReader s(value, r.where() + ".link_samples." + key);
    s.refuse_unknown({"bytes", "seconds", "count"});
    e.link_samples[r.node_key("link_samples", key, nodes)] = {
        s.measure("bytes"), s.measure("seconds"), s.whole("count")};
  }
  e.chunks_sent = r.whole("chunks_sent");
  e.aux_chunks_sent = r.whole("aux_chunks_sent");
  e.chunks_forwarded = r.whole("chunks_forwarded");
  const FieldReader delivered = r.object("delivered");
  delivered.refuse_unknown({"primary", "aux"});
  e.primary = deliveries_from(delivered.object("primary"));
  e.aux = deliveries_from(delivered.object("aux"));
  e.counters = van_counters_from(r, nodes);
  return e;
}

void check_tree_reply(const nlohmann::json& j, size_t nodes, uint64_t max_iteration) {
  const auto event = j.find("event");
  if (event == j.end() || !event->is_string()) return;
  if (*event == LinksProbed::kEvent) links_probed_from_json(j, nodes);
  if (*event == IterationDone::kEvent) iteration_done_from_json(j, nodes, max_iteration);
}

}  // namespace testbed
