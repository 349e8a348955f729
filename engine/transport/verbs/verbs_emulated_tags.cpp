#include "verbs_emulated_tags.hpp"

#include <algorithm>

namespace tern::engine::transport::verbs {

Status EmulatedTagList::post(const TagListWr& wr, uint32_t& handle, WorkCompletion& done, bool& complete) {
  done = {};
  done.wr_id = wr.wr_id;
  complete = wr.signaled;
  const bool counted = wr.sync || wr.op == TagListOp::Sync;
  const bool stale = counted && wr.unexpected_count != unexpected_;
  if (counted) software_count_ = wr.unexpected_count;
  switch (wr.op) {
    case TagListOp::Add: {
      done.opcode = WcOpcode::TagAdd;
      if (wr.sge.length != 0 && wr.sge.address == 0) return Status::InvalidParam;
      if (entries_.size() >= max_tags_) return Status::WouldBlock;
      handle = next_handle_++;
      if (next_handle_ == 0) next_handle_ = 1;
      if (stale) break;
      entries_.push_back({handle, wr.recv_wr_id, wr.sge, wr.tag & wr.mask, wr.mask});
      return Status::Ok;
    }
    case TagListOp::Del: {
      done.opcode = WcOpcode::TagDel;
      if (wr.handle == 0 || wr.handle >= next_handle_) return Status::InvalidParam;
      if (stale) break;
      auto it = std::find_if(entries_.begin(), entries_.end(),
                             [&](const TagListEntry& entry) { return entry.handle == wr.handle; });
      if (it == entries_.end()) {
        // Consumed by a message first (or deleted before): the caller learns
        // of the message from its TagRecv.
        done.status = WcStatus::TagListError;
        complete = true;
        return Status::Ok;
      }
      entries_.erase(it);
      return Status::Ok;
    }
    case TagListOp::Sync:
      done.opcode = WcOpcode::TagSync;
      // Behind the device's count: it asks again.
      if (stale) done.tag_flags = kWcSyncRequest;
      return Status::Ok;
  }
  done.status = WcStatus::TagListError;
  done.tag_flags = kWcSyncRequest;
  complete = true;
  return Status::Ok;
}

std::optional<TagListEntry> EmulatedTagList::match(uint64_t tag) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const TagListEntry& entry) { return (tag & entry.mask) == entry.tag; });
  if (it == entries_.end()) return std::nullopt;
  TagListEntry entry = *it;
  entries_.erase(it);
  return entry;
}

}  // namespace tern::engine::transport::verbs
