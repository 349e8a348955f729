#include "verbs_ep.hpp"

#include "tern/runtime/compiler.hpp"
#include "verbs_iface.hpp"

namespace tern::engine::transport::verbs {

Status VerbsEp::am_short(uint8_t id, uint64_t header, const void* payload, std::size_t length) {
  if (TERN_UNLIKELY(length > iface_.attr().max_short)) return Status::MessageTooLong;
  if (TERN_UNLIKELY(id >= kMaxAmId || (payload == nullptr && length != 0))) return Status::InvalidParam;
  return iface_.send_am(connection_, id, &header, sizeof(header), payload, length);
}

ssize_t VerbsEp::am_bcopy(uint8_t id, PackCallback pack, void* arg) {
  if (TERN_UNLIKELY(id >= kMaxAmId || pack == nullptr)) return static_cast<ssize_t>(Status::InvalidParam);
  return iface_.send_bcopy(connection_, id, pack, arg);
}

Status VerbsEp::get_zcopy(void* local, std::size_t length, RemoteMemory remote, Completion* comp) {
  return iface_.start_rdma(connection_, this, SendOp::RdmaRead, local, length, remote, comp);
}

Status VerbsEp::put_zcopy(const void* local, std::size_t length, RemoteMemory remote, Completion* comp) {
  return iface_.start_rdma(connection_, this, SendOp::RdmaWrite, local, length, remote, comp);
}

uint64_t VerbsEp::offer_zcopy(const void* local, std::size_t length) noexcept { return iface_.offer(local, length); }

Status VerbsEp::pending_add(PendingEntry* entry) {
  if (!EpPendingQueue::acceptable(entry)) return Status::InvalidParam;
  if (connection_.pending.empty() && iface_.has_room(connection_)) return Status::Busy;
  connection_.pending.push(entry);
  iface_.wait_for_room(connection_);
  return Status::Ok;
}

void VerbsEp::pending_remove(PendingEntry* entry) {
  if (entry != nullptr) connection_.pending.remove(entry);
}

Status VerbsEp::atomic(const AtomicArgs& args, RemoteMemory remote, Completion* comp) {
  return iface_.start_atomic(connection_, this, args, remote, comp);
}

Status VerbsEp::tag_offload_send(uint64_t tag, uint64_t /*sender_uuid*/, const void* buffer, std::size_t length,
                                 std::size_t unmapped_threshold) {
  if (TERN_UNLIKELY(buffer == nullptr && length != 0)) return Status::InvalidParam;
  if (length < unmapped_threshold) return Status::NotFound;  // the HCA maps no peer memory
  return iface_.send_tagged(connection_, tag, buffer, length);
}

std::string VerbsEp::route() const { return iface_.route(); }

Status VerbsEp::flush(Completion* comp) { return iface_.start_flush(connection_, comp); }

// A later request may overtake an earlier READ or atomic whose answer is
// still on its way: the next one waits for them (the fence flag).
Status VerbsEp::fence() {
  connection_.fence_next = true;
  return Status::Ok;
}

}  // namespace tern::engine::transport::verbs
