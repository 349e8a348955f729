// The tag list of an emulated TM SRQ (verbs_emulated.hpp): what the device
// does with list operations and with the tag of an arriving message, as
// the kernel's tag_matching.rst and man ibv_post_srq_ops describe it.
//
// - Add puts an entry at the end of the list; a message matches the
//   earliest entry whose (tag & mask) equals the entry's tag, which leaves
//   the list with it.
// - A message that matches none is unexpected: the device counts it.
// - Operations that carry software's count of unexpected messages handled
//   (`sync`) are refused while that count is behind the device's: an entry
//   added then could match a message that software has not seen yet, which
//   an earlier unexpected one would have matched first.
// - Del of an entry a message consumed first fails (TagListError), and the
//   message's TagRecv completes as usual: the race the shadow list settles.
//
// - An unexpected message's completion asks for a Sync once software's
//   count, as the last operation carrying one said, is kSyncRequestAfter
//   behind (man ibv_post_srq_ops: the device may ask for one to keep
//   coherent; when a device asks is its own affair).
//
// What is not modelled: operations run at once when posted (a device runs
// them a little later, which the DEL race stands for), so max_ops is not
// enforced; handles are never reused (a device reuses them once the
// completion that frees them was polled).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "verbs_api.hpp"

namespace tern::engine::transport::verbs {

struct TagListEntry {
  uint32_t handle = 0;
  uint64_t recv_wr_id = 0;
  Sge sge;
  uint64_t tag = 0;
  uint64_t mask = 0;
};

class EmulatedTagList {
 public:
  explicit EmulatedTagList(uint32_t max_tags) noexcept : max_tags_(max_tags) {}

  // Runs one list operation. Returns WouldBlock (Add to a full list) or
  // InvalidParam without running it; otherwise Ok, with the operation's
  // completion in `done` and `complete` saying whether it is reported.
  [[nodiscard]] Status post(const TagListWr& wr, uint32_t& handle, WorkCompletion& done, bool& complete);
  // The earliest entry `tag` matches, taken out of the list.
  [[nodiscard]] std::optional<TagListEntry> match(uint64_t tag);
  // A message that matched nothing was placed: one more unexpected. True
  // when its completion asks software for a Sync (kWcSyncRequest): the
  // count software last gave is kSyncRequestAfter or more behind.
  bool count_unexpected() noexcept {
    ++unexpected_;
    return unexpected_ - software_count_ >= kSyncRequestAfter;
  }
  static constexpr uint32_t kSyncRequestAfter = 16;

  [[nodiscard]] uint32_t unexpected() const noexcept { return unexpected_; }
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

 private:
  uint32_t max_tags_;
  uint32_t next_handle_ = 1;
  uint32_t unexpected_ = 0;  // messages the device found no entry for
  uint32_t software_count_ = 0;  // the count the last operation carrying one gave
  std::vector<TagListEntry> entries_;  // in the order added
};

}  // namespace tern::engine::transport::verbs
