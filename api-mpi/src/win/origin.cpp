// The origin side of served windows: operations become requests to the
// target's agent (protocol.hpp), and the synchronization calls wait for
// their local completion and for the agent's answers.
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <span>
#include <utility>

#include "win/buffer_pool.hpp"
#include "win/protocol.hpp"
#include "win/window.hpp"

namespace tern::mpi {
namespace {

// The target layout of `count` instances of `type`, relative to its lowest
// byte `low` (from the target address); none for a contiguous type.
void target_layout(const DerivedType& type, std::size_t count, std::vector<RmaBlock>& blocks, int64_t& low,
                   uint64_t& span) {
  blocks.clear();
  low = 0;
  if (type.contiguous) {
    span = type.size * count;
    return;
  }
  int64_t lowest = INT64_MAX;
  int64_t highest = INT64_MIN;
  for (std::size_t i = 0; i < count; ++i) {
    const int64_t shift = static_cast<int64_t>(i) * type.extent;
    for (const TypeBlock& block : type.blocks) {
      const int64_t start = shift + block.offset;
      if (!blocks.empty() && static_cast<int64_t>(blocks.back().offset + blocks.back().length) == start) {
        blocks.back().length += block.length;
      } else {
        blocks.push_back(RmaBlock{static_cast<uint64_t>(start), block.length});
      }
      lowest = std::min(lowest, start);
      highest = std::max(highest, start + static_cast<int64_t>(block.length));
    }
  }
  if (blocks.empty()) {
    span = 0;
    return;
  }
  for (RmaBlock& block : blocks) block.offset = static_cast<uint64_t>(static_cast<int64_t>(block.offset) - lowest);
  low = lowest;
  span = static_cast<uint64_t>(highest - lowest);
}

// Sends `bytes` at `data` to `target`'s agent on `tag`; a pending entry
// owns `temp` (from temp_get(temp_bytes)) until the send is done. The
// caller holds the origin guard.
int send_locked(Window& win, int target, unsigned tag_value, const void* data, std::size_t bytes, void* temp,
                std::size_t temp_bytes) {
  Comm& comm = window_comm(win);
  engine::Endpoint* endpoint = comm_endpoint(comm, target);
  if (endpoint == nullptr) {
    temp_release(temp, temp_bytes);
    return MPI_ERR_OTHER;
  }
  engine::Request* request = nullptr;
  const uint64_t tag = make_tag(comm.context, static_cast<unsigned>(win.rank), tag_value);
  const Status status = g_state->worker->tag_send_nb(endpoint, data, bytes, tag, request);
  if (status == Status::InProgress) {
    win.pending.push_back(PendingOp{request, target, temp, temp_bytes, {}});
    return MPI_SUCCESS;
  }
  temp_release(temp, temp_bytes);
  return error_class_of(status);
}

// Copies a joint reply in `op.temp` to where its parts go.
void scatter(const PendingOp& op) {
  const auto* from = static_cast<const std::byte*>(op.temp);
  for (const ReplyPart& part : op.parts) {
    if (part.unpack_type != nullptr) {
      unpack_data(*part.unpack_type, from, part.bytes, part.into, part.count);
    } else if (part.bytes != 0) {
      std::memcpy(part.into, from, part.bytes);
    }
    from += part.bytes;
  }
}

// Posts the receive of `target`'s reply to the requests of one message,
// `bytes` in all: straight into the buffer of a single contiguous part,
// else into a temporary buffer scattered at completion (the parts are
// moved there). The caller holds the origin guard, so that replies are
// expected in the order the agent sends them.
int expect_replies_locked(Window& win, int target, std::span<ReplyPart> parts, std::size_t bytes) {
  if (parts.empty()) return MPI_SUCCESS;
  PendingOp op{nullptr, target, nullptr, 0, {}};
  void* into = parts[0].into;
  if (parts.size() > 1 || parts[0].unpack_type != nullptr) {
    op.temp = temp_get(bytes);
    if (op.temp == nullptr) return MPI_ERR_NO_MEM;
    op.temp_bytes = bytes;
    op.parts.assign(std::make_move_iterator(parts.begin()), std::make_move_iterator(parts.end()));
    into = op.temp;
  }
  Comm& comm = window_comm(win);
  const uint64_t tag = make_tag(comm.context, static_cast<unsigned>(target), kTagReply);
  const Status status = g_state->worker->tag_recv_nb(into, bytes, tag, engine::kTagMaskAll, op.request);
  if (status == Status::InProgress) {
    win.pending.push_back(std::move(op));
    return MPI_SUCCESS;
  }
  if (status == Status::Ok) scatter(op);
  temp_release(op.temp, op.temp_bytes);
  return error_class_of(status);
}

int finish(PendingOp& op) {
  const Status status = g_state->worker->wait(op.request);
  if (status == Status::Ok) scatter(op);
  temp_release(op.temp, op.temp_bytes);
  return error_class_of(status);
}

// The replies to a batch, in the order the agent sends them: those alone
// as it handles their requests, then the joint one (whose parts are moved
// to the front of the list, in order, meanwhile).
int expect_batch_replies_locked(Window& win, int target, Window::Batch& batch) {
  std::span<ReplyPart> parts(batch.replies);
  if (!batch.any_alone) return expect_replies_locked(win, target, parts, batch.joint_bytes);
  std::size_t joint = 0;
  for (ReplyPart& part : parts) {
    if (part.alone) {
      if (int err = expect_replies_locked(win, target, std::span<ReplyPart>(&part, 1), part.bytes);
          err != MPI_SUCCESS) {
        return err;
      }
    } else {
      parts[joint++] = std::move(part);
    }
  }
  return expect_replies_locked(win, target, parts.first(joint), batch.joint_bytes);
}

// Sends `batch` (taking its buffer over), its replies expected first.
int dispatch_locked(Window& win, int target, Window::Batch& batch) {
  if (batch.size == 0) return MPI_SUCCESS;
  Window::Batch out = std::exchange(batch, Window::Batch{});
  if (int err = expect_batch_replies_locked(win, target, out); err != MPI_SUCCESS) {
    temp_release(out.data, kBatchBytes);
    return err;
  }
  return send_locked(win, target, kTagRequest, out.data, out.size, out.data, kBatchBytes);
}

// Sends what waits in `target`'s batch.
int send_batch(Window& win, int target) {
  OriginGuard lock(win);
  return dispatch_locked(win, target, win.batches[static_cast<std::size_t>(target)]);
}

// Room for a whole request of `bytes` at the end of `target`'s batch,
// written by `fill` under the lock, its reply (if any) after the batch's;
// a batch without that room goes first.
template <typename Fill>
int queue_request(Window& win, int target, std::size_t bytes, ReplyPart* reply, Fill&& fill) {
  OriginGuard lock(win);
  Window::Batch& batch = win.batches[static_cast<std::size_t>(target)];
  const bool replies_full = reply != nullptr && !reply->alone && batch.joint_count != 0 &&
                            batch.joint_bytes + reply->bytes > kBatchReplyBytes;
  if (batch.size + bytes > kBatchBytes || replies_full) {
    if (int err = dispatch_locked(win, target, batch); err != MPI_SUCCESS) return err;
  }
  if (batch.data == nullptr) {
    batch.data = temp_get(kBatchBytes);
    if (batch.data == nullptr) return MPI_ERR_NO_MEM;
  }
  fill(batch.data + batch.size);
  batch.size += bytes;
  if (reply != nullptr) {
    if (reply->alone) {
      batch.any_alone = true;
    } else {
      batch.joint_bytes += reply->bytes;
      ++batch.joint_count;
    }
    if (batch.replies.empty()) batch.replies.reserve(16);
    batch.replies.push_back(std::move(*reply));
  }
  return MPI_SUCCESS;
}

}  // namespace

int served_issue(Window& win, const RmaCall& call) {
  std::vector<RmaBlock> blocks;
  int64_t low = 0;
  RmaHeader header;
  header.kind = static_cast<uint32_t>(call.kind);
  header.origin = win.rank;
  target_layout(*call.target_type, call.target_count, blocks, low, header.span);
  header.address = call.target_address + static_cast<uint64_t>(low);
  header.blocks = static_cast<uint32_t>(blocks.size());
  header.op = call.op;
  header.basic = call.basic;
  const bool carries_data = call.kind != kRmaGet && !(call.kind == kRmaGetAccumulate && call.op == MPI_NO_OP);
  const std::size_t element = call.basic != MPI_DATATYPE_NULL ? kTypes[call.basic].size : 0;
  header.data_bytes = !carries_data ? 0 : call.kind == kRmaCompareSwap ? 2 * element : call.bytes;
  const std::size_t layout = blocks.size() * sizeof(RmaBlock);

  // Where the reply goes, for the operations that have one.
  ReplyPart reply;
  const bool has_reply = call.kind == kRmaGet || call.kind == kRmaGetAccumulate || call.kind == kRmaCompareSwap;
  if (call.kind == kRmaGet) {
    reply = ReplyPart{const_cast<void*>(call.origin), call.bytes,
                      call.origin_type->contiguous ? nullptr : call.origin_hold, call.origin_count};
  } else if (has_reply) {
    reply = ReplyPart{call.result, call.kind == kRmaCompareSwap ? element : call.bytes,
                      call.result_type->contiguous ? nullptr : call.result_hold, call.result_count};
  }
  if (has_reply && reply.bytes > win.join_limit[static_cast<std::size_t>(call.target)]) {
    reply.alone = true;
    header.flags |= kReplyAlone;
  }

  const std::size_t total = sizeof(header) + layout + header.data_bytes;
  // Accumulates travel whole up to a full batch: the agent copies their data
  // out of the message anyway, where a put's goes straight into the window.
  const bool separate = total > (call.kind == kRmaPut ? kInlineRequest : kBatchBytes);
  // Header, layout and data at `cursor`.
  auto write = [&](std::byte* cursor, bool with_header) {
    if (with_header) {
      std::memcpy(cursor, &header, sizeof(header));
      cursor += sizeof(header);
    }
    if (layout != 0) std::memcpy(cursor, blocks.data(), layout);
    cursor += layout;
    if (call.kind == kRmaCompareSwap) {
      std::memcpy(cursor, call.origin, element);
      std::memcpy(cursor + element, call.compare, element);
    } else if (carries_data) {
      if (call.origin_type->contiguous) {
        std::memcpy(cursor, call.origin, call.bytes);
      } else {
        pack_data(*call.origin_type, call.origin, call.origin_count, cursor);
      }
    }
  };
  const bool puts_data = call.kind == kRmaPut || call.kind == kRmaAccumulate;
  if (!separate) {
    return queue_request(win, call.target, total, has_reply ? &reply : nullptr, [&](std::byte* at) {
      write(at, true);
      if (puts_data) win.unflushed[static_cast<std::size_t>(call.target)] = 1;
    });
  }

  // Separate: the header alone, then the layout and data (the origin buffer
  // itself when it is all there is and contiguous), after what waits.
  header.flags |= kSeparate;
  auto* message = temp_get(sizeof(header));
  if (message == nullptr) return MPI_ERR_NO_MEM;
  std::memcpy(message, &header, sizeof(header));
  const void* second = nullptr;
  std::byte* second_temp = nullptr;
  const bool direct_data = layout == 0 && (!carries_data || call.origin_type->contiguous);
  if (direct_data) {
    second = carries_data ? call.origin : nullptr;
  } else {
    second_temp = temp_get(layout + header.data_bytes);
    if (second_temp == nullptr) {
      temp_release(message, sizeof(header));
      return MPI_ERR_NO_MEM;
    }
    write(second_temp, false);
    second = second_temp;
  }
  OriginGuard lock(win);
  int err = dispatch_locked(win, call.target, win.batches[static_cast<std::size_t>(call.target)]);
  if (err == MPI_SUCCESS && has_reply) {
    err = expect_replies_locked(win, call.target, std::span<ReplyPart>(&reply, 1), reply.bytes);
  }
  const std::size_t second_bytes = layout + header.data_bytes;
  if (err != MPI_SUCCESS) {
    temp_release(message, sizeof(header));
    temp_release(second_temp, second_bytes);
    return err;
  }
  if (err = send_locked(win, call.target, kTagRequest, message, sizeof(header), message, sizeof(header));
      err != MPI_SUCCESS) {
    temp_release(second_temp, second_bytes);
    return err;
  }
  if (err = send_locked(win, call.target, kTagData, second, second_bytes, second_temp, second_bytes);
      err != MPI_SUCCESS) {
    return err;
  }
  if (puts_data) win.unflushed[static_cast<std::size_t>(call.target)] = 1;
  return MPI_SUCCESS;
}

int served_wait_local(Window& win, int target) {
  // Requests still in a batch leave first: what is waited for may be among them.
  for (int t = target < 0 ? 0 : target; t < (target < 0 ? win.size : target + 1); ++t) {
    if (int err = send_batch(win, t); err != MPI_SUCCESS) return err;
  }
  std::vector<PendingOp> mine;
  {
    OriginGuard lock(win);
    auto keep = win.pending.begin();
    for (auto it = win.pending.begin(); it != win.pending.end(); ++it) {
      if (target < 0 || it->target == target) {
        mine.push_back(std::move(*it));
      } else {
        *keep++ = std::move(*it);
      }
    }
    win.pending.erase(keep, win.pending.end());
  }
  int error = MPI_SUCCESS;
  for (PendingOp& op : mine) {
    const int err = finish(op);
    if (error == MPI_SUCCESS) error = err;
  }
  return error;
}

namespace {

// Sends `kind` (flush, lock, unlock) to each of `targets` and waits for
// every answer; the first error any reports.
int round_trip(Window& win, const std::vector<int>& targets, uint32_t kind) {
  Comm& comm = window_comm(win);
  struct Answer {
    RmaAck ack;
    engine::Request* request;
  };
  std::vector<Answer> answers(targets.size());
  int error = MPI_SUCCESS;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    Answer& answer = answers[i];
    answer.ack.magic = 0;  // an answer that never came must not look like one
    answer.request = nullptr;
    const uint64_t tag = make_tag(comm.context, static_cast<unsigned>(targets[i]), kTagAck);
    Status status = g_state->worker->tag_recv_nb(&answer.ack, sizeof(RmaAck), tag, engine::kTagMaskAll,
                                                 answer.request);
    if (status != Status::Ok && status != Status::InProgress) {
      error = error_class_of(status);
      answer.request = nullptr;
      answer.ack.kind = kind;
      continue;
    }
    // Behind the target's batch, in the same message where there is room.
    RmaHeader header;
    header.kind = kind;
    header.origin = win.rank;
    int err = queue_request(win, targets[i], sizeof(header), nullptr,
                            [&](std::byte* at) { std::memcpy(at, &header, sizeof(header)); });
    if (err == MPI_SUCCESS) err = send_batch(win, targets[i]);
    if (err != MPI_SUCCESS) error = err;
  }
  for (Answer& answer : answers) {
    if (answer.request != nullptr) {
      const Status status = g_state->worker->wait(answer.request);
      if (status != Status::Ok && error == MPI_SUCCESS) error = error_class_of(status);
    }
    if (answer.ack.magic != kRmaMagic || answer.ack.kind != kind) {
      if (error == MPI_SUCCESS) error = MPI_ERR_INTERN;
    } else if (answer.ack.error != MPI_SUCCESS && error == MPI_SUCCESS) {
      error = answer.ack.error;
    }
  }
  return error;
}

}  // namespace

int served_flush(Window& win, const std::vector<int>& targets, int kind) {
  std::vector<int> asked;
  {
    OriginGuard lock(win);
    for (int target : targets) {
      if (kind != kRmaFlush || win.unflushed[static_cast<std::size_t>(target)] != 0) asked.push_back(target);
      win.unflushed[static_cast<std::size_t>(target)] = 0;
    }
  }
  int error = MPI_SUCCESS;
  if (!asked.empty()) error = round_trip(win, asked, static_cast<uint32_t>(kind));
  const int local = served_wait_local(win, targets.size() == 1 ? targets[0] : -1);
  return error != MPI_SUCCESS ? error : local;
}

int served_lock(Window& win, const std::vector<int>& targets, bool exclusive) {
  return round_trip(win, targets, exclusive ? kRmaLockExclusive : kRmaLockShared);
}

}  // namespace tern::mpi
