// PEs whose memory is not mapped here (another host): their symmetric heap
// and static data are reached with the engine's RMA (rma.hpp) over the
// endpoint to them. Every PE registers its two regions with its worker and
// publishes their keys beside the mapping keys; a PE that cannot map a peer
// fetches that peer's keys and goes through here instead.
//
// The target side needs nothing but progress: every wait of this library
// (Backoff::pause) progresses the worker while any PE is remote, so a PE
// waiting in a barrier, a wait_until or a lock serves the puts, gets and
// atomics others send it. A PE computing outside the library answers once it
// calls in again.
//
// Completion: a put returns once the source may be reused; it has reached
// the target's memory after quiet (a flush of every endpoint written since
// the last one). Gets and atomics return with their data. The _nbi forms
// are these same calls (complete on return, which the specification allows).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <ctime>

#include "tern/engine/rma.hpp"

namespace tern::shmem {

struct State;

// A PE reached over the network; endpoint null for PEs mapped here.
struct NetPeer {
  engine::Endpoint* endpoint = nullptr;
  engine::rma::RemoteRegion* heap = nullptr;
  engine::rma::RemoteRegion* data = nullptr;
  std::atomic<bool> written{false};  // puts or atomics since the last quiet
};

// Registers this PE's regions and publishes their keys (before the fence
// of the key exchange).
void net_publish(State& s);
// After the fence: every PE not mapped here gets an endpoint and its keys
// (stays unreachable when no transport with RMA reaches it).
void net_connect(State& s);
// Before the job goes.
void net_release(State& s) noexcept;

// `dest` / `source` / `target`: this PE's symmetric address of the object.
void net_put(const char* function, const void* dest, const void* source, std::size_t bytes, int pe);
void net_get(const char* function, void* dest, const void* source, std::size_t bytes, int pe);
// `size` 4 or 8; returns the old value, zero-extended.
uint64_t net_atomic(const char* function, engine::rma::AtomicOp op, unsigned size, const void* target,
                    uint64_t operand, uint64_t compare, int pe);
// The 8-byte word at `heap_offset` of `pe`'s heap (its control block).
uint64_t net_heap_word(int pe, std::size_t heap_offset);
void net_heap_add(int pe, std::size_t heap_offset, uint64_t value);

// Remote completion of every put and atomic issued so far.
void net_quiet_slow();
// One round of the worker's progress; the number of events handled.
unsigned net_progress() noexcept;
// Sleeps up to `nap`, or until the worker has an event (a frame from a PE on
// another host): a waiting target answers at once instead of a nap later.
void net_nap(const timespec& nap) noexcept;

}  // namespace tern::shmem
