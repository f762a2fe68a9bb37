#include "agent/transport/private_ipc.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace testbed {

void bind_private_ipc(zmq::socket_t& socket, const std::string& path) {
  // Set before bind: the filter applies to connections accepted from then on.
  const int uid = static_cast<int>(geteuid());
  if (zmq_setsockopt(socket.handle(), ZMQ_IPC_FILTER_UID, &uid, sizeof uid) != 0)
    throw std::system_error(zmq_errno(), std::generic_category(),
                            "zmq_setsockopt(ZMQ_IPC_FILTER_UID) for " + path);
  socket.bind("ipc://" + path);
  if (chmod(path.c_str(), 0600) != 0)
    throw std::system_error(errno, std::generic_category(), "chmod(" + path + ", 0600)");
}

}  // namespace testbed
