// Helpers shared by the transport tests.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "transport/iface.hpp"

namespace tern::engine::transport::testing {

// A job id no other test (or concurrent test binary) uses, so segment and
// socket names never clash.
inline std::string unique_job_id(const char* what) {
  static std::atomic<unsigned> counter{0};
  return std::string("tt") + what + "-" + std::to_string(getpid()) + "x" + std::to_string(counter++);
}

// The byte at `index` of test message number `key`.
inline std::byte pattern(std::size_t key, std::size_t index) {
  return static_cast<std::byte>((index * 131 + key * 7 + 1) & 0xff);
}

inline void fill_pattern(void* dest, std::size_t length, std::size_t key) {
  auto* bytes = static_cast<std::byte*>(dest);
  for (std::size_t i = 0; i < length; ++i) bytes[i] = pattern(key, i);
}

inline bool check_pattern(const void* src, std::size_t length, std::size_t key) {
  const auto* bytes = static_cast<const std::byte*>(src);
  for (std::size_t i = 0; i < length; ++i) {
    if (bytes[i] != pattern(key, i)) return false;
  }
  return true;
}

// A blocking TCP socket connected to `ip`:`port` (network order), or -1.
inline int connect_tcp(uint32_t ip, uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = ip;
  to.sin_port = port;
  if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// A Completion that records, in order, which operation finished (in `log`,
// when there is one).
struct TrackedCompletion {
  Completion comp;
  std::vector<int>* order = nullptr;
  int index = 0;
  Status result = Status::Ok;
  bool fired = false;

  void arm(std::vector<int>* log, int id) {
    comp.callback = &TrackedCompletion::fire;
    comp.count = 1;
    comp.status = Status::Ok;
    order = log;
    index = id;
    fired = false;
  }
  static void fire(Completion* self) {
    auto* tracked = reinterpret_cast<TrackedCompletion*>(self);
    tracked->fired = true;
    tracked->result = self->status;
    if (tracked->order != nullptr) tracked->order->push_back(tracked->index);
  }
};
static_assert(offsetof(TrackedCompletion, comp) == 0);

// Calls `step` until `done` holds or `seconds` pass; true if `done` held.
template <typename Step, typename Done>
bool spin_until(Step&& step, Done&& done, double seconds = 20.0) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    step();
  }
  return true;
}

}  // namespace tern::engine::transport::testing
