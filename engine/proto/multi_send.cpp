// Multi-buffer send (multi.hpp, proto/multi_wire.hpp): the headers are built
// here, small frames copied into them; larger ones are offered to the lane
// for the receiver to fetch, and the transfer waits for the receiver's
// acknowledgement before those offers are withdrawn.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <vector>

#include "core/worker_impl.hpp"
#include "proto/multi_wire.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine {
namespace {

class MultiSend final : public MultiTransfer {
 public:
  WorkerImpl* worker = nullptr;
  Endpoint* endpoint = nullptr;
  Callback callback;
  uint64_t tag = 0;
  std::size_t total_bytes = 0;
  ~MultiSend() override { release_continuation(); }

  // The chained header's memory: where the receiver maps it (the lane's
  // shared arena), so that its fetch is a plain copy and not a kernel copy
  // page by page, from the blocks held sends keep (fresh arena pages cost
  // a fault each on both sides, more than the copy); else the heap. False
  // when there is neither.
  bool allocate_continuation(std::size_t size) {
    block = worker->held_cache_.get(endpoint->iface, size);
    continuation = static_cast<std::byte*>(block.memory);
    if (continuation == nullptr) {
      block = {};
      continuation = static_cast<std::byte*>(std::malloc(size == 0 ? 1 : size));
    }
    continuation_size = continuation != nullptr ? size : 0;
    return continuation != nullptr;
  }
  void release_continuation() noexcept {
    if (continuation == nullptr) return;
    if (block.memory != nullptr) {
      worker->held_cache_.put(block);
    } else {
      std::free(continuation);
    }
    continuation = nullptr;
    continuation_size = 0;
  }

  std::vector<std::byte> header;  // the first header message
  std::byte* continuation = nullptr;  // the chained header, fetched by the receiver
  std::size_t continuation_size = 0;
  HeldCache::Block block;  // the continuation's arena block (memory null: the heap)
  std::vector<uint64_t> offers;   // the lane's offers to withdraw at the end
  bool fetched = false;           // the receiver fetches something, and acknowledges
};

Status check_frames(std::span<const SendFrame> frames) {
  if (frames.size() > kMaxMultiFrames) {
    TERN_LOG(Error, "tag_send_multi: %zu frames exceed the maximum of %zu", frames.size(), kMaxMultiFrames);
    return Status::MessageTooLong;
  }
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const SendFrame& frame = frames[i];
    if (frame.data == nullptr && frame.size != 0) {
      TERN_LOG(Error, "tag_send_multi: frame %zu has a null buffer with size %zu", i, frame.size);
      return Status::InvalidParam;
    }
    if (frame.size > kMaxMessageLength) {
      TERN_LOG(Error, "tag_send_multi: frame %zu of %zu bytes exceeds the maximum message length %zu", i, frame.size,
               kMaxMessageLength);
      return Status::MessageTooLong;
    }
    if (frame.kind != MemoryKind::Host) {
      TERN_LOG(Error, "tag_send_multi: frame %zu is device memory; this build moves host memory only", i);
      return Status::Unsupported;
    }
  }
  return Status::Ok;
}

// Lays out one header's descriptors and inline bytes into `out` (already
// sized): the `inlined` frames copied, the others offered for a fetch.
void lay_out(MultiSend& send, std::span<const SendFrame> frames, std::byte* out, const std::vector<bool>& inlined) {
  std::byte* inline_bytes = out + frames.size() * sizeof(proto::FrameDescriptor);
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const SendFrame& frame = frames[i];
    proto::FrameDescriptor descriptor{};
    descriptor.size = frame.size;
    descriptor.kind = static_cast<uint8_t>(frame.kind);
    if (inlined[i]) {
      descriptor.flags = proto::kFrameInline;
      if (frame.size != 0) std::memcpy(inline_bytes, frame.data, frame.size);
      inline_bytes += frame.size;
    } else {
      send.fetched = true;
      descriptor.address = reinterpret_cast<uint64_t>(frame.data);
      descriptor.offer_key = send.endpoint->lane->offer_zcopy(frame.data, frame.size);
      if (descriptor.offer_key != 0) send.offers.push_back(descriptor.offer_key);
    }
    std::memcpy(out + i * sizeof(descriptor), &descriptor, sizeof(descriptor));
  }
}

// Which frames of one header go inline: those below `inline_limit` while
// `room` lasts. Returns the bytes that makes.
std::size_t choose_inline(std::span<const SendFrame> frames, std::size_t inline_limit, std::size_t room,
                          std::vector<bool>& inlined) {
  inlined.assign(frames.size(), false);
  std::size_t used = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const std::size_t size = frames[i].size;
    if (size < inline_limit && size <= room - used) {
      inlined[i] = true;
      used += size;
    }
  }
  return used;
}

void withdraw_offers(MultiSend& send) {
  for (uint64_t key : send.offers) send.endpoint->own_lane->withdraw_zcopy(key);
  send.offers.clear();
}

// The transfer's last step (internal callback): the receiver has every
// frame, or the header went out and there was nothing to fetch.
void on_multi_sent(void* user_data, Status status, const TagRecvInfo&) {
  auto* send = static_cast<MultiSend*>(user_data);
  WorkerImpl& worker = *send->worker;
  withdraw_offers(*send);
  const Callback callback = send->callback;
  const TagRecvInfo info{send->tag, send->total_bytes};
  worker.multi_transfers_.finish(send);
  worker.deliver(callback, status, info);
}

