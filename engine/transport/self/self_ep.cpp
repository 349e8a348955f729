#include "self_ep.hpp"

#include <cstring>

#include "self_iface.hpp"

namespace tern::engine::transport::self {

SelfEp::SelfEp(SelfIface& iface, FifoSender fifo, std::size_t max_message) noexcept
    : fifo_(fifo), iface_(iface), max_short_(max_message - sizeof(uint64_t)), max_bcopy_(max_message) {}

Status SelfEp::am_short(uint8_t id, uint64_t header, const void* payload, std::size_t length) {
  if (TERN_UNLIKELY(length > max_short_)) return Status::MessageTooLong;
  if (TERN_UNLIKELY(id >= kMaxAmId || (payload == nullptr && length != 0))) return Status::InvalidParam;
  if (TERN_UNLIKELY(pending_.blocks_sends())) return Status::WouldBlock;
  // Release is enough: the receiver runs in this thread, after we return.
  if (TERN_UNLIKELY(!fifo_.send_short<std::memory_order_release>(id, header, payload, length))) {
    return Status::WouldBlock;
  }
  iface_.notify();
  return Status::Ok;
}

ssize_t SelfEp::am_bcopy(uint8_t id, PackCallback pack, void* arg) {
  if (TERN_UNLIKELY(id >= kMaxAmId || pack == nullptr)) return static_cast<ssize_t>(Status::InvalidParam);
  if (TERN_UNLIKELY(pending_.blocks_sends())) return static_cast<ssize_t>(Status::WouldBlock);
  const ssize_t result = fifo_.send_bcopy<std::memory_order_release>(id, pack, arg, max_bcopy_);
  if (result >= 0) iface_.notify();
  return result;
}

// Both ends are this process: a copy, complete on return.
Status SelfEp::get_zcopy(void* local, std::size_t length, RemoteMemory remote, Completion*) {
  if (length == 0) return Status::Ok;
  if (local == nullptr || remote.address == 0) return Status::InvalidParam;
  std::memmove(local, reinterpret_cast<const void*>(remote.address), length);
  return Status::Ok;
}

Status SelfEp::put_zcopy(const void* local, std::size_t length, RemoteMemory remote, Completion*) {
  if (length == 0) return Status::Ok;
  if (local == nullptr || remote.address == 0) return Status::InvalidParam;
  std::memmove(reinterpret_cast<void*>(remote.address), local, length);
  return Status::Ok;
}

Status SelfEp::pending_add(PendingEntry* entry) {
  if (!EpPendingQueue::acceptable(entry)) return Status::InvalidParam;
  // Entries already waiting go first, room or not.
  if (pending_.empty() && fifo_.has_room()) return Status::Busy;
  pending_.push(entry);
  iface_.schedule_pending(*this);
  return Status::Ok;
}

void SelfEp::pending_remove(PendingEntry* entry) {
  if (entry != nullptr) pending_.remove(entry);
}

// Every operation completes inside its call.
Status SelfEp::flush(Completion*) { return Status::Ok; }

Status SelfEp::fence() { return Status::Ok; }

}  // namespace tern::engine::transport::self
