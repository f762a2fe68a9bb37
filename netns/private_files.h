// Directories and files the testbed writes as root, made so that no other user of the
// machine can read them, change them, or turn the writes somewhere else (a link planted
// where a file is about to be written, a directory swapped after it was checked).
//
// - A lab's state (/run/testbed/LAB) lives in private directories: 0700, owned by root.
// - Results go to an OutputDir (`report --out`, `run --out`, `export --out`): created new
//   with 0700, or, when it exists already, refused unless it is a directory (not a link),
//   owned by root and writable by no one else. Once opened, every file is written through
//   the directory's descriptor, never through its path, so a rename of the path changes
//   nothing; each file is written whole to a fresh temporary and renamed into place.
// - A single file the user names (`regress --junit FILE`) is written the same way into its
//   directory, which must be root's alone, or sticky like /tmp (write_output_file).
#pragma once

#include <string>
#include <string_view>

#include "netns/named_netns.h"

namespace testbed {

// Creates `path` (not its parents) with mode 0700, or accepts it when it exists already as
// a directory owned by this process's user; its mode is then tightened to 0700. Throws
// std::runtime_error naming the path and why otherwise (a link, a file, another owner).
void make_private_dir(const std::string& path);

// Writes `path` whole: a fresh temporary in its directory (O_EXCL, O_NOFOLLOW), renamed into
// place, so a link planted at `path` is replaced, never followed. The directory must be
// owned by this user and writable by no one else, or sticky (as /tmp is: no one else can
// then remove, rename or replace this user's files there, and a rename over a file someone
// else owns fails). What stands at `path` already must be this user's: root passes the
// sticky rule, and would otherwise replace another user's file or link. Throws
// std::runtime_error naming the path and why otherwise.
void write_output_file(const std::string& path, std::string_view text);
// The same checks, without writing: for a command to refuse a path before it does its work.
void check_output_file(const std::string& path);
// A file the user names that is written as it goes (`capture --out`): its directory checked
// as above, what stands at its name removed (only when it is this user's own), then made new
// (O_EXCL, O_NOFOLLOW, 0600). Throws std::runtime_error naming the path and why otherwise; a link
// or file planted in between is refused, never followed.
FileDescriptor create_output_file(const std::string& path);

class OutputDir {
 public:
  // Creates `path` (and missing parents) with mode 0700, or opens it as described above.
  // Throws std::runtime_error naming the path and why it was refused.
  static OutputDir open(const std::string& path);

  const std::string& path() const { return path_; }
  int fd() const { return fd_.get(); }
  // The path for the user: path() + "/" + rel.
  std::string shown(const std::string& rel) const { return path_ + "/" + rel; }
  // The same file for another process (a child given a path to read): through this
  // process's descriptor of the directory, so it reaches what was checked.
  std::string for_child(const std::string& rel) const;

  // `rel` names a file below the directory: no "..", not absolute. Writes it whole.
  void write(const std::string& rel, std::string_view text) const;
  // Creates `rel` new (O_EXCL, O_NOFOLLOW, 0600) and writes it: throws when anything, a
  // file or a link, stands there already. For secrets, which are never written over.
  void create(const std::string& rel, std::string_view text) const;
  // True when the directory holds nothing (read through its descriptor).
  bool empty() const;
  // Appends to `rel` (created 0600 when missing); never follows a link.
  void append(const std::string& rel, std::string_view text) const;
  // A subdirectory, 0700, or the one there (not a link).
  void make_dir(const std::string& rel) const;
  // The subdirectory `rel` (made as make_dir does), as an output directory of its own.
  OutputDir subdir(const std::string& rel) const;

 private:
  OutputDir(std::string path, FileDescriptor fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  std::string path_;
  FileDescriptor fd_;
};

}  // namespace testbed
