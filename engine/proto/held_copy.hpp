// The header in front of a held send's copy (proto/held_send.cpp,
// proto/agent_send.cpp), in the same block of the shared arena, so that the
// completion callback needs nothing else to give the block back.
#pragma once

#include <cstddef>

#include "core/held_cache.hpp"
#include "tern/engine/callback.hpp"

namespace tern::engine {

class WorkerImpl;

struct alignas(64) HeldCopy {
  WorkerImpl* worker;
  HeldCache::Block block;  // the whole allocation, this header included
  std::size_t length;      // held bytes to release with the block (0: released otherwise)
};

// The copy's send ended: the block goes back to the cache, the held bytes down.
void on_held_sent(void* user_data, Status status, const TagRecvInfo& info);

}  // namespace tern::engine
