#include "controller/runs/scenario_runner.h"

#include <signal.h>
#include <sys/utsname.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "controller/dynamics/link_control.h"
#include "controller/lab/lab_state.h"
#include "controller/lab/plan_table.h"
#include "controller/observe/report.h"
#include "controller/options/run_options.h"
#include "controller/options/workload_settings.h"
#include "controller/runs/child_process.h"
#include "controller/runs/iteration_progress.h"
#include "controller/runs/run_health.h"
#include "controller/runs/scenario_figures.h"
#include "controller/training/strategies.h"
#include "netns/job_marks.h"

namespace testbed {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The lab a scenario runs as: its own name, so it never collides with a user's lab.
std::string lab_name(const std::string& scenario) {
  std::string lab = ("sc-" + scenario).substr(0, 24);
  while (lab.back() == '-') lab.pop_back();
  return lab;
}

std::string kernel_release() {
  utsname u{};
  return uname(&u) == 0 ? u.release : "?";
}

// The last line of `text` that is a JSON object (train prints its summary so).
nlohmann::json last_json_line(const std::string& text) {
  std::istringstream lines(text);
  nlohmann::json found;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] == '{') {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_discarded()) found = j;
    }
  }
  return found;
}

// `testbed launch` for a scenario's launched job: its summary is the run's, as train's is.
std::vector<std::string> launch_argv(const std::string& testbed, const std::string& lab,
                                     const std::string& name, const LaunchedJob& job,
                                     const std::string& scenario_dir) {
  std::vector<std::string> argv = {testbed,  "launch", lab,       "--json",
                                   "--name", name,     "--nodes", job.nodes};
  for (const auto& [k, v] : job.options) {
    argv.push_back("--" + k);
    argv.push_back(v);
  }
  argv.push_back("--");
  for (std::string arg : job.command) {
    for (size_t at; (at = arg.find("{scenario_dir}")) != std::string::npos;)
      arg.replace(at, std::string("{scenario_dir}").size(), scenario_dir);
    argv.push_back(arg);
  }
  return argv;
}

std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  const auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

}  // namespace

bool ScenarioResult::passed() const {
  if (interrupted) return false;
  for (const auto& v : verdicts)
    if (!v.passed) return false;
  for (const auto& [name, o] : strategies)
    if (o.failed) return false;  // a failure fails the scenario even unasked
  return true;
}

namespace {

// One scenario's run, step by step: its inputs written, then for each repetition each group
// of strategies (one, or all side by side) on a lab of its own, their summaries and what
// the lab measured kept, and at the end the figures, the verdicts and the plots. The
// results file is rewritten after every group, so an interrupted run keeps what it
// finished.
class ScenarioRun {
 public:
  ScenarioRun(const Scenario& s, const OutputDir& out, const std::atomic<int>& stop)
      : s_(s), out_(out), stop_(stop), lab_(lab_name(s.name)), testbed_(program_path("testbed")) {
    result_.name = s.name;
    result_.out_dir = out.path();
    total_ = static_cast<int>(s.strategies.size()) * s.repetitions;
    // For the time-left estimate only; a profile's own workload may differ, then it is off.
    per_run_ = s.workload.count("iterations") ? std::stoi(s.workload.at("iterations"))
                                              : kDefaultIterations;
  }

  ScenarioResult run() {
    write_inputs();
    for (int rep = 1; rep <= s_.repetitions && !stop_; ++rep) {
      for (const auto& group : groups()) {
        if (stop_) break;
        run_group(rep, group);
        write_results();
      }
    }
    if (stop_) result_.interrupted = true;
    judge_and_plot();
    return result_;
  }

