// Memory registrations of user buffers for zero copy: a buffer is
// registered (whole pages, every access right) the first time a get, put,
// offer or offloaded receive uses it, and kept, so the next transfer from
// the same buffer costs a lookup instead of a registration (which pins
// pages: tens of microseconds).
//
// Invalidation: a registration is dropped (deregistered) once any part of
// its range is unmapped, moved or emptied (verbs_memory_events.hpp says how
// the process's calls are seen, and why free() needs no event: the cache
// keeps malloc from unmapping). The next use of those addresses registers
// the memory mapped there then. Events are read at each lookup, on the
// cache's own thread; they are logged by whichever thread unmaps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "verbs_api.hpp"
#include "verbs_memory_events.hpp"

namespace tern::engine::transport::verbs {

class MrCache {
 public:
  explicit MrCache(Pd& pd) noexcept;

  // The registration covering [address, address + length): found, or made
  // now. Null (with `status`) when the provider refuses.
  [[nodiscard]] const Mr* get(const void* address, std::size_t length, Status& status);
  [[nodiscard]] std::size_t size() const noexcept { return regions_.size(); }
  [[nodiscard]] uint64_t registrations() const noexcept { return registrations_; }
  [[nodiscard]] uint64_t invalidations() const noexcept { return invalidations_; }

 private:
  // Drops the registrations that released ranges touched.
  void invalidate();
  void drop_overlapping(uintptr_t start, std::size_t length);

  Pd& pd_;
  std::map<uintptr_t, std::unique_ptr<Mr>> regions_;  // by start
  std::vector<std::unique_ptr<Mr>> retired_;  // replaced by larger ones, perhaps still in use
  memory_events::Reader events_;
  std::vector<memory_events::Range> released_;
  uint64_t registrations_ = 0;
  uint64_t invalidations_ = 0;
};

}  // namespace tern::engine::transport::verbs
