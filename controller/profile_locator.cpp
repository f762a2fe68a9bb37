#include "profile_locator.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace testbed {

namespace fs = std::filesystem;

std::vector<std::string> bundled_profile_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("TESTBED_PROFILES"); env && *env) dirs.push_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back((exe.parent_path().parent_path() / "share/testbed/profiles").string());
#ifdef TESTBED_SOURCE_PROFILES
  dirs.push_back(TESTBED_SOURCE_PROFILES);  // a build tree runs from the sources
#endif
  return dirs;
}

std::string bundled_dashboards_dir() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("TESTBED_DASHBOARDS"); env && *env) dirs.push_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back((exe.parent_path().parent_path() / "share/testbed/dashboards").string());
#ifdef TESTBED_SOURCE_DASHBOARDS
  dirs.push_back(TESTBED_SOURCE_DASHBOARDS);
#endif
  for (const auto& d : dirs) {
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