 private:
  // The scenario, its topology (and its variants' own) as the children read them.
  void write_inputs() {
    out_.make_dir("runs");
    topology_text_ = s_.topology_inline.empty() ? read_file(s_.topology_path) : s_.topology_inline;
    // The children (`testbed up`) read it through our descriptor of the checked directory.
    out_.write("topology.yaml", derive_topology(s_, topology_text_, lab_));
    topology_ = out_.for_child("topology.yaml");
    for (const auto& [name, path] : s_.variant_topologies) {
      variant_text_[name] = read_file(path);
      out_.write("topology-" + name + ".yaml", derive_topology(s_, variant_text_[name], lab_));
    }
    out_.write("scenario.yaml", read_file(s_.file));
    out_.write("iterations.csv", "strategy,repetition,iteration,seconds\n");
    out_.write("links.csv",
               "strategy,repetition,unix_s,link,node,peer,configured_bits_per_s,transmit_bytes,"
               "background_bytes\n");
  }

  // Each strategy on a lab of its own, one after another; or, with `concurrent: true`, all
  // of them side by side on one lab (docs/jobs.md), each judged on its own summary.
  std::vector<std::vector<std::string>> groups() const {
    if (s_.concurrent) return {s_.strategies};
    std::vector<std::vector<std::string>> groups;
    for (const auto& strategy : s_.strategies) groups.push_back({strategy});
    return groups;
  }

  void run_group(int rep, const std::vector<std::string>& group) {
    // A group's lab, captures and link samples are named after all of its strategies.
    std::string together;
    for (const auto& name : group) together += (together.empty() ? "" : "+") + name;
    const std::string group_tag = together + "-rep" + std::to_string(rep);
    const int first_run = done_runs_ + 1;
    done_runs_ += static_cast<int>(group.size());
    // seeds: this repetition's lab draws its own network, and its workload its own data.
    std::optional<uint64_t> seed;
    if (!s_.seeds.empty()) seed = s_.seeds[static_cast<size_t>(rep - 1)];
    if (!bring_up(rep, group, seed)) return;
    std::vector<std::vector<std::string>> commands;
    for (size_t i = 0; i < group.size(); ++i) {
      commands.push_back(command_of(group[i], seed));
      if (s_.jobs.count(group[i]))
        // A user's job prints no progress of ours: say at least what runs.
        std::cout << "[" << s_.name << "] " << group[i] << " (" << first_run + i << "/" << total_
                  << "): launched job on " << s_.jobs.at(group[i]).nodes << " node(s)\n"
                  << std::flush;
    }
    Capture capture(*this, group_tag);
    // Side by side: what the lab's devices received meanwhile, to check the jobs' own bytes
    // against (docs/jobs.md).
    const uint64_t links_before = group.size() > 1 ? links_received() : 0;
    const std::vector<ChildResult> finished = run_children(group, commands, first_run);
    const uint64_t links_after = group.size() > 1 ? links_received() : 0;
    const nlohmann::json capture_record = capture.finish();
    keep_what_the_lab_measured(together, rep, group_tag);
    run_child(
        {testbed_, "down", lab_}, [](const std::string&) {}, std::atomic<int>{0});
    record_runs(rep, group, seed, finished, capture_record);
    if (group.size() > 1) check_side_by_side(rep, group, finished, links_after - links_before);
  }

  // The group's lab, from the scenario's topology (a variant's own when it has one, drawn
  // anew from the repetition's seed). False when it could not be made: the kernel or the
  // machine (bad input was caught before the run); the group's runs are failed.
  bool bring_up(int rep, const std::vector<std::string>& group, std::optional<uint64_t> seed) {
    // A variant's own lab (never in a concurrent group: the parser refuses it).
    const auto own = variant_text_.find(group.front());
    const bool own_lab = group.size() == 1 && own != variant_text_.end();
    const std::string stem = own_lab ? "topology-" + group.front() : "topology";
    std::string profile = out_.for_child(stem + ".yaml");
    if (seed) {
      const std::string name = stem + "-seed" + std::to_string(*seed) + ".yaml";
      out_.write(name, derive_topology(s_, own_lab ? own->second : topology_text_, lab_, seed));
      profile = out_.for_child(name);
    }
    std::ostringstream time_scale;
    time_scale << s_.time_scale;
    std::vector<std::string> up_command = {
        testbed_, "up", profile, "--time-scale", time_scale.str(), "--prometheus", "off"};
    if (!s_.fit.empty()) up_command.insert(up_command.end(), {"--fit", s_.fit});
    const auto up = run_child(
        up_command, [](const std::string&) {}, stop_);
    if (up.status == 0) return true;
    for (const auto& strategy : group) {
      nlohmann::json run = {{"strategy", strategy}, {"repetition", rep}};
      if (seed) run["seed"] = *seed;
      run["failure"] = "up failed: " + last_line(up.err);
      result_.strategies[strategy] = {true, run["failure"], {}, {}};
      runs_.push_back(run);
    }
    if (stop_) result_.interrupted = true;
    return false;
  }

