// An asymmetric fence between processes (membarrier(2), global expedited).
//
// A sender publishes a cell and then reads the receiver's "armed" flag; a
// receiver about to sleep stores "armed" and then looks for a cell. Each
// side's store must be ordered before its load, or both can miss the other
// and the receiver sleeps on a message. A full fence on every send costs
// the sender the whole cache-line transfer of the cell it writes (x86 drains
// its store buffer); with this, senders publish with a plain release store
// and the rare receiver that goes to sleep pays instead: its remote_fence()
// makes every registered process's running threads execute a full barrier.
#pragma once

namespace tern::engine::transport::shm {

// True when this process is registered, so that other processes' fences
// reach its threads: only then may its sends skip their own fence. Registers
// on the first call; false where the kernel (or a seccomp filter) refuses.
[[nodiscard]] bool remote_fence_registered() noexcept;

// True when remote_fence() works from this process (checked once).
[[nodiscard]] bool remote_fence_available() noexcept;

// A full barrier on every thread of every registered process now running.
void remote_fence() noexcept;

}  // namespace tern::engine::transport::shm