// How many frames the first header describes: the longest run from the
// first (at most kFramesPerHeader) whose small frames all fit in it.
std::size_t header_run(std::span<const SendFrame> frames, std::size_t inline_limit) {
  const std::size_t most = std::min(frames.size(), proto::kFramesPerHeader);
  std::size_t room = proto::kMultiFirstInlineBytes;
  for (std::size_t i = 0; i < most; ++i) {
    const std::size_t size = frames[i].size;
    if (size >= inline_limit) continue;  // fetched wherever it is described
    if (size > room) return i;
    room -= size;
  }
  return most;
}

Status build(MultiSend& send, std::span<const SendFrame> frames) {
  // Frames below it travel inline (in a header), larger ones are fetched.
  const std::size_t inline_limit = std::min(send.endpoint->rndv_threshold, proto::kMultiInlineFrameBytes);
  const std::size_t first = header_run(frames, inline_limit);
  std::vector<bool> inlined;
  const std::size_t first_inline =
      choose_inline(frames.first(first), inline_limit, proto::kMultiFirstInlineBytes, inlined);
  proto::MultiHeader header{};
  header.magic = proto::kMultiMagic;
  header.sender_uuid = send.worker->uuid_;
  header.frame_count = frames.size();
  header.header_frames = first;
  try {
    send.header.resize(sizeof(header) + first * sizeof(proto::FrameDescriptor) + first_inline);
    lay_out(send, frames.first(first), send.header.data() + sizeof(header), inlined);
    if (frames.size() > first) {
      const auto rest = frames.subspan(first);
      const std::size_t rest_inline =
          choose_inline(rest, inline_limit, proto::kMultiContinuationInlineBytes, inlined);
      if (!send.allocate_continuation(rest.size() * sizeof(proto::FrameDescriptor) + rest_inline)) {
        throw std::bad_alloc();
      }
      lay_out(send, rest, send.continuation, inlined);
      send.fetched = true;
      header.continuation_address = reinterpret_cast<uint64_t>(send.continuation);
      header.continuation_length = send.continuation_size;
      header.continuation_key = send.endpoint->lane->offer_zcopy(send.continuation, send.continuation_size);
      if (header.continuation_key != 0) send.offers.push_back(header.continuation_key);
    }
  } catch (const std::bad_alloc&) {
    withdraw_offers(send);
    TERN_LOG(Error, "tag_send_multi: no memory for the headers of %zu frames", frames.size());
    return Status::NoMemory;
  }
  std::memcpy(send.header.data(), &header, sizeof(header));
  for (const SendFrame& frame : frames) send.total_bytes += frame.size;
  return Status::Ok;
}

}  // namespace

Status Worker::tag_send_multi(Endpoint* endpoint, std::span<const SendFrame> frames, uint64_t tag,
                              const Callback& callback) {
  if (!check_callback("tag_send_multi", callback)) return Status::InvalidParam;
  if (frames.data() == nullptr && !frames.empty()) {
    TERN_LOG(Error, "tag_send_multi: null frame list with %zu frames", frames.size());
    return Status::InvalidParam;
  }
  if (Status s = check_frames(frames); s != Status::Ok) return s;
  WorkerImpl::Guard guard(*impl_);
  WorkerImpl& worker = *impl_;
  if (!worker.owns(endpoint)) {
    TERN_LOG(Error, "tag_send_multi: unknown endpoint %p", static_cast<const void*>(endpoint));
    return Status::InvalidParam;
  }
  if (endpoint->failure != Status::Ok) return endpoint->failure;
  std::unique_ptr<MultiSend> owned(new (std::nothrow) MultiSend);
  if (!owned) return Status::NoMemory;
  MultiSend& send = *owned;
  send.worker = &worker;
  send.endpoint = endpoint;
  send.callback = callback;
  send.tag = tag;
  if (Status s = build(send, frames); s != Status::Ok) return s;

  // The transfer's request waits for the receiver's acknowledgement, named
  // in the header; it is attached its callback only once the header is out.
  RequestImpl* transfer = nullptr;
  CallbackSlot* slot = worker.new_callback_slot(Callback{&on_multi_sent, &send}, true);
  if (slot == nullptr) {
    withdraw_offers(send);
    return Status::NoMemory;
  }
  if (send.fetched) {
    transfer = worker.new_request(RequestKind::Send);
    if (transfer == nullptr) {
      worker.recycle_slot(slot);
      withdraw_offers(send);
      return Status::NoMemory;
    }
    transfer->endpoint = endpoint;
    transfer->tag = tag;
    transfer->length = send.total_bytes;
    transfer->protocol = SendProtocol::Rendezvous;
    transfer->ack_id = worker.acks_.add(transfer);
    std::memcpy(send.header.data() + offsetof(proto::MultiHeader, ack_id), &transfer->ack_id, sizeof(uint64_t));
  }
  Request* header_request = nullptr;
  const Status sent = worker.tag_send_nb(endpoint, send.header.data(), send.header.size(), tag, header_request, 0);
  if (sent != Status::Ok && sent != Status::InProgress) {
    if (transfer != nullptr) {
      worker.acks_.remove(transfer->ack_id);
      worker.requests_.put(transfer);
    }
    worker.recycle_slot(slot);
    withdraw_offers(send);
    return sent;
  }
  if (transfer == nullptr && sent == Status::Ok) {
    worker.recycle_slot(slot);  // every frame went out inside the header
    return Status::Ok;
  }
  worker.multi_transfers_.adopt(std::move(owned));
  if (transfer != nullptr) {
    // The header's bytes live as long as the transfer, which ends after the
    // receiver has read them.
    if (header_request != nullptr) worker.release(RequestImpl::from(header_request));
    worker.attach_slot(transfer, slot);
  } else {
    worker.attach_slot(RequestImpl::from(header_request), slot);
  }
  return Status::InProgress;
}

}  // namespace tern::engine