  // The command that runs one strategy on the lab: `train`, or `launch` for a user's job.
  std::vector<std::string> command_of(const std::string& strategy,
                                      std::optional<uint64_t> seed) const {
    if (const auto job = s_.jobs.find(strategy); job != s_.jobs.end())
      return launch_argv(testbed_, lab_, strategy, job->second,
                         fs::absolute(s_.file).parent_path().string());
    // A variant's own settings over the scenario's workload.
    std::map<std::string, std::string> settings = s_.workload;
    settings["strategy"] = strategy;
    if (const auto v = s_.variants.find(strategy); v != s_.variants.end())
      for (const auto& [k, value] : v->second) settings[k] = value;
    if (seed) settings["seed"] = std::to_string(*seed);
    std::vector<std::string> train = {testbed_, "train", lab_, "--json"};
    for (const auto& [k, v] : settings) {
      train.push_back("--" + k);
      train.push_back(v);
    }
    return train;
  }

  // The run's packets (capture:), recorded beside it and stopped as it ends.
  class Capture {
   public:
    Capture(ScenarioRun& r, const std::string& group_tag)
        : r_(r), file_("runs/" + group_tag + ".pcapng") {
      if (!r.s_.capture_snaplen) return;
      thread_ = std::thread([this] {
        captured_ = run_child(
            {r_.testbed_, "capture", r_.lab_, "--all", "--snaplen",
             std::to_string(*r_.s_.capture_snaplen), "--out", r_.out_.for_child(file_), "--json"},
            [](const std::string&) {}, stop_);
      });
    }
    ~Capture() { finish(); }
    // What the capture recorded; null when there was none.
    nlohmann::json finish() {
      if (!thread_.joinable()) return nullptr;
      stop_ = SIGINT;  // as Ctrl-C: the file is closed whole
      thread_.join();
      const nlohmann::json c = last_json_line(captured_->out);
      return c.is_null() ? nlohmann::json{{"failure", last_line(captured_->err)}}
                         : nlohmann::json{{"file", r_.out_.shown(file_)}, {"summary", c}};
    }

   private:
    ScenarioRun& r_;
    const std::string file_;
    std::atomic<int> stop_{0};
    std::optional<ChildResult> captured_;
    std::thread thread_;
  };

  uint64_t links_received() const {
    const LabStore store;
    std::map<std::string, std::vector<std::string>> ends;  // by namespace
    for (const auto& d : live_directions(store.load(lab_).plan, read_current(store.dir(lab_))))
      ends[d.rx_ns].push_back(d.rx_dev);
    uint64_t bytes = 0;
    for (const auto& [ns, devs] : ends) bytes += received_ip_bytes(ns, devs);
    return bytes;
  }

  // The group's commands side by side, their iterations shown with the time left.
  std::vector<ChildResult> run_children(const std::vector<std::string>& group,
                                        const std::vector<std::vector<std::string>>& commands,
                                        int first_run) {
    std::vector<ChildResult> finished(group.size());
    std::vector<std::thread> children;
    for (size_t i = 0; i < group.size(); ++i) {
      children.emplace_back([&, i] {
        finished[i] = run_child(
            commands[i],
            [&](const std::string& line) { show_progress(group[i], first_run + i, line); }, stop_);
      });
    }
    for (auto& c : children) c.join();
    return finished;
  }

