// Remote atomics: the requester's side (an Atomic frame out, its
// AtomicReply with the old value or the target's refusal back) and the
// target's, which applies them with CPU atomics to registered memory.
#include <cstring>
#include <type_traits>

#include "tcp_iface.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine::transport::tcp {

static_assert(static_cast<uint8_t>(AtomicOp::Add) == 1 && kLastAtomicOp == 10,
              "atomic op values are on the wire: changing them breaks peers of another build");

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

void TcpIface::serve_atomic(TcpConnection& connection, const AtomicBody& request) {
  AtomicReplyBody reply{request.reply_id, 0, static_cast<int64_t>(Status::Ok)};
  std::byte* target = region_pointer(request.key, request.address, request.size);
  if (target == nullptr || (request.size != 4 && request.size != 8) ||
      reinterpret_cast<uintptr_t>(target) % request.size != 0) {
    TERN_LOG(Error, "tcp: peer %s sent an atomic on memory it may not reach", connection.peer_name.c_str());
    reply.status = static_cast<int64_t>(Status::InvalidParam);
  } else {
    auto apply = [&](auto* word) {
      using T = std::remove_pointer_t<decltype(word)>;
      const T operand = static_cast<T>(request.operand);
      T old = 0;
      switch (static_cast<AtomicOp>(request.op)) {
        case AtomicOp::Add: case AtomicOp::FetchAdd: old = __atomic_fetch_add(word, operand, __ATOMIC_SEQ_CST); break;
        case AtomicOp::And: case AtomicOp::FetchAnd: old = __atomic_fetch_and(word, operand, __ATOMIC_SEQ_CST); break;
        case AtomicOp::Or: case AtomicOp::FetchOr: old = __atomic_fetch_or(word, operand, __ATOMIC_SEQ_CST); break;
        case AtomicOp::Xor: case AtomicOp::FetchXor: old = __atomic_fetch_xor(word, operand, __ATOMIC_SEQ_CST); break;
        case AtomicOp::Swap: old = __atomic_exchange_n(word, operand, __ATOMIC_SEQ_CST); break;
        case AtomicOp::CompareSwap: {
          T expected = static_cast<T>(request.compare);
          __atomic_compare_exchange_n(word, &expected, operand, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
          old = expected;
          break;
        }
        default:
          reply.status = static_cast<int64_t>(Status::InvalidParam);
      }
      reply.value = static_cast<uint64_t>(old);
    };
    if (request.size == 4) apply(reinterpret_cast<uint32_t*>(target));
    else apply(reinterpret_cast<uint64_t*>(target));
  }
  if (request.reply_id == 0) return;
  FrameHeader header{sizeof(reply), static_cast<uint8_t>(FrameType::AtomicReply), 0, 0};
  (void)connection.send_zcopy(header, &reply, sizeof(reply), nullptr, 0, nullptr);
}

}  // namespace tern::engine::transport::tcp
