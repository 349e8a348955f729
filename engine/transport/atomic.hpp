// Remote atomics at the transport level: what an Ep::atomic carries. The
// operations are the engine's public rma::AtomicOp, one enum for every layer
// (and, for tcp, the wire).
#pragma once

#include <cstdint>

#include "tern/engine/rma.hpp"

namespace tern::engine::transport {

using AtomicOp = ::tern::engine::rma::AtomicOp;
inline constexpr uint8_t kLastAtomicOp = static_cast<uint8_t>(AtomicOp::FetchXor);

struct AtomicArgs {
  AtomicOp op = AtomicOp::Add;
  uint8_t size = 8;          // bytes of the word: 4 or 8
  uint64_t operand = 0;      // the value added, stored, and-ed ...; CompareSwap: the new value
  uint64_t compare = 0;      // CompareSwap: the expected value
  uint64_t* result = nullptr;  // where the old value goes (zero-extended), or null
};

}  // namespace tern::engine::transport
