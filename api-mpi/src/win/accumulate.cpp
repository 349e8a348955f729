// Accumulate arithmetic on window memory. MPI makes accumulates atomic per
// basic element (concurrent MPI_Accumulate, MPI_Get_accumulate and
// MPI_Fetch_and_op with the same type on one location behave as if in some
// order), so every element is updated with a CPU atomic: a fetch-and-add or
// exchange where one exists, else a compare-and-swap loop around the
// operation. Elements no CPU atomic covers (pair types, long double,
// complex, misaligned ones) are updated under the target's spin lock, which
// every accumulate on such an element takes: one location is always
// accessed with one type, so both kinds never meet on the same bytes.
#include <sched.h>

#include <atomic>
#include <cstring>

#include "op/op.hpp"
#include "win/window.hpp"

namespace tern::mpi {
namespace {

// new = in op current, for one element (REPLACE: in; NO_OP: current).
void combine(MPI_Op op, MPI_Datatype basic, const std::byte* in, std::byte* inout) noexcept {
  if (op == MPI_REPLACE) {
    std::memcpy(inout, in, kTypes[basic].size);
  } else if (op != MPI_NO_OP) {
    (void)apply_op(op, basic, in, inout, 1);
  }
}

template <typename Word>
void atomic_element(MPI_Op op, MPI_Datatype basic, const std::byte* in, std::byte* target, std::byte* old) noexcept {
  std::atomic_ref<Word> word(*reinterpret_cast<Word*>(target));
  Word operand{};
  if (op != MPI_NO_OP) std::memcpy(&operand, in, sizeof(Word));
  Word previous;
  const BaseKind kind = kTypes[basic].kind;
  const bool integer = kind == BaseKind::Signed || kind == BaseKind::Unsigned;
  if (op == MPI_NO_OP) {
    previous = word.load(std::memory_order_acquire);
  } else if (op == MPI_REPLACE) {
    previous = word.exchange(operand, std::memory_order_acq_rel);
  } else if (integer && op == MPI_SUM) {
    previous = word.fetch_add(operand, std::memory_order_acq_rel);  // two's complement: signed too
  } else if (integer && op == MPI_BAND) {
    previous = word.fetch_and(operand, std::memory_order_acq_rel);
  } else if (integer && op == MPI_BOR) {
    previous = word.fetch_or(operand, std::memory_order_acq_rel);
  } else if (integer && op == MPI_BXOR) {
    previous = word.fetch_xor(operand, std::memory_order_acq_rel);
  } else {
    previous = word.load(std::memory_order_relaxed);
    Word next;
    do {
      next = previous;
      combine(op, basic, in, reinterpret_cast<std::byte*>(&next));
    } while (!word.compare_exchange_weak(previous, next, std::memory_order_acq_rel, std::memory_order_relaxed));
  }
  if (old != nullptr) std::memcpy(old, &previous, sizeof(Word));
}

class SpinGuard {
 public:
  explicit SpinGuard(std::atomic<uint32_t>& lock) : lock_(lock) {
    unsigned spins = 0;
    while (lock_.exchange(1, std::memory_order_acquire) != 0) {
      while (lock_.load(std::memory_order_relaxed) != 0) {
        if (++spins % 64 == 0) sched_yield();
      }
    }
  }
  ~SpinGuard() { lock_.store(0, std::memory_order_release); }
  SpinGuard(const SpinGuard&) = delete;
  SpinGuard& operator=(const SpinGuard&) = delete;

 private:
  std::atomic<uint32_t>& lock_;
};

bool atomic_word(std::size_t size, const std::byte* target) {
  return (size == 1 || size == 2 || size == 4 || size == 8) && reinterpret_cast<uintptr_t>(target) % size == 0;
}

}  // namespace

bool accumulate_op_valid(MPI_Op op, MPI_Datatype basic) noexcept {
  if (op == MPI_REPLACE || op == MPI_NO_OP) return true;
  if (op < MPI_MAX || (op > MPI_BXOR && op != MPI_MAXLOC && op != MPI_MINLOC)) return false;
  // Defined on the type when a reduction of one element succeeds.
  alignas(16) std::byte in[32] = {};
  alignas(16) std::byte inout[32] = {};
  return kTypes[basic].size <= sizeof(in) && apply_op(op, basic, in, inout, 1) == MPI_SUCCESS;
}

void accumulate_elements(MPI_Op op, MPI_Datatype basic, const std::byte* in, std::byte* target, std::size_t count,
                         std::byte* old, std::atomic<uint32_t>& wide_lock) noexcept {
  const std::size_t size = kTypes[basic].size;
  for (std::size_t i = 0; i < count; ++i) {
    const std::byte* operand = in != nullptr ? in + i * size : nullptr;
    std::byte* element = target + i * size;
    std::byte* previous = old != nullptr ? old + i * size : nullptr;
    if (atomic_word(size, element)) {
      switch (size) {
        case 1: atomic_element<uint8_t>(op, basic, operand, element, previous); break;
        case 2: atomic_element<uint16_t>(op, basic, operand, element, previous); break;
        case 4: atomic_element<uint32_t>(op, basic, operand, element, previous); break;
        default: atomic_element<uint64_t>(op, basic, operand, element, previous); break;
      }
      continue;
    }
    SpinGuard guard(wide_lock);
    if (previous != nullptr) std::memcpy(previous, element, size);
    combine(op, basic, operand, element);
  }
}

void compare_and_swap_element(std::size_t size, const std::byte* desired, const std::byte* compare,
                              std::byte* target, std::byte* old, std::atomic<uint32_t>& wide_lock) noexcept {
  auto swap = [&]<typename Word>(Word*) {
    std::atomic_ref<Word> word(*reinterpret_cast<Word*>(target));
    Word expected;
    Word next;
    std::memcpy(&expected, compare, sizeof(Word));
    std::memcpy(&next, desired, sizeof(Word));
    word.compare_exchange_strong(expected, next, std::memory_order_acq_rel, std::memory_order_acquire);
    std::memcpy(old, &expected, sizeof(Word));  // the value found, swapped or not
  };
  if (atomic_word(size, target)) {
    switch (size) {
      case 1: swap(static_cast<uint8_t*>(nullptr)); return;
      case 2: swap(static_cast<uint16_t*>(nullptr)); return;
      case 4: swap(static_cast<uint32_t*>(nullptr)); return;
      default: swap(static_cast<uint64_t*>(nullptr)); return;
    }
  }
  SpinGuard guard(wide_lock);
  std::memcpy(old, target, size);
  if (std::memcmp(target, compare, size) == 0) std::memcpy(target, desired, size);
}

void accumulate_layout(MPI_Op op, MPI_Datatype basic, const DerivedType& type, std::size_t count,
                       const std::byte* packed_in, std::byte* target, std::byte* packed_old,
                       std::atomic<uint32_t>& wide_lock) noexcept {
  std::size_t done = 0;
  for (std::size_t instance = 0; instance < count; ++instance) {
    std::byte* origin = target + static_cast<MPI_Aint>(instance) * type.extent;
    for (const TypeRun& run : type.runs) {
      const std::size_t bytes = run.elem_size * run.count;
      accumulate_elements(op, basic, packed_in == nullptr ? nullptr : packed_in + done, origin + run.offset,
                          run.elem_size == kTypes[basic].size ? run.count : bytes / kTypes[basic].size,
                          packed_old == nullptr ? nullptr : packed_old + done, wide_lock);
      done += bytes;
    }
  }
}

}  // namespace tern::mpi
