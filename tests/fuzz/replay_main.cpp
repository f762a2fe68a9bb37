// The fuzz targets' inputs replayed in the main build, as a test: every input that once
// failed (tests/fuzz/regressions/TARGET/), every corpus input and every bundled file a
// target takes as a seed, run once through the target's entry point. A crash, a trap or an
// uncaught exception fails the test. No libFuzzer and no sanitizers here: the clang build
// that has them (scripts/fuzz.sh) takes eight minutes of CI's 45 to compile, so it runs
// on demand and in the suite, and CI keeps the replay, which takes a second.
//
// usage: tb_fuzz_replay TARGET PATH...   (a PATH that is a directory: every file under it)
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

// Each target's LLVMFuzzerTestOneInput, renamed at compile time (tests/CMakeLists.txt).
#define TB_FUZZ_TARGETS(X) \
  X(fuzz_profile)          \
  X(fuzz_scenario)         \
  X(fuzz_expectation)      \
  X(fuzz_traces)           \
  X(fuzz_wire)             \
  X(fuzz_sync_policy)      \
  X(fuzz_agent_reply)      \
  X(fuzz_proc_net_tcp)     \
  X(fuzz_host_placement)   \
  X(fuzz_agent_setup)      \
  X(fuzz_host_launch)

#define TB_DECLARE(name) extern "C" int tb_##name(const uint8_t* data, size_t size);
TB_FUZZ_TARGETS(TB_DECLARE)
#undef TB_DECLARE

namespace {

using Entry = int (*)(const uint8_t*, size_t);

std::vector<std::string> files_under(const std::filesystem::path& p) {
  std::vector<std::string> out;
  if (std::filesystem::is_directory(p)) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(p))
      if (e.is_regular_file()) out.push_back(e.path().string());
  } else if (std::filesystem::exists(p)) {
    out.push_back(p.string());
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
#define TB_ENTRY(name) {#name, &tb_##name},
  const std::map<std::string, Entry> targets = {TB_FUZZ_TARGETS(TB_ENTRY)};
#undef TB_ENTRY
  if (argc < 3 || !targets.count(argv[1])) {
    std::fprintf(stderr, "usage: tb_fuzz_replay TARGET PATH...; targets:");
    for (const auto& [name, entry] : targets) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  const Entry entry = targets.at(argv[1]);
  size_t replayed = 0;
  for (int i = 2; i < argc; ++i) {
    for (const std::string& file : files_under(argv[i])) {
      std::ifstream in(file, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
      // Printed first, so that a crash's log names the input that caused it.
      std::printf("%s\n", file.c_str());
      std::fflush(stdout);
      entry(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  std::printf("%s: %zu inputs replayed\n", argv[1], replayed);
  // No inputs at all means a wrong path: the test would prove nothing.
  return replayed > 0 ? 0 : 1;
}
