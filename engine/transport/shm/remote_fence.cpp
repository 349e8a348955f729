#include "remote_fence.hpp"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

namespace tern::engine::transport::shm {
namespace {

int membarrier(int command) noexcept { return static_cast<int>(syscall(__NR_membarrier, command, 0, 0)); }

bool supported(int command) noexcept {
  const int mask = membarrier(MEMBARRIER_CMD_QUERY);
  return mask > 0 && (mask & command) != 0;
}

}  // namespace

bool remote_fence_registered() noexcept {
  static const bool registered = supported(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) &&
                                 membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
  return registered;
}

bool remote_fence_available() noexcept {
  static const bool available =
      supported(MEMBARRIER_CMD_GLOBAL_EXPEDITED) && membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) == 0;
  return available;
}

void remote_fence() noexcept {
  // Only called after remote_fence_available(), so it cannot fail for want
  // of support; the seq_cst fence keeps our own side ordered regardless.
  (void)membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace tern::engine::transport::shm