  void show_progress(const std::string& strategy, size_t run, const std::string& line) {
    const auto p = iteration_progress_from_line(line);
    if (!p) return;
    std::lock_guard<std::mutex> hold(progress_lock_);  // the children's lines, on their threads
    iteration_seconds_ += p->seconds;
    ++iterations_done_;
    const auto left_here = static_cast<double>(p->iterations - p->iteration);
    const double mean = iteration_seconds_ / iterations_done_;
    const double left = mean * (left_here + (total_ - done_runs_) * per_run_);
    std::cout << "[" << s_.name << "] " << strategy << " (" << run << "/" << total_
              << "): iteration " << p->iteration << "/" << p->iterations << ", " << std::fixed
              << std::setprecision(2) << p->seconds << " s; about " << std::setprecision(0) << left
              << " s left\n"
              << std::flush;
  }

  // What the lab measured outlives it here: its link samples, and its timeline.
  void keep_what_the_lab_measured(const std::string& together, int rep,
                                  const std::string& group_tag) {
    const std::string lab_dir = LabStore().dir(lab_);
    const std::string samples = read_file(lab_dir + "/link_samples.csv");
    if (first_link_samples_.empty()) {
      first_link_samples_ = samples;
      // Its faults, shaded on the links' plots as `testbed report` shades a lab's.
      double zero = 0;
      if (std::ifstream z(lab_dir + "/timeline-start"); z >> zero)
        first_faults_ = fault_intervals(read_file(lab_dir + "/timeline.csv"), zero);
    }
    std::istringstream sample_lines(samples);
    std::string link_rows;
    for (std::string line; std::getline(sample_lines, line);) {
      if (!line.empty() && line.rfind("unix_s", 0) != 0)
        link_rows += together + "," + std::to_string(rep) + "," + line + "\n";
    }
    out_.append("links.csv", link_rows);
    if (fs::exists(lab_dir + "/timeline.csv"))
      out_.write("runs/" + group_tag + "-timeline.csv", read_file(lab_dir + "/timeline.csv"));
  }

  // Each run's summary kept (or its failure), its iterations into iterations.csv.
  void record_runs(int rep, const std::vector<std::string>& group, std::optional<uint64_t> seed,
                   const std::vector<ChildResult>& finished, const nlohmann::json& capture_record) {
    for (size_t i = 0; i < group.size(); ++i) {
      const std::string& strategy = group[i];
      const std::string tag = strategy + "-rep" + std::to_string(rep);
      const ChildResult& t = finished[i];
      nlohmann::json run = {{"strategy", strategy}, {"repetition", rep}};
      if (seed) run["seed"] = *seed;
      if (group.size() > 1) run["beside"] = group;
      if (!capture_record.is_null()) run["capture"] = capture_record;
      const nlohmann::json summary = last_json_line(t.out);
      if (t.status != 0 || summary.is_null()) {
        run["failure"] = stop_ ? "interrupted" : "train failed: " + last_line(t.err);
        result_.strategies[strategy] = {true, run["failure"], {}, {}};
        if (stop_) result_.interrupted = true;
      } else {
        run["summary"] = summary;
        if (const std::string warning = health_warning(summary); !warning.empty())
          std::cout << "[" << s_.name << "] " << strategy << ": " << warning << "\n" << std::flush;
        out_.write("runs/" + tag + ".json", summary.dump(1) + "\n");
        summaries_.push_back(summary);
        by_strategy_[strategy].push_back(summary);
        const auto times = summary.value("iteration_s", std::vector<double>{});
        std::ostringstream rows;
        for (size_t k = 0; k < times.size(); ++k)
          rows << strategy << "," << rep << "," << k + 1 << "," << times[k] << "\n";
        out_.append("iterations.csv", rows.str());
      }
      runs_.push_back(run);
    }
  }

