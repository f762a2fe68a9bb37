#include "netns/private_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <random>
#include <stdexcept>

namespace testbed {
namespace {

std::runtime_error refused(const std::string& path, const std::string& why) {
  return std::runtime_error("refusing " + path + ": " + why);
}

// Why the directory at `st` may not hold root's files, or "" when it may.
std::string unsafe_dir(const struct stat& st) {
  if (S_ISLNK(st.st_mode)) return "it is a symbolic link";
  if (!S_ISDIR(st.st_mode)) return "it is not a directory";
  if (st.st_uid != geteuid())
    return "it is owned by uid " + std::to_string(st.st_uid) + ", not by uid " +
           std::to_string(geteuid()) + " (this user)";
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%03o", st.st_mode & 0777);
    return std::string("it is writable by group or others (mode ") + mode + ")";
  }
  return "";
}

void check_relative(const std::string& rel) {
  if (rel.empty() || rel.front() == '/' || rel.find("..") != std::string::npos)
    throw std::invalid_argument("not a name below an output directory: '" + rel + "'");
}

// A name no file in the directory has: the temporary a file is written to.
std::string temp_name(const std::string& rel) {
  static std::mt19937_64 rng{std::random_device{}()};
  return rel + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(rng() % 1000000000);
}

}  // namespace

namespace {

// Makes `path` (mode 0700) unless it exists, then opens it without following a link and
// reads its status through the descriptor: what is checked is what is then used.
FileDescriptor open_dir(const std::string& path, struct stat& st) {
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) throw_errno("mkdir(" + path + ")");
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ELOOP || errno == ENOTDIR)
      throw refused(path, "it is not a directory (a link or a file stands there)");
    throw_errno("open(" + path + ")");
  }
  if (fstat(fd.get(), &st) != 0) throw_errno("fstat(" + path + ")");
  return fd;
}

void write_all(int fd, std::string_view text, const std::string& what) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) throw_errno("write(" + what + ")");
    done += static_cast<size_t>(n);
  }
}

// Writes `name` in the directory `dir` whole, through a temporary renamed into place;
// `shown` is the directory as the user named it, for messages.
void write_whole(int dir, const std::string& shown, const std::string& name,
                 std::string_view text) {
  const std::string tmp = temp_name(name);
  FileDescriptor out(
      openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (out.get() < 0) throw_errno("open(" + shown + "/" + tmp + ")");
  try {
    write_all(out.get(), text, shown + "/" + tmp);
  } catch (...) {
    unlinkat(dir, tmp.c_str(), 0);
    throw;
  }
  if (renameat(dir, tmp.c_str(), dir, name.c_str()) != 0) {
    const int saved = errno;
    unlinkat(dir, tmp.c_str(), 0);
    errno = saved;
    throw_errno("rename(" + shown + "/" + tmp + " -> " + name + ")");
  }
}

}  // namespace

void make_private_dir(const std::string& path) {
  struct stat st {};
  const FileDescriptor fd = open_dir(path, st);
  // Ours but too open (made by an older version, or by hand): tightened, not refused.
  st.st_mode &= ~(S_IWGRP | S_IWOTH);
  if (const std::string why = unsafe_dir(st); !why.empty()) throw refused(path, why);
  if ((st.st_mode & 0777) != 0700 && fchmod(fd.get(), 0700) != 0)
    throw_errno("fchmod(" + path + ", 0700)");
}

namespace {

// The directory of a file the user named, opened and checked; `name` gets the file's name.
FileDescriptor output_file_dir(const std::string& path, std::string& name) {
  const size_t slash = path.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") throw refused(path, "it names no file");
  FileDescriptor fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) throw_errno("open(" + dir + ")");
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) throw_errno("fstat(" + dir + ")");
  // A sticky directory (/tmp) keeps others' hands off this user's files in it; any other
  // must be this user's alone.
  const bool sticky_of_root =
      (st.st_mode & S_ISVTX) != 0 && (st.st_uid == 0 || st.st_uid == geteuid());
  if (const std::string why = unsafe_dir(st); !why.empty() && !sticky_of_root)
    throw refused(path, "its directory " + dir + ": " + why);
  return fd;
}

}  // namespace

