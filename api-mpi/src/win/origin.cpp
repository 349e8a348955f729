// The origin side of served windows: operations become requests to the
// target's agent (protocol.hpp), and the synchronization calls wait for
// their local completion and for the agent's answers.
#include <cstdlib>
#include <cstring>

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
// owns `temp` until the send is done.
int send_to(Window& win, int target, unsigned tag_value, const void* data, std::size_t bytes, void* temp) {
  Comm& comm = window_comm(win);
  engine::Endpoint* endpoint = comm_endpoint(comm, target);
  if (endpoint == nullptr) {
    std::free(temp);
    return MPI_ERR_OTHER;
  }
  engine::Request* request = nullptr;
  const uint64_t tag = make_tag(comm.context, static_cast<unsigned>(win.rank), tag_value);
  const Status status = g_state->worker->tag_send_nb(endpoint, data, bytes, tag, request);
  if (status == Status::InProgress) {
    OriginGuard lock(win);
    win.pending.push_back(PendingOp{request, target, temp, nullptr, nullptr, 0, 0});
    return MPI_SUCCESS;
  }
  std::free(temp);
  return error_class_of(status);
}

// Posts the receive of a reply from `target`: into `into`, or into a
// temporary unpacked with `type` into `user` at completion.
int expect_reply(Window& win, int target, void* user, std::size_t count, const DerivedType* type,
                 const std::shared_ptr<const DerivedType>& hold, std::size_t bytes) {
  Comm& comm = window_comm(win);
  PendingOp op{nullptr, target, nullptr, nullptr, nullptr, 0, 0};
  void* into = user;
  if (!type->contiguous) {
    op.temp = std::malloc(bytes == 0 ? 1 : bytes);
    if (op.temp == nullptr) return MPI_ERR_NO_MEM;
    op.unpack_type = hold;  // a derived type: predefined ones are contiguous
    op.unpack_into = user;
    op.unpack_count = count;
    op.unpack_bytes = bytes;
    into = op.temp;
  }
  const uint64_t tag = make_tag(comm.context, static_cast<unsigned>(target), kTagReply);
  const Status status = g_state->worker->tag_recv_nb(into, bytes, tag, engine::kTagMaskAll, op.request);
  if (status != Status::Ok && status != Status::InProgress) {
    std::free(op.temp);
    return error_class_of(status);
  }
  if (status == Status::Ok) {
    if (op.unpack_type != nullptr) unpack_data(*op.unpack_type, op.temp, bytes, user, count);
    std::free(op.temp);
    return MPI_SUCCESS;
  }
  OriginGuard lock(win);
  win.pending.push_back(std::move(op));
  return MPI_SUCCESS;
}

int finish(PendingOp& op) {
  const Status status = g_state->worker->wait(op.request);
  if (status == Status::Ok && op.unpack_type != nullptr) {
    unpack_data(*op.unpack_type, op.temp, op.unpack_bytes, op.unpack_into, op.unpack_count);
  }
  std::free(op.temp);
  return error_class_of(status);
}

// Sends what waits in `target`'s batch; the send takes the buffer over.
int send_batch(Window& win, int target) {
  Window::Batch out;
  {
    OriginGuard lock(win);
    Window::Batch& batch = win.batches[static_cast<std::size_t>(target)];
    if (batch.size == 0) return MPI_SUCCESS;
    out = batch;
    batch = Window::Batch{};
  }
  return send_to(win, target, kTagRequest, out.data, out.size, out.data);
}

// Room for a whole request of `bytes` at the end of `target`'s batch,
// written by `fill` under the lock; a batch without that room goes first.
template <typename Fill>
int queue_request(Window& win, int target, std::size_t bytes, Fill&& fill) {
  Window::Batch full;
  {
    OriginGuard lock(win);
    Window::Batch& batch = win.batches[static_cast<std::size_t>(target)];
    if (batch.size + bytes > kBatchBytes) {
      full = batch;
      batch = Window::Batch{};
    }
    if (batch.data == nullptr) {
      batch.data = static_cast<std::byte*>(std::malloc(kBatchBytes));
      if (batch.data == nullptr) return MPI_ERR_NO_MEM;
    }
    fill(batch.data + batch.size);
    batch.size += bytes;
  }
  return full.size == 0 ? MPI_SUCCESS : send_to(win, target, kTagRequest, full.data, full.size, full.data);
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

  // Replies are posted before the request leaves.
  if (call.kind == kRmaGet) {
    if (int err = expect_reply(win, call.target, const_cast<void*>(call.origin), call.origin_count, call.origin_type,
                               call.origin_hold, call.bytes);
        err != MPI_SUCCESS) {
      return err;
    }
  } else if (call.kind == kRmaGetAccumulate || call.kind == kRmaCompareSwap) {
    const std::size_t bytes = call.kind == kRmaCompareSwap ? element : call.bytes;
    if (int err = expect_reply(win, call.target, call.result, call.result_count, call.result_type, call.result_hold,
                               bytes);
        err != MPI_SUCCESS) {
      return err;
    }
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
    return queue_request(win, call.target, total, [&](std::byte* at) {
      write(at, true);
      if (puts_data) win.unflushed[static_cast<std::size_t>(call.target)] = 1;
    });
  }

  // Separate: the header alone, then the layout and data (the origin buffer
  // itself when it is all there is and contiguous), after what waits.
  header.flags |= kSeparate;
  if (int err = send_batch(win, call.target); err != MPI_SUCCESS) return err;
  auto* message = static_cast<std::byte*>(std::malloc(sizeof(header)));
  if (message == nullptr) return MPI_ERR_NO_MEM;
  std::memcpy(message, &header, sizeof(header));
  const void* second = nullptr;
  std::byte* second_temp = nullptr;
  const bool direct_data = layout == 0 && (!carries_data || call.origin_type->contiguous);
  if (direct_data) {
    second = carries_data ? call.origin : nullptr;
  } else {
    second_temp = static_cast<std::byte*>(std::malloc(layout + header.data_bytes));
    if (second_temp == nullptr) {
      std::free(message);
      return MPI_ERR_NO_MEM;
    }
    write(second_temp, false);
    second = second_temp;
  }
  if (int err = send_to(win, call.target, kTagRequest, message, sizeof(header), message); err != MPI_SUCCESS) {
    std::free(second_temp);
    return err;
  }
  if (int err = send_to(win, call.target, kTagData, second, layout + header.data_bytes, second_temp);
      err != MPI_SUCCESS) {
    return err;
  }
  if (puts_data) {
    OriginGuard lock(win);
    win.unflushed[static_cast<std::size_t>(call.target)] = 1;
  }
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
    int err = queue_request(win, targets[i], sizeof(header),
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
