#include "wakeup.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <utility>

#include "tern/runtime/log.hpp"

namespace tern::engine::transport::shm {

WakeupAddress wakeup_address(const std::string& segment_name) noexcept {
  WakeupAddress out;
  out.address.sun_family = AF_UNIX;
  // Abstract namespace: sun_path starts with a zero byte; the name is the
  // segment's without its slash (segment names are unique on the host).
  static constexpr char kPrefix[] = "tern-wakeup";
  const char* name = segment_name.c_str() + (segment_name.empty() ? 0 : 1);
  const int written = std::snprintf(out.address.sun_path + 1, sizeof(out.address.sun_path) - 1, "%s%s", kPrefix,
                                    name);
  std::size_t length = written < 0 ? 0 : static_cast<std::size_t>(written);
  if (length > sizeof(out.address.sun_path) - 2) length = sizeof(out.address.sun_path) - 2;
  out.length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + length);
  return out;
}

WakeupSocket::~WakeupSocket() {
  if (fd_ >= 0) close(fd_);
}

WakeupSocket::WakeupSocket(WakeupSocket&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

WakeupSocket& WakeupSocket::operator=(WakeupSocket&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

Status WakeupSocket::open(const WakeupAddress& bind_to, WakeupSocket& out) {
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    TERN_LOG(Error, "shm: wakeup socket: %s", std::strerror(errno));
    return Status::IoError;
  }
  if (bind(fd, reinterpret_cast<const sockaddr*>(&bind_to.address), bind_to.length) != 0) {
    const int error = errno;
    close(fd);
    // A name in use is the caller's to resolve (it picks another).
    if (error == EADDRINUSE) return Status::Busy;
    TERN_LOG(Error, "shm: binding the wakeup socket: %s", std::strerror(error));
    return Status::IoError;
  }
  // Each datagram then carries its sender's credentials (drain checks them).
  const int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0) {
    TERN_LOG(Warn, "shm: SO_PASSCRED on the wakeup socket: %s", std::strerror(errno));
  }
  out = WakeupSocket();
  out.fd_ = fd;
  return Status::Ok;
}

void WakeupSocket::signal(const WakeupAddress& peer) const noexcept {
  const char byte = 1;
  ssize_t ignored = sendto(fd_, &byte, 1, MSG_DONTWAIT | MSG_NOSIGNAL,
                           reinterpret_cast<const sockaddr*>(&peer.address), peer.length);
  (void)ignored;
}

unsigned WakeupSocket::drain() const noexcept {
  static std::atomic<bool> logged{false};
  const uid_t user = geteuid();
  unsigned strangers = 0;
  for (;;) {
    char byte;
    iovec data{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    if (recvmsg(fd_, &message, MSG_DONTWAIT) < 0) break;
    // Without credentials (SO_PASSCRED failed) nothing can be told apart.
    const cmsghdr* header = CMSG_FIRSTHDR(&message);
    if (header == nullptr || header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_CREDENTIALS) continue;
    ucred sender;
    std::memcpy(&sender, CMSG_DATA(header), sizeof(sender));
    if (sender.uid == user || sender.uid == 0) continue;
    ++strangers;
    if (!logged.exchange(true, std::memory_order_relaxed)) {
      TERN_LOG(Warn, "shm: dropped a wakeup datagram from pid %d of user %u, who is not in this job",
               static_cast<int>(sender.pid), static_cast<unsigned>(sender.uid));
    }
  }
  return strangers;
}

}  // namespace tern::engine::transport::shm