namespace {

// What stands at `name` in `dir`, if anything, must be this user's: root passes a sticky
// directory's rule (CAP_FOWNER), so without this it would replace or remove another
// user's file or link there. Returns whether something stands there.
bool check_existing(int dir, const std::string& name, const std::string& path) {
  struct stat st {};
  if (fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return false;
  if (S_ISDIR(st.st_mode)) throw refused(path, "it is a directory");
  if (st.st_uid != geteuid())
    throw refused(path, "it is owned by uid " + std::to_string(st.st_uid) +
                            ", not by this user; it is not replaced");
  return true;
}

}  // namespace

void check_output_file(const std::string& path) {
  std::string name;
  const FileDescriptor dir = output_file_dir(path, name);
  check_existing(dir.get(), name, path);
}

FileDescriptor create_output_file(const std::string& path) {
  std::string name;
  const FileDescriptor dir = output_file_dir(path, name);
  if (check_existing(dir.get(), name, path) && unlinkat(dir.get(), name.c_str(), 0) != 0)
    throw_errno("unlink(" + path + ")");
  FileDescriptor fd(
      openat(dir.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (fd.get() < 0) {
    if (errno == EEXIST) throw refused(path, "another process put a file there meanwhile");
    throw_errno("open(" + path + ")");
  }
  return fd;
}

void write_output_file(const std::string& path, std::string_view text) {
  std::string name;
  const FileDescriptor dir = output_file_dir(path, name);
  check_existing(dir.get(), name, path);
  const size_t slash = path.rfind('/');
  write_whole(dir.get(), slash == std::string::npos ? "." : path.substr(0, slash), name, text);
}

OutputDir OutputDir::open(const std::string& path) {
  if (path.empty()) throw std::invalid_argument("an output directory needs a path");
  // Missing parents are made too, each 0700 (the umask is 077 here, and mkdir is told so).
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string parent = path.substr(0, slash);
    if (mkdir(parent.c_str(), 0700) != 0 && errno != EEXIST) throw_errno("mkdir(" + parent + ")");
  }
  struct stat st {};
  FileDescriptor fd = open_dir(path, st);
  if (const std::string why = unsafe_dir(st); !why.empty())
    throw refused(path, why + "; give a new directory, or one only root can write");
  return OutputDir(path, std::move(fd));
}

std::string OutputDir::for_child(const std::string& rel) const {
  check_relative(rel);
  return "/proc/" + std::to_string(getpid()) + "/fd/" + std::to_string(fd_.get()) + "/" + rel;
}

void OutputDir::write(const std::string& rel, std::string_view text) const {
  check_relative(rel);
  write_whole(fd_.get(), path_, rel, text);
}

void OutputDir::create(const std::string& rel, std::string_view text) const {
  check_relative(rel);
  FileDescriptor out(
      openat(fd_.get(), rel.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (out.get() < 0) {
    if (errno == EEXIST) throw refused(shown(rel), "something stands there already");
    throw_errno("open(" + shown(rel) + ")");
  }
  try {
    write_all(out.get(), text, shown(rel));
  } catch (...) {
    unlinkat(fd_.get(), rel.c_str(), 0);
    throw;
  }
}

bool OutputDir::empty() const {
  // A descriptor of its own: readdir moves the one it reads, and fdopendir takes it over.
  const int fd = openat(fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw_errno("open(" + path_ + ")");
  DIR* d = fdopendir(fd);
  if (!d) {
    close(fd);
    throw_errno("fdopendir(" + path_ + ")");
  }
  bool none = true;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") {
      none = false;
      break;
    }
  }
  closedir(d);
  return none;
}

void OutputDir::append(const std::string& rel, std::string_view text) const {
  check_relative(rel);
  FileDescriptor out(
      openat(fd_.get(), rel.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (out.get() < 0) throw_errno("open(" + shown(rel) + ")");
  write_all(out.get(), text, shown(rel));
}

void OutputDir::make_dir(const std::string& rel) const {
  check_relative(rel);
  if (mkdirat(fd_.get(), rel.c_str(), 0700) != 0 && errno != EEXIST)
    throw_errno("mkdir(" + shown(rel) + ")");
  struct stat st {};
  if (fstatat(fd_.get(), rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    throw_errno("stat(" + shown(rel) + ")");
  if (!S_ISDIR(st.st_mode)) throw refused(shown(rel), "it is not a directory");
}

OutputDir OutputDir::subdir(const std::string& rel) const {
  make_dir(rel);
  FileDescriptor fd(
      openat(fd_.get(), rel.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) throw_errno("open(" + shown(rel) + ")");
  return OutputDir(shown(rel), std::move(fd));
}

}  // namespace testbed
