#include "netns/proc_sys.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "netns/kernel_error.h"

namespace testbed {
namespace {

FileDescriptor new_proc_instance() {
  FileDescriptor context(fsopen("proc", FSOPEN_CLOEXEC));
  if (context.get() < 0) return FileDescriptor(-1);
  if (fsconfig(context.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0)
    return FileDescriptor(-1);
  // Read and written as root only; never attached to the tree, so nothing else sees it.
  return FileDescriptor(fsmount(context.get(), FSMOUNT_CLOEXEC,
                                MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC));
}

}  // namespace

ProcSys::ProcSys() : root_(new_proc_instance()) {
  if (root_.get() < 0) root_ = FileDescriptor(open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (root_.get() < 0) throw KernelError(std::string("open(/proc): ") + std::strerror(errno));
}

void ProcSys::write(const std::string& key, const std::string& value,
                    const std::string& where) const {
  const std::string path = "sys/" + key;
  FileDescriptor out(openat(root_.get(), path.c_str(), O_WRONLY | O_CLOEXEC));
  const std::string line = value + "\n";
  if (out.get() < 0 ||
      ::write(out.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    throw KernelError("write(/proc/" + path + " = " + value + " in " + where +
                      "): " + std::strerror(errno));
}

std::string ProcSys::read(const std::string& key, const std::string& where) const {
  const std::string path = "sys/" + key;
  FileDescriptor in(openat(root_.get(), path.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0)
    throw KernelError("read(/proc/" + path + " in " + where + "): " + std::strerror(errno));
  std::string text;
  char buf[512];
  for (ssize_t n; (n = ::read(in.get(), buf, sizeof buf)) != 0;) {
    if (n < 0)
      throw KernelError("read(/proc/" + path + " in " + where + "): " + std::strerror(errno));
    text.append(buf, static_cast<size_t>(n));
  }
  // One line, as the files hold it, without its newline.
  if (const auto nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  return text;
}

bool ProcSys::exists(const std::string& key) const {
  return faccessat(root_.get(), ("sys/" + key).c_str(), F_OK, 0) == 0;
}

}  // namespace testbed
