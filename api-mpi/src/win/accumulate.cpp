// Accumulate arithmetic on window memory. MPI makes accumulates atomic per
// basic element (concurrent MPI_Accumulate, MPI_Get_accumulate,
// MPI_Fetch_and_op and MPI_Compare_and_swap on one location behave as if in
// some order). Direct windows get that from one spin lock per target, held
// around each operation's arithmetic, which then runs as the plain
// (vectorized) reduction loops: a CPU atomic per element made a 1 MiB
// MPI_SUM accumulate take 2.3 ms where a locked loop takes 20 us, and a
// lock costs one fetch-and-op no more than the atomic it replaces. Served
// windows apply everything in their agent, one request at a time.
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "op/op.hpp"
#include "win/window.hpp"

namespace tern::mpi {

bool accumulate_op_valid(MPI_Op op, MPI_Datatype basic) noexcept {
  if (op == MPI_REPLACE || op == MPI_NO_OP) return true;
  if (op < MPI_MAX || (op > MPI_BXOR && op != MPI_MAXLOC && op != MPI_MINLOC)) return false;
  // Defined on the type when a reduction of one element succeeds.
  alignas(16) std::byte in[32] = {};
  alignas(16) std::byte inout[32] = {};
  return kTypes[basic].size <= sizeof(in) && apply_op(op, basic, in, inout, 1) == MPI_SUCCESS;
}

void accumulate_elements(MPI_Op op, MPI_Datatype basic, const std::byte* in, std::byte* target, std::size_t count,
                         std::byte* old) noexcept {
  const std::size_t size = kTypes[basic].size;
  if (old == nullptr || op == MPI_NO_OP) {
    if (old != nullptr) std::memcpy(old, target, count * size);
    if (op == MPI_REPLACE) {
      std::memcpy(target, in, count * size);
    } else if (op != MPI_NO_OP) {
      (void)apply_op(op, basic, in, target, count);
    }
    return;
  }
  // Fetching: the old values out, then the update, a cache-sized piece at a
  // time, so that the update finds the target's lines still in the cache.
  const std::size_t piece = std::max<std::size_t>(1, (16 << 10) / size);
  for (std::size_t done = 0; done < count; done += piece) {
    const std::size_t n = std::min(piece, count - done);
    std::memcpy(old + done * size, target + done * size, n * size);
    if (op == MPI_REPLACE) {
      std::memcpy(target + done * size, in + done * size, n * size);
    } else {
      (void)apply_op(op, basic, in + done * size, target + done * size, n);
    }
  }
}

void compare_and_swap_element(std::size_t size, const std::byte* desired, const std::byte* compare,
                              std::byte* target, std::byte* old) noexcept {
  std::memcpy(old, target, size);
  if (std::memcmp(target, compare, size) == 0) std::memcpy(target, desired, size);
}

void accumulate_layout(MPI_Op op, MPI_Datatype basic, const DerivedType& type, std::size_t count,
                       const std::byte* packed_in, std::byte* target, std::byte* packed_old) noexcept {
  if (type.contiguous) {
    accumulate_elements(op, basic, packed_in, target, count * type.size / kTypes[basic].size, packed_old);
    return;
  }
  std::size_t done = 0;
  for (std::size_t instance = 0; instance < count; ++instance) {
    std::byte* origin = target + static_cast<MPI_Aint>(instance) * type.extent;
    for (const TypeRun& run : type.runs) {
      const std::size_t bytes = run.elem_size * run.count;
      accumulate_elements(op, basic, packed_in == nullptr ? nullptr : packed_in + done, origin + run.offset,
                          bytes / kTypes[basic].size, packed_old == nullptr ? nullptr : packed_old + done);
      done += bytes;
    }
  }
}

AccumulateGuard::AccumulateGuard(std::atomic<uint32_t>& lock) : lock_(lock) {
  unsigned spins = 0;
  while (lock_.exchange(1, std::memory_order_acquire) != 0) {
    while (lock_.load(std::memory_order_relaxed) != 0) {
      // The holder may have lost its core (more ranks than cores).
      if (++spins % 64 == 0) sched_yield();
    }
  }
}

}  // namespace tern::mpi
