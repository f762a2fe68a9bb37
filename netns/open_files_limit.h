// This process's limit on open files, raised as far as a large lab needs and given back to
// the processes it starts.
//
// The controller holds two descriptors per namespace it works in (the namespace and a
// netlink socket bound to it), and the exporter as many: a 10,000-node lab needs 20,000
// and more, where a Debian user's soft limit is 1024 (and this project's machines' 20,000,
// hard). Raising the soft limit to the hard one is what the kernel's limits are for (the
// soft one exists so that old programs which loop over every descriptor up to it, or use
// select(), stay fast); programs that can use more raise it themselves and restore it for
// their children (systemd's advice, systemd.exec(5) LimitNOFILE=). As root the hard limit
// is raised too, up to the kernel's fs.nr_open; that changes nothing beyond this process.
#pragma once

#include <cstddef>

namespace testbed {

// Makes sure `wanted` descriptors can be open at once: the soft limit raised towards the
// hard one (and the hard one, as root, towards fs.nr_open). Does nothing when the limit
// is already as large. Never lowers it; best effort (the open that follows reports a
// failure as it would have anyway).
void ensure_open_files_limit(size_t wanted);

// In a child between fork and exec: the limits this process started with, so that a
// node's program sees the host's usual limit. Async-signal-safe (one setrlimit).
void restore_open_files_limit_in_child();

}  // namespace testbed
