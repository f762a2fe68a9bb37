// The agent's own checks of a setup (agent/runtime/setup_guard.h): endpoints only tcp:// on
// an IPv4 address, paths only inside the lab's directory, model sizes bounded. Each refusal
// names the field.
#include "agent/runtime/setup_guard.h"

#include <gtest/gtest.h>

#include "agent/contracts/message_fields.h"

namespace testbed {
namespace {

nlohmann::json setup() {
  return {{"cmd", "setup"},
          {"endpoints", {"tcp://198.18.0.1:7100", "tcp://198.18.0.5:7100"}},
          {"store", {{"dir", "/run/testbed/lab/store"}}},
          {"checkpoint", {{"path", "/run/testbed/lab/store/checkpoint.bin"}}},
          {"model_elements", 1000}};
}

std::string refusal(const nlohmann::json& cmd, int self = 0,
                    const std::string& lab = "/run/testbed/lab") {
  try {
    guard_setup(cmd, self, lab);
  } catch (const ContractError& e) {
    return e.what();
  }
  return "";
}

TEST(SetupGuard, TheControllersSetupPasses) {
  EXPECT_EQ(refusal(setup()), "");
  EXPECT_EQ(refusal(setup(), 1, "/run/testbed/lab/"), "");
  EXPECT_TRUE(valid_van_endpoint("tcp://127.0.0.1:*"));
}

TEST(SetupGuard, EndpointsAreTcpOnAnAddressAndNeverAPath) {
  for (const std::string e :
       {"ipc:///etc/passwd", "tcp://localhost:7100", "tcp://198.18.0.1", "tcp://198.18.0.1:0",
        "tcp://198.18.0.1:70000", "inproc://x", "tcp://198.18.0.1:7100 "}) {
    auto cmd = setup();
    cmd["endpoints"][1] = e;
    EXPECT_NE(refusal(cmd).find("setup.endpoints[1]"), std::string::npos) << e;
  }
  EXPECT_NE(refusal(setup(), 2).find("no endpoint for this node"), std::string::npos);
  auto many = setup();
  many["endpoints"] = std::vector<std::string>(kMaxSetupNodes + 1, "tcp://198.18.0.1:1");
  EXPECT_NE(refusal(many).find("setup.endpoints"), std::string::npos);
}

TEST(SetupGuard, PathsStayInsideTheLabsDirectory) {
  for (const std::string dir : {"/", "/etc", "/run/testbed/lab/../other", "/run/testbed/labx",
                                "store", "/run/testbed/lab/store/../../x"}) {
    auto cmd = setup();
    cmd["store"]["dir"] = dir;
    EXPECT_NE(refusal(cmd).find("setup.store.dir"), std::string::npos) << dir;
  }
  auto cmd = setup();
  cmd["checkpoint"]["path"] = "/root/.ssh/authorized_keys";
  EXPECT_NE(refusal(cmd).find("setup.checkpoint.path"), std::string::npos);
  // An agent started by hand (no lab directory) does not confine.
  EXPECT_EQ(refusal(cmd, 0, ""), "");
}

TEST(SetupGuard, ModelSizesAreBounded) {
  auto cmd = setup();
  cmd["model_elements"] = kMaxModelElements + 1;
  EXPECT_NE(refusal(cmd).find("setup.model_elements"), std::string::npos);
  cmd = setup();
  cmd["job"] = {{"parameters", -5}};
  EXPECT_NE(refusal(cmd).find("setup.job.parameters"), std::string::npos);
}

}  // namespace
}  // namespace testbed
