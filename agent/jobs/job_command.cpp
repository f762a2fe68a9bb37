#include "job_command.h"

namespace testbed {

JobConfig job_config(const nlohmann::json& job, int workers) {
  JobConfig c;
  c.name = job.at("name").get<std::string>();
  c.seed = job.at("seed").get<uint64_t>();
  c.workers = workers;
  c.scale = job.at("scale").get<double>();
  c.parameters = job.value("parameters", size_t{0});  // dense jobs only: a named model's size
  c.t_in_passes = job.value("t", "clock") == "pass";  // absent: clocks, the jobs' own reading
  return c;
}

}  // namespace testbed
