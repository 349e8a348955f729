// Cross-process wakeup of a sleeping shm receiver: a non-blocking unix
// datagram socket bound to an abstract name derived from the segment name,
// so nothing is left on disk and the name dies with the socket.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>

#include <string>

#include "tern/runtime/status.hpp"

namespace tern::engine::transport::shm {

struct WakeupAddress {
  sockaddr_un address{};
  socklen_t length = 0;
};

// The abstract address of the wakeup socket of the segment `segment_name`.
[[nodiscard]] WakeupAddress wakeup_address(const std::string& segment_name) noexcept;

class WakeupSocket {
 public:
  WakeupSocket() = default;
  ~WakeupSocket();
  WakeupSocket(WakeupSocket&& other) noexcept;
  WakeupSocket& operator=(WakeupSocket&& other) noexcept;
  WakeupSocket(const WakeupSocket&) = delete;
  WakeupSocket& operator=(const WakeupSocket&) = delete;

  // Opens a socket bound to `bind_to`.
  [[nodiscard]] static Status open(const WakeupAddress& bind_to, WakeupSocket& out);

  [[nodiscard]] int fd() const noexcept { return fd_; }

  // Sends one byte to `peer`. A full queue (a wakeup is already waiting)
  // or a peer that is gone is not an error worth reporting.
  void signal(const WakeupAddress& peer) const noexcept;

  // Reads every queued datagram; returns how many came from a process of
  // another user (neither ours nor root), which are dropped (and logged once):
  // an abstract socket can be written by anyone on the host.
  unsigned drain() const noexcept;

 private:
  int fd_ = -1;
};

}  // namespace tern::engine::transport::shm
