// A file the user names for root to write (`regress --junit FILE`): written whole, through a
// temporary renamed into place, only into a directory no one else can change, or a sticky
// one (/tmp). Needs no root: the checks are against this process's own user.
#include "netns/private_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace testbed {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class OutputFile : public testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("tbt-outfile-" + std::to_string(getpid()));
    fs::remove_all(base_);
    fs::create_directory(base_);
    chmod(base_.c_str(), 0700);
  }
  void TearDown() override { fs::remove_all(base_); }
  fs::path base_;
};

TEST_F(OutputFile, WritesWholeAndLeavesNoTemporary) {
  write_output_file((base_ / "junit.xml").string(), "<testsuites/>\n");
  EXPECT_EQ(read(base_ / "junit.xml"), "<testsuites/>\n");
  write_output_file((base_ / "junit.xml").string(), "again\n");
  EXPECT_EQ(read(base_ / "junit.xml"), "again\n");
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(base_)) ++files;
  EXPECT_EQ(files, 1u);
}

TEST_F(OutputFile, ALinkPlantedAtThePathIsReplacedNotFollowed) {
  const fs::path victim = base_ / "victim";
  std::ofstream(victim) << "keep\n";
  fs::create_symlink(victim, base_ / "report.json");
  write_output_file((base_ / "report.json").string(), "ours\n");
  EXPECT_EQ(read(victim), "keep\n") << "the write went through the link";
  EXPECT_FALSE(fs::is_symlink(base_ / "report.json"));
  EXPECT_EQ(read(base_ / "report.json"), "ours\n");
}

TEST_F(OutputFile, ADirectoryOthersCanWriteIsRefusedUnlessSticky) {
  const fs::path open = base_ / "open";
  fs::create_directory(open);
  chmod(open.c_str(), 0777);
  try {
    write_output_file((open / "x.json").string(), "x");
    FAIL() << "wrote into a directory anyone can change";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("writable by group or others"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(check_output_file((open / "x.json").string()), std::runtime_error);
  EXPECT_FALSE(fs::exists(open / "x.json"));
  chmod(open.c_str(), 01777);  // as /tmp
  EXPECT_NO_THROW(write_output_file((open / "x.json").string(), "x"));
  EXPECT_EQ(read(open / "x.json"), "x");
}

TEST_F(OutputFile, APathNamingNoFileIsRefused) {
  EXPECT_THROW(write_output_file(base_.string() + "/", "x"), std::runtime_error);
  EXPECT_THROW(check_output_file((base_ / "missing-dir" / "x").string()), std::runtime_error);
}

}  // namespace
}  // namespace testbed
