// Memory registrations of user buffers for zero copy: a buffer is
// registered (whole pages, every access right) the first time a get, put or
// offer uses it, and kept, so the next transfer from the same buffer costs
// a lookup instead of a registration (which pins pages: tens of
// microseconds).
//
// Not yet done: invalidation. A registration outlives the buffer's free
// (the pages stay pinned, and memory mapped again at the same address
// would be served by the stale registration). The next step hooks
// Worker::mem_free and munmap (a memory event hook, as UCX's ucm does) and
// drops registrations that overlap what was freed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "verbs_api.hpp"

namespace tern::engine::transport::verbs {

class MrCache {
 public:
  explicit MrCache(Pd& pd) noexcept : pd_(pd) {}

  // The registration covering [address, address + length): found, or made
  // now. Null (with `status`) when the provider refuses.
  [[nodiscard]] const Mr* get(const void* address, std::size_t length, Status& status);
  [[nodiscard]] std::size_t size() const noexcept { return regions_.size(); }
  [[nodiscard]] uint64_t registrations() const noexcept { return registrations_; }

 private:
  Pd& pd_;
  std::map<uintptr_t, std::unique_ptr<Mr>> regions_;  // by start
  std::vector<std::unique_ptr<Mr>> retired_;  // replaced by larger ones, perhaps still in use
  uint64_t registrations_ = 0;
};

}  // namespace tern::engine::transport::verbs
