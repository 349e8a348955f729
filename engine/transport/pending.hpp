// A pending entry is queued on an endpoint whose send returned WouldBlock.
// When the transport has resources again it calls the entries in order; each
// retries its operation.
#pragma once

#include "tern/runtime/intrusive_list.hpp"
#include "tern/runtime/status.hpp"

namespace tern::engine::transport {

struct PendingEntry {
  // Returns Ok when the entry is done (the transport drops it), or WouldBlock
  // when it still needs resources (it stays first in the queue and the
  // transport stops dispatching this endpoint's queue for now).
  using Callback = Status (*)(PendingEntry* self);

  Callback callback = nullptr;
  runtime::ListHook hook;
};

using PendingQueue = runtime::IntrusiveList<PendingEntry, &PendingEntry::hook>;

}  // namespace tern::engine::transport
