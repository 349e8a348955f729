#include "verbs_tag_device.hpp"

#include <chrono>
#include <cstring>

#include "tern/runtime/log.hpp"
#include "verbs_iface.hpp"
#include "verbs_mr_cache.hpp"

namespace tern::engine::transport::verbs {
namespace {

// A list operation answers within microseconds; one that has not after
// this long never will (the device is gone).
constexpr auto kOperationTimeout = std::chrono::seconds(2);

}  // namespace

VerbsTagDevice::VerbsTagDevice(VerbsIface& iface, TagSrq& srq, MrCache& mr_cache, uint32_t capacity)
    : iface_(iface), srq_(srq), mr_cache_(mr_cache), slots_(capacity) {}

int VerbsTagDevice::post(uint64_t tag, uint64_t mask, void* buffer, std::size_t length) noexcept {
  // A receive that ordinary messages could match stays in software.
  if (((kUntaggedTag ^ tag) & mask) == 0 || length > UINT32_MAX) return -1;
  uint32_t slot = 0;
  while (slot < slots_.size() && slots_[slot].state != SlotState::Free) ++slot;
  if (slot == slots_.size()) return -1;
  TagListWr wr;
  wr.op = TagListOp::Add;
  wr.sync = true;
  wr.unexpected_count = handled_;
  wr.recv_wr_id = wr_id(kWrTag, slot);
  wr.tag = tag & mask;
  wr.mask = mask;
  if (length != 0) {
    Status status = Status::Ok;
    const Mr* mr = mr_cache_.get(buffer, length, status);
    if (mr == nullptr) return -1;
    wr.sge = {reinterpret_cast<uint64_t>(buffer), static_cast<uint32_t>(length), mr->lkey()};
  }
  uint32_t handle = 0;
  const WcStatus status = run(wr, handle);
  if (status != WcStatus::Success) {
    // Refused: an unexpected message is on its way to software, which has
    // to see it before the device may match for this receive.
    if (status == WcStatus::TagListError) ++refused_adds_;
    return -1;
  }
  slots_[slot] = {SlotState::Posted, handle};
  return static_cast<int>(slot);
}

bool VerbsTagDevice::take_back(uint32_t slot) noexcept {
  if (slot >= slots_.size() || slots_[slot].state != SlotState::Posted) return false;
  TagListWr wr;
  wr.op = TagListOp::Del;
  wr.handle = slots_[slot].handle;
  uint32_t unused = 0;
  if (run(wr, unused) == WcStatus::Success) {
    slots_[slot] = {};
    return true;
  }
  // A message consumed the entry first: its TagRecv completes the receive.
  ++lost_races_;
  slots_[slot].state = SlotState::Consumed;
  return false;
}

WcStatus VerbsTagDevice::run(TagListWr wr, uint32_t& handle) noexcept {
  uint64_t index = ++next_op_ & 0xffffffffu;
  if (index == 0) index = ++next_op_ & 0xffffffffu;  // 0 is sync()'s, which no one waits for
  wr.wr_id = wr_id(kWrTagOp, index);
  wr.signaled = true;
  waiting_for_ = wr.wr_id;
  waited_done_ = false;
  const Status posted = srq_.post_tag_op(wr, handle);
  if (posted != Status::Ok) {
    waiting_for_ = 0;
    if (posted != Status::WouldBlock) {
      TERN_LOG(Error, "verbs: the tag device refused a list operation: %s", tern::to_string(posted));
    }
    return WcStatus::GeneralError;
  }
  const auto deadline = std::chrono::steady_clock::now() + kOperationTimeout;
  while (!waited_done_) {
    iface_.poll_for_tag_device();
    if (!waited_done_ && std::chrono::steady_clock::now() > deadline) {
      TERN_LOG(Error, "verbs: a tag-list operation did not complete in 2 s");
      waiting_for_ = 0;
      return WcStatus::GeneralError;
    }
  }
  waiting_for_ = 0;
  return waited_status_;
}

void VerbsTagDevice::sync() {
  TagListWr wr;
  wr.op = TagListOp::Sync;
  wr.wr_id = wr_id(kWrTagOp, 0);  // no one waits for it: its completion is dropped
  wr.signaled = false;
  wr.unexpected_count = handled_;
  uint32_t unused = 0;
  if (srq_.post_tag_op(wr, unused) == Status::Ok) ++syncs_;
}

void VerbsTagDevice::on_polled_early(const WorkCompletion& wc) noexcept {
  if (wr_kind(wc.wr_id) == kWrTagOp) {
    if (wc.wr_id != waiting_for_) return;  // late, after a timeout
    waited_status_ = wc.status;
    waited_done_ = true;
    return;
  }
  // A message filled a tagged buffer: no Del can take it back now.
  const uint32_t slot = wr_index(wc.wr_id);
  if (slot < slots_.size() && slots_[slot].state == SlotState::Posted) slots_[slot].state = SlotState::Consumed;
}

void VerbsTagDevice::on_completion(const WorkCompletion& wc, uint64_t sender_uuid) {
  if (wr_kind(wc.wr_id) != kWrTag) return;  // a list operation no one waits for any more
  // Matched but its data not there yet (a device's rendezvous offload,
  // which tagged sends do not use): the completion with the data follows.
  if (wc.status == WcStatus::Success && (wc.tag_flags & kWcTagDataValid) == 0) return;
  const uint32_t slot = wr_index(wc.wr_id);
  if (slot >= slots_.size() || slots_[slot].state == SlotState::Free) {
    TERN_LOG(Error, "verbs: a tagged-buffer completion for slot %u, which holds nothing", slot);
    return;
  }
  slots_[slot] = {};
  TagDeviceCompletion completion;
  completion.slot = slot;
  completion.tag = wc.tag;
  completion.length = wc.byte_len;
  completion.sender_uuid = sender_uuid;
  // Too long for the buffer: the device placed what fitted, and the
  // engine reports the receive truncated from the length.
  completion.status =
      wc.status == WcStatus::Success || wc.status == WcStatus::LocalLengthError ? Status::Ok : Status::IoError;
  if (completion.status != Status::Ok) {
    TERN_LOG(Error, "verbs: a tagged receive failed: %s", to_string(wc.status));
  }
  if (handler_ != nullptr) handler_(handler_arg_, completion);
}

void VerbsTagDevice::on_unexpected(std::byte* message, std::size_t length) {
  TagHeader header;
  if (!unpack_tag_header(message, kTagHeaderBytes + length, header)) return;
  // Laid out as the eager active message is: the tag, then the payload.
  std::byte* eager = message + kTagHeaderBytes - sizeof(uint64_t);
  std::memcpy(eager, &header.tag, sizeof(header.tag));
  TagDeviceCompletion completion;
  completion.tag = header.tag;
  completion.length = length;
  completion.unexpected = eager;
  if (handler_ == nullptr) {
    // Only while the iface closes (the worker sets the handler of every
    // device), when arrivals are dropped anyway.
    TERN_LOG(Debug, "verbs: a tagged message of %zu bytes arrived while closing: dropped", length);
    return;
  }
  handler_(handler_arg_, completion);
}

}  // namespace tern::engine::transport::verbs
