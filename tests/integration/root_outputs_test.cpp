// What another local user wrote never runs as root, and root never writes where another
// user could redirect it: each verb that reads a user's files or writes where the user says
// (`report` of a results directory, `keys --out`, `import --out`, a host's key file read
// back), given inputs and folders owned by nobody, links planted in a sticky directory, and
// hostile run labels. Each is refused, or done without following what was planted, and
// nothing outside what was asked changes. No lab is needed (capture's is in
// local_users_test.cpp).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "agent/transport/curve_keys.h"
#include "testbed_cli.h"
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

namespace fs = std::filesystem;

constexpr uid_t kNobody = 65534;

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A scratch directory of root's, removed whatever happens.
struct Scratch {
  fs::path path;
  explicit Scratch(const std::string& name)
      : path(fs::temp_directory_path() / (name + "-" + std::to_string(getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
    chmod(path.c_str(), 0755);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void give_to_nobody(const fs::path& p) {
  ASSERT_EQ(lchown(p.c_str(), kNobody, kNobody), 0) << p;
}

// A root file that a planted link points at: it must be the same afterwards.
fs::path root_secret(const Scratch& s) {
  const fs::path secret = s.path / "root-owned";
  std::ofstream(secret) << "root's own\n";
  chmod(secret.c_str(), 0600);
  return secret;
}

TEST(RootOutputs, ReportOfAnotherUsersResultsRunsNoneOfItAndStillRenders) {
  REQUIRE_ROOT();
  Scratch s("tbt-hostile-report");
  const fs::path results = s.path / "results", marker = s.path / "owned";
  fs::create_directories(results / "runs");
  // The exploit measured before: a newline in a label ended gnuplot's quoted string, and
  // the next line ran as gnuplot's own command.
  const std::string hostile = "bsp\nsystem(\"id > " + marker.string() + "\")\n#";
  nlohmann::json run = {{"strategy", hostile},
                        {"consistency", "x'\nsystem('id > " + marker.string() + "')\n'"},
                        {"iteration_s", {1.0, 2.0}},
                        {"mean_iteration_s", 1.5},
                        {"loss_curve", {{0.5, 1.0}, {1.0, 0.5}}}};
  std::ofstream(results / "runs" / "a.json") << run.dump();
  std::ofstream(results / "runs" / "b.json") << R"({"strategy": "ps", "iteration_s": "x"})";
  std::ofstream(results / "link_samples.csv")
      << "1,0,a,b,8000000,0\n2,0,a,b,8000000,1000\n"
      << "1,0,a'\\nsystem('id'),b,8000000,0\n2,0,a'\\nsystem('id'),b,8000000,1000\n";
  for (const auto& e : fs::recursive_directory_iterator(results)) give_to_nobody(e.path());
  give_to_nobody(results);
  const fs::path out = s.path / "out";
  const Result r = run_testbed({"report", results.string(), "--out", out.string()});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(fs::exists(marker)) << "gnuplot ran a command from another user's file";
  for (const char* png : {"iteration_time.png", "strategies.png", "loss.png", "links.png"})
    EXPECT_TRUE(fs::exists(out / png)) << png << "\n" << r.output;
  // The malformed run is skipped and named; the hostile label is named and replaced.
  EXPECT_NE(r.output.find("b.json: iteration_s is not a list of numbers"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("a.json: strategy is not a plain label"), std::string::npos) << r.output;
  EXPECT_EQ(read_all(out / "report.gp").find("system"), std::string::npos);
}

TEST(RootOutputs, KeysGoOnlyIntoANewOrRootsOwnEmptyDirectory) {
  REQUIRE_ROOT();
  Scratch s("tbt-keys-out");
  const std::string placement =
      tb::test::source_dir() + "/tests/golden/k8s/internet2-placement.yaml";
  const fs::path secret = root_secret(s);
  // nobody's empty directory, with a link planted where placement.yaml would go.
  const fs::path theirs = s.path / "theirs";
  fs::create_directory(theirs);
  give_to_nobody(theirs);
  Result r = run_testbed({"keys", placement, "--out", theirs.string()});
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("owned by uid 65534"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(theirs));
  fs::create_symlink(secret, theirs / "placement.yaml");
  r = run_testbed({"keys", placement, "--out", theirs.string()});
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_EQ(read_all(secret), "root's own\n") << "a planted link was followed";
  // Root's, but anyone may write it (they could swap the key files).
  const fs::path open_dir = s.path / "open";
  fs::create_directory(open_dir);
  chmod(open_dir.c_str(), 0777);
  r = run_testbed({"keys", placement, "--out", open_dir.string()});
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_TRUE(fs::is_empty(open_dir));
  // Root's alone but not empty: refused, what is there kept.
  const fs::path used = s.path / "used";
  fs::create_directory(used);
  chmod(used.c_str(), 0700);
  fs::create_symlink(secret, used / "placement.yaml");
  r = run_testbed({"keys", placement, "--out", used.string()});
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("not empty"), std::string::npos) << r.output;
  EXPECT_EQ(read_all(secret), "root's own\n");
  // The directory itself a link: refused.
  const fs::path link = s.path / "link", target = s.path / "target";
  fs::create_directory(target);
  chmod(target.c_str(), 0700);
  fs::create_directory_symlink(target, link);
  r = run_testbed({"keys", placement, "--out", link.string()});
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_TRUE(fs::is_empty(target));
  // A new one: made 0700, every file 0600 and root's, and each key reads back.
  const fs::path fresh = s.path / "fresh";
  r = run_testbed({"keys", placement, "--out", fresh.string()});
  ASSERT_EQ(r.status, 0) << r.output;
  struct stat st {};
  ASSERT_EQ(stat(fresh.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  size_t keys = 0;
  for (const auto& e : fs::directory_iterator(fresh)) {
    ASSERT_EQ(lstat(e.path().c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode)) << e.path();
    EXPECT_EQ(st.st_mode & 0777, 0600u) << e.path();
    EXPECT_EQ(st.st_uid, 0u) << e.path();
    if (e.path().extension() == ".key") {
      EXPECT_NO_THROW(read_curve_key_file(e.path()));
      ++keys;
    }
  }
  EXPECT_EQ(keys, 9u);
}

TEST(RootOutputs, AKeyFileAnotherUserOwnsIsNotRead) {
  REQUIRE_ROOT();
  Scratch s("tbt-key-owner");
  const fs::path key = s.path / "h.key";
  write_curve_key_file(key, make_curve_key_pair(), "host h");
  EXPECT_NO_THROW(read_curve_key_file(key));
  // 0600 still, but nobody's: nobody could have put their own key there.
  give_to_nobody(key);
  try {
    read_curve_key_file(key);
    FAIL() << "a key file owned by another user was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("owned by uid 65534"), std::string::npos) << e.what();
  }
  // A link to a good key: not followed.
  const fs::path good = s.path / "good.key", link = s.path / "link.key";
  write_curve_key_file(good, make_curve_key_pair(), "host g");
  fs::create_symlink(good, link);
  EXPECT_THROW(read_curve_key_file(link), std::runtime_error);
}

TEST(RootOutputs, ImportOutNeverFollowsALinkPlantedInASharedDirectory) {
  REQUIRE_ROOT();
  Scratch s("tbt-import-out");
  const fs::path secret = root_secret(s);
  // A world-writable sticky directory, as /tmp is, where nobody planted a link.
  const fs::path shared = s.path / "shared";
  fs::create_directory(shared);
  chmod(shared.c_str(), 01777);
  const fs::path planted = shared / "abilene.yaml";
  fs::create_symlink(secret, planted);
  give_to_nobody(planted);
  const std::string graph = tb::test::source_dir() + "/tests/data/zoo/Abilene.graphml";
  Result r = run_testbed({"import", "graphml", graph, "--out", planted.string()});
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_EQ(read_all(secret), "root's own\n") << "root wrote through nobody's link";
  EXPECT_TRUE(fs::is_symlink(planted));
  // A directory nobody owns: refused before anything is written.
  const fs::path theirs = s.path / "theirs";
  fs::create_directory(theirs);
  give_to_nobody(theirs);
  r = run_testbed({"import", "graphml", graph, "--out", (theirs / "a.yaml").string()});
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_TRUE(fs::is_empty(theirs));
  // Where no one else can act: written, 0600.
  r = run_testbed({"import", "graphml", graph, "--out", (s.path / "abilene.yaml").string()});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(read_all(s.path / "abilene.yaml").find("links:"), std::string::npos);
}

}  // namespace
}  // namespace testbed::it
