#include "wakeup.hpp"

#include <unistd.h>

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

void WakeupSocket::drain() const noexcept {
  char buffer[64];
  while (recv(fd_, buffer, sizeof(buffer), MSG_DONTWAIT) > 0) {
  }
}

}  // namespace tern::engine::transport::shm
