#include "tcp_ep.hpp"

#include <algorithm>
#include <cstring>

#include "tcp_iface.hpp"
#include "tern/runtime/compiler.hpp"

namespace tern::engine::transport::tcp {

Status TcpEp::am_short(uint8_t id, uint64_t header, const void* payload, std::size_t length) {
  if (TERN_UNLIKELY(length > iface_.attr().max_short)) return Status::MessageTooLong;
  if (TERN_UNLIKELY(id >= kMaxAmId || (payload == nullptr && length != 0))) return Status::InvalidParam;
  if (TERN_UNLIKELY(connection_.pending.blocks_sends())) return Status::WouldBlock;
  const FrameHeader frame{static_cast<uint32_t>(sizeof(header) + length), static_cast<uint8_t>(FrameType::Am), id, 0};
  return connection_.send_copy(frame, &header, sizeof(header), payload, length);
}

ssize_t TcpEp::am_bcopy(uint8_t id, PackCallback pack, void* arg) {
  if (TERN_UNLIKELY(id >= kMaxAmId || pack == nullptr)) return static_cast<ssize_t>(Status::InvalidParam);
  if (TERN_UNLIKELY(connection_.pending.blocks_sends() || !connection_.has_room())) {
    return static_cast<ssize_t>(connection_.state() == TcpConnection::State::Failed ? Status::IoError
                                                                                   : Status::WouldBlock);
  }
  std::byte* scratch = iface_.bcopy_scratch();
  const std::size_t packed = pack(scratch, iface_.attr().max_bcopy, arg);
  if (packed > iface_.attr().max_bcopy) return static_cast<ssize_t>(Status::InvalidParam);
  const FrameHeader frame{static_cast<uint32_t>(packed), static_cast<uint8_t>(FrameType::Am), id, 0};
  const Status status = connection_.send_copy(frame, scratch, packed);
  return status == Status::Ok ? static_cast<ssize_t>(packed) : static_cast<ssize_t>(status);
}

Status TcpEp::get_zcopy(void* local, std::size_t length, RemoteMemory remote, Completion* comp) {
  return iface_.start_get(connection_, local, length, remote, comp);
}

Status TcpEp::put_zcopy(const void* local, std::size_t length, RemoteMemory remote, Completion* comp) {
  if (length == 0) return Status::Ok;
  if (local == nullptr || remote.address == 0 || remote.key == 0) return Status::InvalidParam;
  connection_.puts_unflushed = true;
  // One frame carries at most 4 GiB, so larger puts go in pieces. The
  // completion counts the pieces still in flight in place of the caller's
  // one operation; pieces written at once are taken off without a callback.
  constexpr std::size_t kMaxPiece = std::size_t{1} << 30;
  const auto pieces = static_cast<int32_t>((length + kMaxPiece - 1) / kMaxPiece);
  if (comp != nullptr) comp->count += pieces;
  int32_t in_flight = 0;
  for (std::size_t offset = 0; offset < length; offset += kMaxPiece) {
    const std::size_t piece = std::min(kMaxPiece, length - offset);
    const PutBody body{remote.address + offset, remote.key};
    const FrameHeader frame{static_cast<uint32_t>(sizeof(body) + piece), static_cast<uint8_t>(FrameType::Put), 0, 0};
    const Status status = connection_.send_zcopy(frame, &body, sizeof(body),
                                                 static_cast<const std::byte*>(local) + offset, piece, comp);
    if (status == Status::IoError) return status;
    if (status == Status::InProgress) {
      ++in_flight;
    } else if (comp != nullptr) {
      --comp->count;
    }
  }
  if (in_flight == 0) return Status::Ok;
  if (comp != nullptr) --comp->count;
  return Status::InProgress;
}

uint64_t TcpEp::offer_zcopy(const void* local, std::size_t length) noexcept {
  if (local == nullptr || length == 0) return 0;
  return iface_.register_region(local, length);
}

void TcpEp::withdraw_zcopy(uint64_t key) noexcept { iface_.deregister_region(key); }

Status TcpEp::pending_add(PendingEntry* entry) {
  if (!EpPendingQueue::acceptable(entry)) return Status::InvalidParam;
  if (connection_.pending.empty() && connection_.has_room() && connection_.state() != TcpConnection::State::Failed) {
    return Status::Busy;
  }
  connection_.pending.push(entry);
  return Status::Ok;
}

void TcpEp::pending_remove(PendingEntry* entry) {
  if (entry != nullptr) connection_.pending.remove(entry);
}

Status TcpEp::atomic(const AtomicArgs& args, RemoteMemory remote, Completion* comp) {
  return iface_.start_atomic(connection_, args, remote, comp);
}

Status TcpEp::flush(Completion* comp) { return iface_.start_flush(connection_, comp); }

// One ordered stream, applied in order by the peer.
Status TcpEp::fence() { return Status::Ok; }

}  // namespace tern::engine::transport::tcp
