// A served window's agent: applies the requests origins send (protocol.hpp)
// to this rank's window memory, answers gets, flushes and locks.
#include "win/agent.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>

#include "tern/runtime/log.hpp"
#include "win/buffer_pool.hpp"

namespace tern::mpi {
namespace {

// A separate request's second message on its way: what to do once it lands.
struct DataArrival {
  Agent* agent;
  RmaHeader header;
  int source;
  std::byte* temp;  // null: received straight into the window
  bool discard;     // refused: only taken off the wire
};

void free_owned(void* owned, Status, const engine::TagRecvInfo&) { std::free(owned); }
void release_pooled(void* block, Status, const engine::TagRecvInfo&) { temp_release(block, kPooledBytes); }
void nothing(void*, Status, const engine::TagRecvInfo&) {}

}  // namespace

Agent::Agent(Window& win)
    : win_(win),
      buffer_(kBatchBytes / sizeof(uint64_t)),
      pending_data_(static_cast<std::size_t>(win.size), 0),
      held_(static_cast<std::size_t>(win.size)),
      errors_(static_cast<std::size_t>(win.size), MPI_SUCCESS) {}

int Agent::start() {
  post();
  return MPI_SUCCESS;
}

void Agent::stop() {
  Comm& comm = window_comm(win_);
  RmaHeader header;
  header.kind = kRmaShutdown;
  header.origin = win_.rank;
  engine::Endpoint* self = comm_endpoint(comm, win_.rank);
  const uint64_t tag = make_tag(comm.context, static_cast<unsigned>(win_.rank), kTagRequest);
  if (self == nullptr || g_state->worker->tag_send(self, &header, sizeof(header), tag) != Status::Ok) {
    TERN_LOG(Error, "mpi: MPI_Win_free: cannot stop serving the window");
    return;
  }
  progress_until([&] { return stopped_.load(std::memory_order_acquire); });
}

void Agent::post() {
  Comm& comm = window_comm(win_);
  const uint64_t tag = make_tag(comm.context, 0, kTagRequest);
  const uint64_t mask = ~kSourceBits;
  while (!stopping_) {
    engine::TagRecvInfo info{};
    const Status status = g_state->worker->tag_recv_nb(buffer_.data(), kBatchBytes, tag, mask,
                                                       engine::Callback{&Agent::on_request, this}, &info);
    if (status == Status::InProgress) return;
    if (status != Status::Ok) {
      TERN_LOG(Error, "mpi: a window's target cannot receive requests: %s", to_string(status));
      return;
    }
    handle(reinterpret_cast<const std::byte*>(buffer_.data()), info.length, tag_source(info.sender_tag));
  }
  stopped_.store(true, std::memory_order_release);
}

void Agent::on_request(void* context, Status status, const engine::TagRecvInfo& info) {
  auto* agent = static_cast<Agent*>(context);
  if (status == Status::Ok) {
    agent->handle(reinterpret_cast<const std::byte*>(agent->buffer_.data()), info.length,
                  tag_source(info.sender_tag));
  } else {
    TERN_LOG(Error, "mpi: a window's request from rank %d failed: %s", tag_source(info.sender_tag),
             to_string(status));
  }
  agent->post();
}

void Agent::refuse(int source, int error_class, const char* format, ...) {
  char detail[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  TERN_LOG(Warn, "mpi: window on rank %d: refused a request of rank %d: %s", win_.rank, source, detail);
  if (errors_[static_cast<std::size_t>(source)] == MPI_SUCCESS) errors_[static_cast<std::size_t>(source)] = error_class;
}

void Agent::handle(const std::byte* message, std::size_t length, int source) {
  if (source < 0 || source >= win_.size) {
    TERN_LOG(Warn, "mpi: window on rank %d: a request names no rank of the window (%d)", win_.rank, source);
    return;
  }
  JointReply joint;
  handle_requests(message, length, source, joint);
  // Sent even when a request was refused halfway: the origin waits for it,
  // and a short reply fails its receive instead of leaving it waiting.
  if (joint.count == 1 && joint.data == nullptr) {
    send_reply(source, joint.first, joint.size, joint.first_owned);
  } else if (joint.count != 0) {
    send_reply(source, joint.data, joint.size, joint.data, nullptr, joint.capacity);
  }
}

void Agent::handle_requests(const std::byte* message, std::size_t length, int source, JointReply& joint) {
  // A message holds one request or a batch of whole ones, one after another.
  const auto origin = static_cast<std::size_t>(source);
  std::size_t offset = 0;
  while (offset < length) {
    if (pending_data_[origin] > 0) {
      // Its separate data is still arriving: keep MPI's order of one origin's operations.
      held_[origin].emplace_back(message + offset, message + length);
      return;
    }
    RmaHeader header;
    if (length - offset < sizeof(header)) {
      return refuse(source, MPI_ERR_INTERN, "%zu bytes after its last request", length - offset);
    }
    std::memcpy(&header, message + offset, sizeof(header));
    if (header.blocks > (uint64_t{1} << 32) / sizeof(RmaBlock) || header.data_bytes > engine::kMaxMessageLength ||
        request_bytes(header) > length - offset) {
      return refuse(source, MPI_ERR_INTERN, "a request longer (%llu bytes) than what is left of its message",
                    static_cast<unsigned long long>(request_bytes(header)));
    }
    const std::size_t one = request_bytes(header);
    handle_one(header, message + offset, source, joint);
    offset += one;
  }
}

void Agent::handle_one(const RmaHeader& header, const std::byte* message, int source, JointReply& joint) {
  if (header.magic != kRmaMagic || header.origin != source || header.kind < kRmaPut || header.kind > kRmaShutdown) {
    return refuse(source, MPI_ERR_INTERN, "a malformed request (kind %u)", header.kind);
  }
  if (header.kind == kRmaShutdown) {
    if (source == win_.rank) stopping_ = true;
    return;
  }
  const bool separate = (header.flags & kSeparate) != 0;
  const std::size_t layout = std::size_t{header.blocks} * sizeof(RmaBlock);
  const bool carries_data = header.kind != kRmaGet && header.kind < kRmaFlush;
  if (!separate || header.kind >= kRmaFlush) {
    return apply(header, message + sizeof(header), source, (header.flags & kReplyAlone) != 0 ? nullptr : &joint);
  }

  // The layout and data follow on kTagData: into the window itself for a
  // contiguous put, else into a temporary buffer.
  const std::size_t second = layout + (carries_data ? header.data_bytes : 0);
  std::byte* into = nullptr;
  std::byte* temp = nullptr;
  bool discard = false;
  if (header.kind == kRmaPut && header.blocks == 0) into = resolve(header.address, header.data_bytes, source);
  if (into == nullptr) {
    // A temporary buffer, also for data refused already: its message must
    // still be taken, or it would meet the receive of the next one.
    discard = header.kind == kRmaPut && header.blocks == 0;
    temp = static_cast<std::byte*>(std::malloc(second == 0 ? 1 : second));
    if (temp == nullptr) return refuse(source, MPI_ERR_NO_MEM, "no memory for %zu bytes", second);
    into = temp;
  }
  auto* arrival = new DataArrival{this, header, source, temp, discard};
  Comm& comm = window_comm(win_);
  const uint64_t tag = make_tag(comm.context, static_cast<unsigned>(source), kTagData);
  engine::TagRecvInfo info{};
  ++pending_data_[static_cast<std::size_t>(source)];
  const Status status =
      g_state->worker->tag_recv_nb(into, second, tag, engine::kTagMaskAll, engine::Callback{&Agent::on_data, arrival}, &info);
  if (status != Status::InProgress) on_data(arrival, status, info);
}

void Agent::on_data(void* context, Status status, const engine::TagRecvInfo&) {
  auto* arrival = static_cast<DataArrival*>(context);
  Agent& agent = *arrival->agent;
  if (status != Status::Ok) {
    agent.refuse(arrival->source, MPI_ERR_OTHER, "its data did not arrive: %s", to_string(status));
  } else if (arrival->temp != nullptr && !arrival->discard) {
    agent.apply(arrival->header, arrival->temp, arrival->source, nullptr);
  }
  std::free(arrival->temp);
  const int source = arrival->source;
  delete arrival;
  --agent.pending_data_[static_cast<std::size_t>(source)];
  agent.drain(source);
}

void Agent::drain(int origin) {
  auto& held = held_[static_cast<std::size_t>(origin)];
  while (!held.empty() && pending_data_[static_cast<std::size_t>(origin)] == 0) {
    std::vector<std::byte> message = std::move(held.front());
    held.pop_front();
    handle(message.data(), message.size(), origin);
  }
}

std::byte* Agent::resolve(uint64_t address, uint64_t span, int source) {
  if (win_.flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    std::lock_guard<std::mutex> lock(win_.attached_mutex);
    for (const auto& [base, size] : win_.attached) {
      if (address >= base && address - base <= size && span <= size - (address - base)) {
        return reinterpret_cast<std::byte*>(address);
      }
    }
  } else {
    const auto base = reinterpret_cast<uint64_t>(win_.base);
    const auto size = static_cast<uint64_t>(win_.bytes);
    if (address >= base && address - base <= size && span <= size - (address - base)) {
      return static_cast<std::byte*>(win_.base) + (address - base);
    }
  }
  refuse(source, MPI_ERR_RMA_RANGE, "%llu bytes at %#llx lie outside the window%s",
         static_cast<unsigned long long>(span), static_cast<unsigned long long>(address),
         win_.flavor == MPI_WIN_FLAVOR_DYNAMIC ? " (no memory attached there)" : "");
  return nullptr;
}

void Agent::apply(const RmaHeader& header, const std::byte* body, int source, JointReply* joint) {
  switch (header.kind) {
    case kRmaFlush:
      return send_ack(source, header.kind);
    case kRmaLockShared:
    case kRmaLockExclusive:
      lock_waiters_.emplace_back(source, header.kind == kRmaLockExclusive);
      return grant_waiting();
    case kRmaUnlock:
      if (exclusive_held_) {
        exclusive_held_ = false;
      } else if (shared_holders_ > 0) {
        --shared_holders_;
      }
      send_ack(source, header.kind);
      return grant_waiting();
    default:
      break;
  }
  // Data operations: the layout, checked against the span, then the data.
  std::vector<RmaBlock> listed(header.blocks);  // none (no allocation) for a contiguous target
  if (!listed.empty()) std::memcpy(listed.data(), body, listed.size() * sizeof(RmaBlock));
  const std::byte* data = body + listed.size() * sizeof(RmaBlock);
  uint64_t layout_bytes = 0;
  for (const RmaBlock& block : listed) {
    if (block.offset > header.span || block.length > header.span - block.offset) {
      return refuse(source, MPI_ERR_INTERN, "a layout block beyond the request's span");
    }
    layout_bytes += block.length;
  }
  const uint64_t touched = listed.empty() ? header.span : layout_bytes;
  const RmaBlock whole{0, header.span};
  const std::span<const RmaBlock> blocks =
      listed.empty() ? std::span<const RmaBlock>(&whole, 1) : std::span<const RmaBlock>(listed);
  const bool accumulate = header.kind == kRmaAccumulate || header.kind == kRmaGetAccumulate ||
                          header.kind == kRmaCompareSwap;
  std::size_t element = 1;
  if (accumulate) {
    const TypeInfo* basic = find_type(header.basic);
    if (basic == nullptr || (header.kind != kRmaCompareSwap && !accumulate_op_valid(header.op, header.basic))) {
      return refuse(source, MPI_ERR_OP, "an accumulate with operation %d on type %d", header.op, header.basic);
    }
    element = basic->size;
    for (const RmaBlock& block : blocks) {
      if (block.length % element != 0) return refuse(source, MPI_ERR_TYPE, "a layout block of partial elements");
    }
  }
  uint64_t expected_data = touched;
  if (header.kind == kRmaGet || (header.kind == kRmaGetAccumulate && header.op == MPI_NO_OP)) expected_data = 0;
  if (header.kind == kRmaCompareSwap) expected_data = 2 * element;
  if (header.data_bytes != expected_data || (header.kind == kRmaCompareSwap && touched != element)) {
    return refuse(source, MPI_ERR_TYPE, "%llu bytes of data for %llu bytes of window",
                  static_cast<unsigned long long>(header.data_bytes), static_cast<unsigned long long>(touched));
  }
  std::byte* target = resolve(header.address, header.span, source);
  if (target == nullptr) {
    // The origin waits for a reply: answer with what it would have read, zeros.
    if (header.kind == kRmaGet || header.kind == kRmaGetAccumulate || header.kind == kRmaCompareSwap) {
      void* zeros = std::calloc(touched == 0 ? 1 : touched, 1);
      send_reply(source, zeros, header.kind == kRmaCompareSwap ? element : touched, zeros, joint);
    }
    return;
  }
  switch (header.kind) {
    case kRmaPut: {
      std::size_t done = 0;
      for (const RmaBlock& block : blocks) {
        std::memcpy(target + block.offset, data + done, block.length);
        done += block.length;
      }
      return;
    }
    case kRmaGet: {
      if (blocks.size() == 1 || joint != nullptr) {
        for (const RmaBlock& block : blocks) send_reply(source, target + block.offset, block.length, nullptr, joint);
        return;
      }
      auto* packed = static_cast<std::byte*>(std::malloc(touched));
      if (packed == nullptr) return refuse(source, MPI_ERR_NO_MEM, "no memory for %llu bytes", static_cast<unsigned long long>(touched));
      std::size_t done = 0;
      for (const RmaBlock& block : blocks) {
        std::memcpy(packed + done, target + block.offset, block.length);
        done += block.length;
      }
      return send_reply(source, packed, touched, packed, joint);
    }
    case kRmaCompareSwap: {
      auto* old = static_cast<std::byte*>(std::malloc(element));
      if (old == nullptr) return refuse(source, MPI_ERR_NO_MEM, "no memory");
      compare_and_swap_element(element, data, data + element, target + blocks[0].offset, old);
      return send_reply(source, old, element, old, joint);
    }
    default: {
      const bool fetch = header.kind == kRmaGetAccumulate;
      std::byte* old = nullptr;
      if (fetch && (old = static_cast<std::byte*>(std::malloc(touched))) == nullptr) {
        return refuse(source, MPI_ERR_NO_MEM, "no memory for %llu bytes", static_cast<unsigned long long>(touched));
      }
      std::size_t done = 0;
      const bool no_input = header.op == MPI_NO_OP;
      for (const RmaBlock& block : blocks) {
        accumulate_elements(header.op, header.basic, no_input ? nullptr : data + done, target + block.offset,
                            block.length / element, old != nullptr ? old + done : nullptr);
        done += block.length;
      }
      if (fetch) send_reply(source, old, touched, old, joint);
      return;
    }
  }
}

void Agent::grant_waiting() {
  while (!lock_waiters_.empty()) {
    const auto [origin, exclusive] = lock_waiters_.front();
    if (exclusive_held_ || (exclusive && shared_holders_ > 0)) return;
    lock_waiters_.pop_front();
    if (exclusive) {
      exclusive_held_ = true;
    } else {
      ++shared_holders_;
    }
    send_ack(origin, exclusive ? kRmaLockExclusive : kRmaLockShared);
  }
}

void Agent::send_ack(int origin, uint32_t kind) {
  auto* ack = static_cast<RmaAck*>(std::malloc(sizeof(RmaAck)));
  if (ack == nullptr) {
    TERN_LOG(Error, "mpi: window on rank %d: no memory to answer rank %d", win_.rank, origin);
    return;
  }
  *ack = RmaAck{};
  ack->kind = kind;
  ack->error = errors_[static_cast<std::size_t>(origin)];
  errors_[static_cast<std::size_t>(origin)] = MPI_SUCCESS;
  Comm& comm = window_comm(win_);
  engine::Endpoint* endpoint = comm_endpoint(comm, origin);
  const uint64_t tag = make_tag(comm.context, static_cast<unsigned>(win_.rank), kTagAck);
  const Status status = endpoint == nullptr ? Status::Unreachable
                                            : g_state->worker->tag_send_nb(endpoint, ack, sizeof(RmaAck), tag,
                                                                           engine::Callback{&free_owned, ack});
  if (status != Status::InProgress) std::free(ack);
  if (status != Status::Ok && status != Status::InProgress) {
    TERN_LOG(Error, "mpi: window on rank %d: cannot answer rank %d: %s", win_.rank, origin, to_string(status));
  }
}

void Agent::send_reply(int origin, const void* data, std::size_t bytes, void* owned, JointReply* joint,
                       std::size_t pooled_bytes) {
  if (joint != nullptr) {
    // The first reply is only noted: alone, it leaves from where it is (a
    // get's, from the window itself), as a copy would cost page faults.
    if (joint->count++ == 0) {
      joint->first = static_cast<const std::byte*>(data);
      joint->first_owned = owned;
      joint->size = bytes;
      return;
    }
    if (joint->data == nullptr || joint->size + bytes > joint->capacity) {
      // A pooled block (buffer_pool.hpp) holds an honest origin's joint reply.
      const std::size_t needed = joint->size + bytes;
      const std::size_t capacity = needed <= kPooledBytes ? kPooledBytes : std::max(needed, 2 * joint->capacity);
      std::byte* grown = temp_get(capacity);
      if (grown == nullptr) {
        std::free(owned);
        return refuse(origin, MPI_ERR_NO_MEM, "no memory for a reply of %zu bytes", needed);
      }
      if (joint->data == nullptr) {
        if (joint->size != 0) std::memcpy(grown, joint->first, joint->size);
        std::free(joint->first_owned);
        joint->first_owned = nullptr;
      } else {
        std::memcpy(grown, joint->data, joint->size);
        temp_release(joint->data, joint->capacity);
      }
      joint->data = grown;
      joint->capacity = capacity;
    }
    if (bytes != 0) std::memcpy(joint->data + joint->size, data, bytes);
    joint->size += bytes;
    std::free(owned);
    return;
  }
  Comm& comm = window_comm(win_);
  engine::Endpoint* endpoint = comm_endpoint(comm, origin);
  const uint64_t tag = make_tag(comm.context, static_cast<unsigned>(win_.rank), kTagReply);
  engine::Callback done{&nothing, nullptr};
  if (owned != nullptr) {
    done = pooled_bytes != 0 ? engine::Callback{pooled_bytes == kPooledBytes ? &release_pooled : &free_owned, owned}
                             : engine::Callback{&free_owned, owned};
  }
  const Status status =
      endpoint == nullptr ? Status::Unreachable : g_state->worker->tag_send_nb(endpoint, data, bytes, tag, done);
  if (status != Status::InProgress) {
    if (pooled_bytes != 0) {
      temp_release(owned, pooled_bytes);
    } else {
      std::free(owned);
    }
  }
  if (status != Status::Ok && status != Status::InProgress) {
    TERN_LOG(Error, "mpi: window on rank %d: cannot answer rank %d: %s", win_.rank, origin, to_string(status));
  }
}

}  // namespace tern::mpi
