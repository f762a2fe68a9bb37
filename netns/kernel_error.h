// The one error the kernel layer throws for what the kernel (or a tool that speaks to it:
// iptables-restore, libpcap, a cgroup file, exec) refuses or fails: a KernelError, with
// the errno when a system call failed (code(); EBUSY is how a cgroup still emptying says
// so). It is a std::system_error, so a caller that only wants the errno catches that.
// What the layer parses from other processes' text (a delay line's statistics) is refused
// as malformed input, std::invalid_argument, as every other reader of untrusted text does.
#pragma once

#include <string>
#include <system_error>

namespace testbed {

class KernelError : public std::system_error {
 public:
  // A failure without an errno: a netlink error's text, a tool's output.
  explicit KernelError(const std::string& what)
      : std::system_error(std::error_code(), what), what_(what) {}
  // A failed system call: "setns(tb-lab-a): Operation not permitted".
  KernelError(int errno_value, const std::string& call)
      : std::system_error(errno_value, std::generic_category(), call),
        what_(std::system_error::what()) {}
  // Without an errno, system_error's own text would end in ": Success".
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

// Throws KernelError with errno, naming the call.
[[noreturn]] void throw_errno(const std::string& call);

}  // namespace testbed
