// The kernel layer's one error (netns/kernel_error.h): a failed call keeps its errno and
// names itself; a failure without one reads as written, not with ": Success" appended.
#include "netns/kernel_error.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "netns/named_netns.h"
#include "netns/node_cgroup.h"

namespace testbed {
namespace {

TEST(KernelError, ACallsFailureKeepsItsErrnoAndItsName) {
  const KernelError e(EBUSY, "rmdir(/x)");
  EXPECT_EQ(e.code().value(), EBUSY);
  EXPECT_EQ(std::string(e.what()), "rmdir(/x): " + std::generic_category().message(EBUSY));
  const KernelError text("iptables-restore (rules in tb-x-a): line 3 failed");
  EXPECT_EQ(std::string(text.what()), "iptables-restore (rules in tb-x-a): line 3 failed");
  EXPECT_EQ(text.code().value(), 0);
}

TEST(KernelError, TheLayersCallsThrowIt) {
  errno = EPERM;
  try {
    throw_errno("setns(tb-x-a)");
  } catch (const KernelError& e) {
    EXPECT_EQ(e.code().value(), EPERM);
  }
  // A namespace that is not there, as a verb would meet it: no root needed to fail.
  EXPECT_THROW(open_netns("tb-kernel-error-test-none"), KernelError);
  // A control group that is not there is gone already; one that is no directory is refused.
  EXPECT_NO_THROW(remove_cgroup_dir("/nonexistent/tb-kernel-error-test"));
  EXPECT_THROW(remove_cgroup_dir("/proc/self/status"), KernelError);
}

}  // namespace
}  // namespace testbed
