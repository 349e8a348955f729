// Multi-buffer transfers (../shared/seeds/004): several frames, each of its
// own size, sent as one transfer to a receiver that does not know their
// number or sizes beforehand and allocates each as it learns of it.
//
// On the wire: one header message, tagged with the transfer's tag, that
// carries the frame count and the sizes and memory kinds of the first
// frames (up to 64, as long as their small ones fit in it); beyond those a
// second, chained header the receiver fetches, with the rest, from memory it
// maps where it can (the shared arena, reused between transfers). Frames of
// up to 16 KiB below the lane's rendezvous threshold travel eagerly, copied
// inside the headers (up to about 6 KiB of them in the first, 16 MiB in the
// chained one); larger ones (and small ones once that room is used) are
// fetched by the receiver straight from the sender's buffers, as a
// rendezvous, into the memory its allocator returned. The receiver
// acknowledges once it has every frame.
//
// Matching and order. The header is an ordinary tagged message: a transfer
// is matched as one message, at its place among the sender's sends on that
// endpoint, by the earliest posted receive it matches (tag and mask, with
// wildcards), so MPI's non-overtaking rule holds between multi-buffer and
// single sends of one sender to one receiver. Frames never go through
// matching: no receive, wildcard or not, can take one. Completion order is
// not matching order: a single send matched after a transfer may complete
// before it, while the transfer's large frames are still being fetched.
// A transfer must be received by tag_recv_multi: a plain receive it matches
// gets the header's bytes and the transfer never completes (the program is
// erroneous, as an MPI receive of the wrong type); a plain message matched
// by tag_recv_multi ends that receive with InvalidParam (logged).
//
// Completion. tag_send_multi follows callback.hpp: Ok when everything went
// out inside the call (every frame was copied into a header that left at
// once, nothing to fetch), InProgress when the callback will run once the
// receiver has every frame (the frames' buffers stay the caller's to keep
// unchanged until then). tag_recv_multi always completes through its
// callback (InProgress, or an error with nothing posted): frames are
// allocated as the headers arrive, so even a transfer that has arrived whole
// is reported the same way.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tern::engine {

enum class MemoryKind : uint8_t {
  Host = 0,
  Device = 1,  // named on the wire for later; this build moves host memory only (Unsupported)
};

struct SendFrame {
  const void* data = nullptr;
  std::size_t size = 0;
  MemoryKind kind = MemoryKind::Host;
};

struct RecvFrame {
  void* data = nullptr;  // what the allocator returned
  std::size_t size = 0;
  MemoryKind kind = MemoryKind::Host;
};

// Returns memory for one frame of `size` bytes of `kind` (the sender's
// kind), or null when there is none (the receive then ends NoMemory; frames
// allocated before stay listed for the caller to free). Called from
// progress, with the worker's lock held, in frame order: it must not block.
// Called for frames of size 0 too (null is fine for those).
struct FrameAllocator {
  void* (*allocate)(void* user_data, std::size_t size, MemoryKind kind) = nullptr;
  void* user_data = nullptr;
};

}  // namespace tern::engine
