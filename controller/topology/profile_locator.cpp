#include "controller/topology/profile_locator.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace testbed {

namespace fs = std::filesystem;

namespace {

// Where bundled files of one kind live: an environment override, the installation
// (BIN/../share/testbed/KIND), and the source tree a build runs from.
std::vector<std::string> bundled_dirs(const char* env_var, const std::string& kind,
                                      const char* source_dir) {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv(env_var); env && *env) dirs.push_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back((exe.parent_path().parent_path() / "share/testbed" / kind).string());
  if (source_dir) dirs.push_back(source_dir);
  return dirs;
}

#ifdef TESTBED_SOURCE_PROFILES
constexpr const char* kSourceProfiles = TESTBED_SOURCE_PROFILES;
#else
constexpr const char* kSourceProfiles = nullptr;
#endif
#ifdef TESTBED_SOURCE_DASHBOARDS
constexpr const char* kSourceDashboards = TESTBED_SOURCE_DASHBOARDS;
#else
constexpr const char* kSourceDashboards = nullptr;
#endif

}  // namespace

std::vector<std::string> bundled_profile_dirs() {
  return bundled_dirs("TESTBED_PROFILES", "profiles", kSourceProfiles);
}

std::string bundled_dashboards_dir() {
  for (const auto& d : bundled_dirs("TESTBED_DASHBOARDS", "dashboards", kSourceDashboards)) {
    if (fs::is_regular_file(fs::path(d) / "overview.json")) return d;
  }
  return "";
}

std::string locate_profile(const std::string& name) {
  if (fs::is_regular_file(name)) return fs::absolute(name).lexically_normal().string();
  std::string looked = "'" + name + "' is not a file";
  if (name.find('/') == std::string::npos) {
    for (const auto& dir : bundled_profile_dirs()) {
      for (const auto& candidate : {fs::path(dir) / name, fs::path(dir) / (name + ".yaml")}) {
        if (fs::is_regular_file(candidate)) return candidate.string();
      }
      looked += ", nor in " + dir;
    }
  }
  throw std::runtime_error(looked);
}

}  // namespace testbed
