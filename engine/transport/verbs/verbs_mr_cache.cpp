#include "verbs_mr_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <mutex>

#include "tern/runtime/log.hpp"

namespace tern::engine::transport::verbs {

MrCache::MrCache(Pd& pd) noexcept : pd_(pd) {
  memory_events::keep_malloc_memory_mapped();
  static std::once_flag warned;
  if (!memory_events::hooked()) {
    std::call_once(warned, [] {
      TERN_LOG(Warn,
               "verbs: this process's munmap, mremap and madvise calls are not seen (a sanitizer build, or a "
               "library that keeps Tern's hooks to itself): a buffer unmapped and mapped again at the same "
               "address keeps its old registration");
    });
  }
}

void MrCache::invalidate() {
  released_.clear();
  if (!events_.read(released_)) {
    // Fell behind the log: any registration may be stale.
    invalidations_ += regions_.size();
    regions_.clear();
    retired_.clear();
    return;
  }
  for (const memory_events::Range& range : released_) drop_overlapping(range.start, range.length);
}

void MrCache::drop_overlapping(uintptr_t start, std::size_t length) {
  const uintptr_t end = start + length < start ? UINTPTR_MAX : start + length;
  // Registrations may overlap (a later one from a page inside an earlier
  // one): every one that starts before `end` is a candidate.
  auto it = regions_.begin();
  while (it != regions_.end() && it->first < end) {
    const Mr& mr = *it->second;
    if (mr.address() + mr.length() > start) {
      ++invalidations_;
      it = regions_.erase(it);
    } else {
      ++it;
    }
  }
  std::erase_if(retired_, [&](const std::unique_ptr<Mr>& mr) {
    return mr->address() < end && mr->address() + mr->length() > start;
  });
}

const Mr* MrCache::get(const void* address, std::size_t length, Status& status) {
  const auto start = reinterpret_cast<uintptr_t>(address);
  if (address == nullptr || length == 0 || start + length < start) {
    status = Status::InvalidParam;
    return nullptr;
  }
  if (events_.pending()) invalidate();
  // The region starting last at or before `start` is the only candidate
  // that a new registration would not have swallowed.
  auto it = regions_.upper_bound(start);
  if (it != regions_.begin()) {
    const Mr& mr = *std::prev(it)->second;
    if (start + length <= mr.address() + mr.length()) {
      status = Status::Ok;
      return &mr;
    }
  }
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t first = start & ~(page - 1);
  const uintptr_t last = (start + length + page - 1) & ~(page - 1);
  std::unique_ptr<Mr> mr =
      pd_.reg_mr(reinterpret_cast<void*>(first), last - first,
                 kAccessLocalWrite | kAccessRemoteRead | kAccessRemoteWrite | kAccessRemoteAtomic, status);
  if (!mr) return nullptr;
  ++registrations_;
  // A larger registration from the same page replaces the smaller one,
  // which posted requests may still name: it stays registered until the
  // cache goes.
  auto& slot = regions_[first];
  if (slot) retired_.push_back(std::move(slot));
  slot = std::move(mr);
  return slot.get();
}

}  // namespace tern::engine::transport::verbs
