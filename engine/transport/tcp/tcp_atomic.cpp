// The requester's side of remote atomics: an Atomic frame out, its
// AtomicReply (the old value, or the target's refusal) back. The target's
// side is serve_atomic in tcp_iface.cpp.
#include <cstring>

#include "tcp_iface.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine::transport::tcp {

static_assert(static_cast<uint8_t>(transport::AtomicOp::FetchXor) == static_cast<uint8_t>(AtomicOp::FetchXor) &&
              static_cast<uint8_t>(transport::AtomicOp::Add) == static_cast<uint8_t>(AtomicOp::Add));

Status TcpIface::start_atomic(TcpConnection& connection, const AtomicArgs& args, RemoteMemory remote,
                              Completion* comp) {
  const auto op = static_cast<uint8_t>(args.op);
  if ((args.size != 4 && args.size != 8) || op == 0 || op > kLastAtomicOp || remote.key == 0 ||
      remote.address % args.size != 0) {
    return Status::InvalidParam;
  }
  if (connection.state() == TcpConnection::State::Failed) return Status::IoError;
  // Every atomic asks for a reply, also those that fetch nothing: the reply
  // completes it and carries the target's refusal of a bad range. A flush
  // after it must still wait for the target to have applied it.
  const uint64_t reply_id = atomics_.add({args.result, comp, &connection});
  const AtomicBody body{remote.address, remote.key, args.operand, args.compare, reply_id, op, args.size, {}};
  const FrameHeader header{sizeof(body), static_cast<uint8_t>(FrameType::Atomic), 0, 0};
  if (connection.send_zcopy(header, &body, sizeof(body), nullptr, 0, nullptr) == Status::IoError) {
    atomics_.remove(reply_id);
    return Status::IoError;
  }
  connection.puts_unflushed = true;
  return Status::InProgress;
}

void TcpIface::on_atomic_reply(TcpConnection& connection, const AtomicReplyBody& reply) {
  AtomicInFlight* pending = atomics_.find(reply.reply_id);
  if (pending == nullptr || pending->connection != &connection) {
    protocol_error(connection, "reply to an atomic that is not in flight");
    return;
  }
  const AtomicInFlight done = *pending;
  atomics_.remove(reply.reply_id);
  const Status status = reply.status == 0 ? Status::Ok : Status::InvalidParam;
  if (status == Status::Ok && done.result != nullptr) *done.result = reply.value;
  if (status != Status::Ok) {
    TERN_LOG(Error, "tcp: peer %s refused an atomic: %s", connection.peer_name.c_str(), to_string(status));
  }
  if (done.comp != nullptr) done.comp->finish_one(status);
}

}  // namespace tern::engine::transport::tcp
