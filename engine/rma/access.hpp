// The RMA calls' way into the worker and the key classes, which keep their
// internals out of the public headers.
#pragma once

#include "core/worker_impl.hpp"
#include "tern/engine/rma.hpp"

namespace tern::engine::rma {

struct Access {
  static WorkerImpl& impl(Worker& worker) noexcept { return *worker.impl_; }
  static uint64_t transport_key(const RemoteRegion& region) noexcept { return region.transport_key_; }
  static uint64_t owner(const RemoteRegion& region) noexcept { return region.owner_uuid_; }
};

// The iface that serves this worker's registrations (the first with
// kCapRma), or null.
[[nodiscard]] transport::Iface* rma_iface(WorkerImpl& worker) noexcept;

}  // namespace tern::engine::rma
