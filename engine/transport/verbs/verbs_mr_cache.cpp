#include "verbs_mr_cache.hpp"

#include <unistd.h>

#include <iterator>

namespace tern::engine::transport::verbs {

const Mr* MrCache::get(const void* address, std::size_t length, Status& status) {
  const auto start = reinterpret_cast<uintptr_t>(address);
  if (address == nullptr || length == 0 || start + length < start) {
    status = Status::InvalidParam;
    return nullptr;
  }
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
