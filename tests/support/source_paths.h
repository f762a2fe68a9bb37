// Where the tests find the source tree's files and the built CLI.
//
// Functions over one generated file (tests/CMakeLists.txt writes source_paths.cpp into the
// build directory) rather than definitions on every test's command line: a path there
// differs with each clone, so CI's fresh clone missed the compiler cache for every test
// file. The names keep the definitions' old spelling; each is a std::string now, so a path
// is built with `+`, not by putting literals side by side.
#pragma once

#include <string>

namespace tb::test {

// The repository's top (PROJECT_SOURCE_DIR) and the built `testbed` program.
const std::string& source_dir();
const std::string& testbed_program();

}  // namespace tb::test

#define TESTBED_PROFILES_DIR (::tb::test::source_dir() + "/profiles")
#define TESTBED_DASHBOARDS_DIR (::tb::test::source_dir() + "/dashboards")
#define TESTBED_EXAMPLES_DIR (::tb::test::source_dir() + "/examples")
#define TESTBED_BENCH_DIR (::tb::test::source_dir() + "/bench")
#define TESTBED_TEST_DATA (::tb::test::source_dir() + "/tests/data")
#define TESTBED_GOLDEN_DIR (::tb::test::source_dir() + "/tests/golden")
#define TESTBED_TEST_TOOLS (::tb::test::source_dir() + "/tests/integration/tools")
#define TESTBED_BIN (::tb::test::testbed_program())
