// Multi-buffer receive (multi.hpp, proto/multi_wire.hpp): an ordinary
// receive takes the first header; each frame it describes is allocated
// through the caller's allocator and either copied out of the header or
// fetched from the sender; the chained header, if any, is fetched the same
// way and read once it is in. The receive ends when every fetch has.
#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

#include "core/worker_impl.hpp"
#include "proto/multi_wire.hpp"
#include "tern/runtime/log.hpp"

namespace tern::engine {
namespace {

class MultiRecv;

// The fetches of one phase (the first header's frames and the chained
// header; then the chained header's frames) share one completion.
struct Fetches {
  transport::Completion completion;  // first: Fetches is reached from it
  MultiRecv* owner = nullptr;
};

class MultiRecv final : public MultiTransfer {
 public:
  MultiRecv(WorkerImpl& owner, const FrameAllocator& frame_allocator, std::vector<RecvFrame>& out)
      : worker(owner), allocator(frame_allocator), frames(out), header(proto::kMultiHeaderMessageBytes) {
    fetches.owner = this;
  }

  void on_header(Status status, const TagRecvInfo& info);
  void on_fetches_done();

  WorkerImpl& worker;
  FrameAllocator allocator;
  std::vector<RecvFrame>& frames;
  CallbackSlot* done = nullptr;  // the caller's callback, taken when posted
  std::vector<std::byte> header;
  std::vector<std::byte> continuation;
  bool continuation_read = false;
  std::size_t header_frames = 0;  // described by the first header
  Endpoint* sender = nullptr;
  uint64_t ack_id = 0;
  uint64_t sender_tag = 0;
  std::size_t total_bytes = 0;
  Status failure = Status::Ok;
  Fetches fetches;