  // Each job's own bytes (its summary's job_traffic) beside what the links delivered while
  // they ran: with nothing else on the lab, they add up.
  void check_side_by_side(int rep, const std::vector<std::string>& group,
                          const std::vector<ChildResult>& finished, uint64_t delivered) {
    nlohmann::json own = nlohmann::json::object();
    double sum = 0;
    for (size_t i = 0; i < group.size(); ++i) {
      const auto summary = last_json_line(finished[i].out);
      if (summary.is_null() || !summary.contains("job_traffic")) continue;
      const double b = summary["job_traffic"].value("wan_bytes", 0.0);
      own[group[i]] = b;
      sum += b;
    }
    const double links = static_cast<double>(delivered);
    const double difference = links > 0 ? (sum - links) / links : 0;
    side_by_side_.push_back({{"strategies", group},
                             {"repetition", rep},
                             {"job_wan_bytes", own},
                             {"jobs_sum_bytes", sum},
                             {"links_delivered_bytes", links},
                             {"difference", difference}});
    std::cout << "[" << s_.name << "] side by side: the jobs' own bytes " << std::fixed
              << std::setprecision(2) << sum / 1e6 << " MB, the links delivered " << links / 1e6
              << " MB (" << std::showpos << 100 * difference << std::noshowpos << "%)\n"
              << std::flush;
  }

  // Means over repetitions (a strategy that failed once counts as failed), the verdicts,
  // the results, and the plots as `testbed report` draws them.
  void judge_and_plot() {
    for (const auto& [strategy, list] : by_strategy_) {
      auto& o = result_.strategies[strategy];
      if (!o.failed) add_run_figures(list, o);
    }
    result_.verdicts = judge(s_, result_.strategies);
    result_.seconds = seconds();
    write_results();
    ReportInput report{summaries_, first_link_samples_, first_faults_};
    render_report(report, out_);
  }

  double seconds() const { return std::chrono::duration<double>(Clock::now() - started_).count(); }

  void write_results() const {
    nlohmann::json strategies = nlohmann::json::object();
    for (const auto& [name, o] : result_.strategies)
      strategies[name] = {{"failed", o.failed}, {"failure", o.failure}, {"figures", o.figures}};
    nlohmann::json verdicts = nlohmann::json::array();
    for (const auto& v : result_.verdicts)
      verdicts.push_back(
          {{"expectation", v.expectation}, {"passed", v.passed}, {"detail", v.detail}});
    nlohmann::json j = {{"scenario", s_.name},
                        {"file", s_.file},
                        {"finished", !result_.interrupted && done_runs_ == total_},
                        {"interrupted", result_.interrupted},
                        {"passed", result_.passed() && done_runs_ == total_},
                        {"seconds", seconds()},
                        {"inputs",
                         {{"scenario", read_file(s_.file)},
                          {"topology", read_file(topology_)},
                          {"time_scale", s_.time_scale},
                          {"workload", s_.workload},
                          {"strategies", s_.strategies},
                          {"variants", s_.variants},
                          {"variant_topologies", variant_text_},
                          {"repetitions", s_.repetitions}}},
                        {"versions", {{"testbed", TESTBED_VERSION}, {"kernel", kernel_release()}}},
                        {"strategies", strategies},
                        {"verdicts", verdicts},
                        {"runs", runs_}};
    if (!side_by_side_.empty()) j["side_by_side"] = side_by_side_;
    out_.write("results.json", j.dump(1) + "\n");
  }

  const Scenario& s_;
  const OutputDir& out_;
  const std::atomic<int>& stop_;
  const std::string lab_;
  const std::string testbed_;
  const Clock::time_point started_ = Clock::now();
  ScenarioResult result_;
  std::string topology_text_, topology_;  // the text, and the file as the children read it
  std::map<std::string, std::string> variant_text_;  // the variants' own topologies
  nlohmann::json runs_ = nlohmann::json::array();
  nlohmann::json side_by_side_ = nlohmann::json::array();  // concurrent groups' byte checks
  std::vector<nlohmann::json> summaries_;
  std::string first_link_samples_;
  std::vector<FaultInterval> first_faults_;  // of the run whose links are plotted
  std::map<std::string, std::vector<nlohmann::json>> by_strategy_;
  int total_ = 0, done_runs_ = 0, per_run_ = 0;
  double iteration_seconds_ = 0;  // over every iteration so far, for the time-left estimate
  int iterations_done_ = 0;
  std::mutex progress_lock_;
};

}  // namespace

ScenarioResult run_scenario(const Scenario& s, const OutputDir& out, const std::atomic<int>& stop) {
  return ScenarioRun(s, out, stop).run();
}

}  // namespace testbed

