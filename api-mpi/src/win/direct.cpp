// Direct windows (window.hpp): the target's memory and control block are
// mapped here, so the origin moves the data and takes the locks itself.
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "tern/runtime/copy.hpp"
#include "win/protocol.hpp"
#include "win/window.hpp"

namespace tern::mpi {
namespace {

// The origin data of `call` packed (or the buffer itself when contiguous);
// `temp` owns a packed copy.
const std::byte* packed_origin(const RmaCall& call, std::byte*& temp) {
  temp = nullptr;
  if (call.origin_type->contiguous) return static_cast<const std::byte*>(call.origin);
  temp = static_cast<std::byte*>(std::malloc(call.bytes == 0 ? 1 : call.bytes));
  if (temp != nullptr) pack_data(*call.origin_type, call.origin, call.origin_count, temp);
  return temp;
}

}  // namespace

int direct_issue(Window& win, const RmaCall& call) {
  WinPeer& peer = win.peers[static_cast<std::size_t>(call.target)];
  std::byte* target = peer.mapped + (call.target_address - peer.base);
  const DerivedType& target_type = *call.target_type;
  switch (call.kind) {
    case kRmaPut: {
      if (call.origin_type->contiguous && target_type.contiguous) {
        runtime::copy_bytes(target, call.origin, call.bytes);
        return MPI_SUCCESS;
      }
      std::byte* temp = nullptr;
      const std::byte* data = packed_origin(call, temp);
      if (data == nullptr) return MPI_ERR_NO_MEM;
      unpack_data(target_type, data, call.bytes, target, call.target_count);
      std::free(temp);
      return MPI_SUCCESS;
    }
    case kRmaGet: {
      void* origin = const_cast<void*>(call.origin);
      if (call.origin_type->contiguous && target_type.contiguous) {
        runtime::copy_bytes(origin, target, call.bytes);
        return MPI_SUCCESS;
      }
      auto* temp = static_cast<std::byte*>(std::malloc(call.bytes == 0 ? 1 : call.bytes));
      if (temp == nullptr) return MPI_ERR_NO_MEM;
      pack_data(target_type, target, call.target_count, temp);
      unpack_data(*call.origin_type, temp, call.bytes, origin, call.origin_count);
      std::free(temp);
      return MPI_SUCCESS;
    }
    case kRmaCompareSwap: {
      alignas(16) std::byte old[16];
      {
        AccumulateGuard guard(peer.control->accumulate);
        compare_and_swap_element(kTypes[call.basic].size, static_cast<const std::byte*>(call.origin),
                                 static_cast<const std::byte*>(call.compare), target, old);
      }
      std::memcpy(call.result, old, kTypes[call.basic].size);
      return MPI_SUCCESS;
    }
    default: {  // accumulates
      std::byte* temp = nullptr;
      const std::byte* data = nullptr;
      if (call.op != MPI_NO_OP) {
        data = packed_origin(call, temp);
        if (data == nullptr) return MPI_ERR_NO_MEM;
      }
      std::byte* old = nullptr;
      const bool fetch = call.kind == kRmaGetAccumulate;
      const bool old_in_place = fetch && call.result_type->contiguous;
      if (fetch) {
        old = old_in_place ? static_cast<std::byte*>(call.result)
                           : static_cast<std::byte*>(std::malloc(call.bytes == 0 ? 1 : call.bytes));
        if (old == nullptr) {
          std::free(temp);
          return MPI_ERR_NO_MEM;
        }
      }
      {
        AccumulateGuard guard(peer.control->accumulate);
        accumulate_layout(call.op, call.basic, target_type, call.target_count, data, target, old);
      }
      if (fetch && !old_in_place) {
        unpack_data(*call.result_type, old, call.bytes, call.result, call.result_count);
        std::free(old);
      }
      std::free(temp);
      return MPI_SUCCESS;
    }
  }
}

void direct_lock(Window& win, int target, bool exclusive) {
  std::atomic<uint64_t>& word = win.peers[static_cast<std::size_t>(target)].control->lock;
  auto try_lock = [&] {
    uint64_t current = word.load(std::memory_order_relaxed);
    if (exclusive) {
      return current == 0 && word.compare_exchange_strong(current, kExclusiveLock, std::memory_order_acquire);
    }
    return (current & kExclusiveLock) == 0 &&
           word.compare_exchange_strong(current, current + 1, std::memory_order_acquire);
  };
  if (try_lock()) return;
  progress_until(try_lock);
}

void direct_unlock(Window& win, int target, bool exclusive) {
  std::atomic<uint64_t>& word = win.peers[static_cast<std::size_t>(target)].control->lock;
  if (exclusive) {
    word.store(0, std::memory_order_release);
  } else {
    word.fetch_sub(1, std::memory_order_release);
  }
}

}  // namespace tern::mpi