 private:
  void start_phase() {
    fetches.completion.callback = [](transport::Completion* completion) {
      reinterpret_cast<Fetches*>(completion)->owner->on_fetches_done();
    };
    fetches.completion.status = Status::Ok;
    fetches.completion.count = 1;  // held until every fetch of the phase is issued
  }
  void end_phase() { fetches.completion.finish_one(Status::Ok); }
  void fetch(void* into, std::size_t size, uint64_t address, uint64_t key);
  // Allocates and fills (or fetches) `count` frames from `first_index`,
  // described at `descriptors`, with their inline bytes in `inline_bytes`.
  // False (failure set) when the descriptors do not add up.
  bool place_frames(const std::byte* descriptors, std::size_t first_index, std::size_t count,
                    std::span<const std::byte> inline_bytes);
  bool malformed(const char* why, std::size_t length);
  void finish();
};

bool MultiRecv::malformed(const char* why, std::size_t length) {
  TERN_LOG(Error, "tag_recv_multi: %s", why);
  (void)worker.reject(sender, "multi-buffer header", length);
  if (failure == Status::Ok) failure = Status::IoError;
  return false;
}

void MultiRecv::fetch(void* into, std::size_t size, uint64_t address, uint64_t key) {
  ++fetches.completion.count;
  const Status status = sender->lane->get_zcopy(into, size, {address, key}, &fetches.completion);
  if (status != Status::InProgress) fetches.completion.finish_one(status);
}

bool MultiRecv::place_frames(const std::byte* descriptors, std::size_t first_index, std::size_t count,
                             std::span<const std::byte> inline_bytes) {
  std::size_t inline_used = 0;
  for (std::size_t i = 0; i < count && failure == Status::Ok; ++i) {
    proto::FrameDescriptor descriptor;
    std::memcpy(&descriptor, descriptors + i * sizeof(descriptor), sizeof(descriptor));
    const bool is_inline = (descriptor.flags & proto::kFrameInline) != 0;
    if (descriptor.size > kMaxMessageLength || (descriptor.flags & ~uint32_t{proto::kFrameInline}) != 0 ||
        descriptor.kind > static_cast<uint8_t>(MemoryKind::Device) ||
        (is_inline && descriptor.size > inline_bytes.size() - inline_used) ||
        (!is_inline && descriptor.address == 0 && descriptor.size != 0) || (!is_inline && ack_id == 0)) {
      return malformed("a frame descriptor does not fit its header", inline_bytes.size());
    }
    const auto size = static_cast<std::size_t>(descriptor.size);
    const auto kind = static_cast<MemoryKind>(descriptor.kind);
    if (kind != MemoryKind::Host) {
      TERN_LOG(Error, "tag_recv_multi: frame %zu is device memory; this build moves host memory only",
               first_index + i);
      failure = Status::Unsupported;
      break;
    }
    void* data = allocator.allocate(allocator.user_data, size, kind);
    if (data == nullptr && size != 0) {
      TERN_LOG(Error, "tag_recv_multi: the allocator gave no memory for frame %zu (%zu bytes)", first_index + i, size);
      failure = Status::NoMemory;
      break;
    }
    frames[first_index + i] = {data, size, kind};
    total_bytes += size;
    if (is_inline) {
      if (size != 0) std::memcpy(data, inline_bytes.data() + inline_used, size);
      inline_used += size;
    } else if (size != 0) {
      fetch(data, size, descriptor.address, descriptor.offer_key);
    }
  }
  if (failure == Status::Ok && inline_used != inline_bytes.size()) {
    return malformed("inline bytes left over after the frames", inline_bytes.size());
  }
  return failure == Status::Ok;
}

void MultiRecv::on_header(Status status, const TagRecvInfo& info) {
  sender_tag = info.sender_tag;
  const std::size_t length = info.length;
  proto::MultiHeader h{};
  if (status == Status::Ok && length >= sizeof(h)) std::memcpy(&h, header.data(), sizeof(h));
  if (status != Status::Ok || length < sizeof(h) || h.magic != proto::kMultiMagic) {
    // A plain message the receive matched: the caller mixed up its tags.
    TERN_LOG(Error, "tag_recv_multi: the message matched (tag %#llx, %zu bytes) is not a multi-buffer transfer",
             static_cast<unsigned long long>(sender_tag), length);
    failure = status == Status::Ok || status == Status::Truncated ? Status::InvalidParam : status;
    return finish();
  }
  sender = worker.find_endpoint(h.sender_uuid);
  if (sender == nullptr) {
    (void)worker.reject_unknown(h.sender_uuid, "multi-buffer header", length);
    failure = Status::IoError;
    return finish();
  }
  if (sender->failure != Status::Ok) {
    failure = sender->failure;
    return finish();
  }
  ack_id = h.ack_id;
  const std::size_t most = std::min<uint64_t>(h.frame_count, proto::kFramesPerHeader);
  const std::size_t first = std::min<uint64_t>(h.header_frames, most);
  const std::size_t descriptors = first * sizeof(proto::FrameDescriptor);
  const std::size_t rest = h.frame_count > first ? h.frame_count - first : 0;
  const bool chained_fits = rest == 0 ? h.continuation_length == 0
                                      : h.continuation_length >= rest * sizeof(proto::FrameDescriptor) &&
                                            h.continuation_length - rest * sizeof(proto::FrameDescriptor) <=
                                                proto::kMultiContinuationInlineBytes &&
                                            h.continuation_address != 0 && ack_id != 0;
  if (h.frame_count > kMaxMultiFrames || h.header_frames != first || length < sizeof(h) + descriptors ||
      !chained_fits) {
    (void)malformed("the header's frame count or chained header does not add up", length);
    return finish();
  }
  header_frames = first;
  try {
    frames.resize(h.frame_count);
    continuation = worker.multi_transfers_.take_buffer();
    continuation.resize(h.continuation_length);
  } catch (const std::bad_alloc&) {
    TERN_LOG(Error, "tag_recv_multi: no memory to describe %llu frames",
             static_cast<unsigned long long>(h.frame_count));
    failure = Status::NoMemory;
    return finish();
  }
  start_phase();
  const std::byte* body = header.data() + sizeof(h);
  if (place_frames(body, 0, first, {body + descriptors, length - sizeof(h) - descriptors}) && !continuation.empty()) {
    fetch(continuation.data(), continuation.size(), h.continuation_address, h.continuation_key);
  }
  end_phase();
}

void MultiRecv::on_fetches_done() {
  if (fetches.completion.status != Status::Ok && failure == Status::Ok) {
    TERN_LOG(Error, "tag_recv_multi: fetching frames from %s failed: %s", worker.peer_label(sender).c_str(),
             to_string(fetches.completion.status));
    failure = fetches.completion.status;
  }
  if (failure == Status::Ok && !continuation.empty() && !continuation_read) {
    continuation_read = true;
    const std::size_t rest = frames.size() - header_frames;
    const std::size_t descriptors = rest * sizeof(proto::FrameDescriptor);
    start_phase();
    (void)place_frames(continuation.data(), header_frames, rest,
                       {continuation.data() + descriptors, continuation.size() - descriptors});
    return end_phase();
  }
  finish();
}

// Acknowledges (so that the sender may let go of its buffers, also after a
// failure here), queues the caller's callback, and frees the receive.
void MultiRecv::finish() {
  if (ack_id != 0 && sender != nullptr && sender->failure == Status::Ok) worker.send_ack(sender, ack_id);
  worker.post_slot(done, failure, {sender_tag, total_bytes});
  worker.multi_transfers_.give_buffer(std::move(continuation));
  worker.multi_transfers_.finish(this);
}

void on_header_arrived(void* user_data, Status status, const TagRecvInfo& info) {
  static_cast<MultiRecv*>(user_data)->on_header(status, info);
}

}  // namespace

Status Worker::tag_recv_multi(uint64_t tag, uint64_t mask, const FrameAllocator& allocator,
                              std::vector<RecvFrame>& frames, const Callback& callback) {
  if (!check_callback("tag_recv_multi", callback)) return Status::InvalidParam;
  if (allocator.allocate == nullptr) {
    TERN_LOG(Error, "tag_recv_multi: the frame allocator has no function");
    return Status::InvalidParam;
  }
  WorkerImpl::Guard guard(*impl_);
  WorkerImpl& worker = *impl_;
  std::unique_ptr<MultiRecv> owned(new (std::nothrow) MultiRecv(worker, allocator, frames));
  if (!owned) return Status::NoMemory;
  MultiRecv& receive = *owned;
  receive.done = worker.new_callback_slot(callback, false);
  CallbackSlot* step = worker.new_callback_slot(Callback{&on_header_arrived, &receive}, true);
  if (receive.done == nullptr || step == nullptr) {
    if (receive.done != nullptr) worker.recycle_slot(receive.done);
    if (step != nullptr) worker.recycle_slot(step);
    return Status::NoMemory;
  }
  frames.clear();
  Request* request = nullptr;
  TagRecvInfo info;
  const Status status = worker.tag_recv_nb(receive.header.data(), receive.header.size(), tag, mask, request, &info);
  if (status != Status::Ok && status != Status::InProgress && status != Status::Truncated) {
    worker.recycle_slot(receive.done);
    worker.recycle_slot(step);
    return status;
  }
  worker.multi_transfers_.adopt(std::move(owned));
  if (request != nullptr) {
    worker.attach_slot(RequestImpl::from(request), step);
  } else {
    // The header had arrived: read it now; the caller's callback still
    // runs from progress (finish queues it).
    worker.recycle_slot(step);
    receive.on_header(status, info);
  }
  return Status::InProgress;
}

}  // namespace tern::engine