namespace testbed {

std::string default_results_dir(const std::string& name) {
  std::string stamp = now_iso8601();
  for (char& c : stamp)
    if (c == ':') c = '-';  // colons trouble some tools and filesystems
  return "testbed-results/" + name + "-" + stamp;
}

void check_runnable(Scenario& s) {
  const std::string text =
      s.topology_inline.empty() ? read_file(s.topology_path) : s.topology_inline;
  const std::string derived = derive_topology(s, text, lab_name(s.name));
  const Topology t =
      parse_profile_text(derived, s.file + " (its topology, with the events as steps)");
  // A variant's own topology must take the events as well.
  for (const auto& [name, path] : s.variant_topologies)
    parse_profile_text(derive_topology(s, read_file(path), lab_name(s.name)),
                       s.file + " (variant " + name + "'s topology " + path + ")");
  // NAME@* sweeps the server (or the star's hub) over every node, in the profile's order;
  // NAME@NODE must name one of them.
  std::vector<std::string> expanded;
  for (const auto& name : s.strategies) {
    const auto [base, node] = split_placed(name);
    const bool known =
        std::any_of(t.nodes.begin(), t.nodes.end(), [&](const Node& n) { return n.name == node; });
    if (node == "*") {
      for (const auto& n : t.nodes) expanded.push_back(base + "@" + n.name);
    } else if (!node.empty() && !known) {
      throw ValidationError(
          {{s.file, 0, 0, "strategy " + name + ": the topology has no node '" + node + "'"}});
    } else {
      expanded.push_back(name);
    }
  }
  s.strategies = expanded;
  // A sweep (NAME@*) is several trains: side by side, one at most (parse_scenario's rule).
  if (s.concurrent && std::count_if(expanded.begin(), expanded.end(),
                                    [&](const std::string& n) { return !s.jobs.count(n); }) > 1)
    throw ValidationError({{s.file, 0, 0,
                            "concurrent: more than one built-in strategy once NAME@* is "
                            "swept; one `train` per lab at a time"}});
}

void print_scenario_summary(const Scenario& s, const ScenarioResult& r, std::ostream& out) {
  out << "\nscenario " << s.name << (r.interrupted ? " (interrupted)" : "") << ": results in "
      << r.out_dir << "\n";
  TextTable t({"STRATEGY", "S/ITERATION", "SAMPLES/S", "VS " + s.strategies.front(), "AUX",
               "FINAL LOSS", "TO TARGET S", "STATUS"});
  double base = 0;
  if (const auto it = r.strategies.find(s.strategies.front());
      it != r.strategies.end() && !it->second.failed)
    base = it->second.figures.at("samples_per_s");
  for (const auto& name : s.strategies) {
    const auto it = r.strategies.find(name);
    if (it == r.strategies.end()) {
      t.add({name, "", "", "", "", "", "", "not run"});
      continue;
    }
    const auto& o = it->second;
    if (o.failed) {
      t.add({name, "", "", "", "", "", "", "FAILED: " + o.failure});
      continue;
    }
    std::ostringstream a, b, c, d;
    a << std::fixed << std::setprecision(2) << o.figures.at("mean_iteration_s");
    b << std::fixed << std::setprecision(1) << o.figures.at("samples_per_s");
    if (base > 0) c << std::fixed << std::setprecision(2) << o.figures.at("samples_per_s") / base;
    d << std::fixed << std::setprecision(1) << 100 * o.figures.at("aux_share") << "%";
    std::ostringstream loss, to_target;
    if (o.figures.count("final_loss"))
      loss << std::fixed << std::setprecision(4) << o.figures.at("final_loss");
    if (o.figures.count("time_to_loss"))
      to_target << std::fixed << std::setprecision(1) << o.figures.at("time_to_loss");
    else if (o.figures.count("final_loss"))
      to_target << "not reached";
    t.add({name, a.str(), b.str(), c.str(), d.str(), loss.str(), to_target.str(), "ok"});
  }
  t.print(out);
  for (const auto& v : r.verdicts)
    out << (v.passed ? "PASS " : "FAIL ") << v.expectation << ": " << v.detail << "\n";
}

}  // namespace testbed
