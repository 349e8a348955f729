// MPI_Put, MPI_Get, the accumulates, MPI_Fetch_and_op, MPI_Compare_and_swap
// and their request-based forms (int and large-count _c forms of all but the
// two atomics): the arguments checked here, the data moved
// by direct.cpp or served by the target (origin.cpp, agent.cpp).
#include <algorithm>

#include "tern/runtime/copy.hpp"

#include "win/protocol.hpp"
#include "win/window.hpp"

using namespace tern;
using namespace tern::mpi;

namespace {

// One buffer of a call: its counts are MPI_Count for the int and large-count
// (_c) forms alike.
struct Side {
  const void* buffer;
  MPI_Count count;
  MPI_Datatype type;
};

// The checked description of `side`'s type (`hold` keeps a derived one
// alive); null after raising.
const DerivedType* checked_type(const char* function, const Window& win, const Side& side, const char* which,
                                std::shared_ptr<const DerivedType>& hold, int& error) {
  if (side.count < 0) {
    error = raise_win(&win, MPI_ERR_COUNT, function, "invalid %s count %lld", which, side.count);
    return nullptr;
  }
  if (const DerivedType* predefined = predefined_description(side.type); predefined != nullptr) return predefined;
  hold = describe_type(side.type);
  if (hold == nullptr || !hold->committed) {
    error = raise_win(&win, MPI_ERR_TYPE, function, "%s %s datatype %d", hold == nullptr ? "invalid" : "uncommitted",
                      which, side.type);
    return nullptr;
  }
  return hold.get();
}

// The one predefined type every element of `type` is, or MPI_DATATYPE_NULL.
MPI_Datatype element_type(const DerivedType& type) { return type.mixed ? MPI_DATATYPE_NULL : type.basic; }

int issue(const char* function, int kind, MPI_Win handle, Side origin, Side result, const void* compare, int target,
          MPI_Aint disp, Side target_side, MPI_Op op, MPI_Request* request) {
  Window* win = nullptr;
  if (int err = find_window_checked(function, handle, win); err != MPI_SUCCESS) return err;
  if (request != nullptr) *request = MPI_REQUEST_NULL;
  if (target == MPI_PROC_NULL) {
    if (request != nullptr) *request = kRequestSendDone;
    return MPI_SUCCESS;
  }
  if (target < 0 || target >= win->size) {
    return raise_win(win, MPI_ERR_RANK, function, "invalid target rank %d (window of %d ranks)", target, win->size);
  }
  int error = MPI_SUCCESS;
  RmaCall call;
  call.kind = kind;
  call.origin = nullptr;
  call.origin_count = 0;
  call.origin_type = nullptr;
  call.result = nullptr;
  call.result_count = 0;
  call.result_type = nullptr;
  call.compare = compare;
  call.target = target;
  call.target_address = 0;
  call.basic = MPI_DATATYPE_NULL;
  call.op = op;
  const bool accumulate = kind == kRmaAccumulate || kind == kRmaGetAccumulate || kind == kRmaCompareSwap;
  const bool uses_origin = !(kind == kRmaGetAccumulate && op == MPI_NO_OP);
  call.target_type = checked_type(function, *win, target_side, "target", call.target_hold, error);
  if (call.target_type == nullptr) return error;
  call.target_count = static_cast<std::size_t>(target_side.count);
  if (uses_origin) {
    call.origin_type = checked_type(function, *win, origin, "origin", call.origin_hold, error);
    if (call.origin_type == nullptr) return error;
    call.origin = origin.buffer;
    call.origin_count = static_cast<std::size_t>(origin.count);
  }
  if (kind == kRmaGetAccumulate || kind == kRmaCompareSwap) {
    call.result_type = checked_type(function, *win, result, "result", call.result_hold, error);
    if (call.result_type == nullptr) return error;
    call.result = const_cast<void*>(result.buffer);
    call.result_count = static_cast<std::size_t>(result.count);
  }
  // Only a _c call's counts can overflow here; checked before any product below.
  for (const Side* side : {&target_side, &origin, &result}) {
    std::size_t bytes = 0;
    const DerivedType* type = side == &target_side ? call.target_type
                              : side == &origin    ? call.origin_type
                                                   : call.result_type;
    if (type != nullptr && (__builtin_mul_overflow(static_cast<std::size_t>(side->count), type->size, &bytes) ||
                            bytes > static_cast<std::size_t>(PTRDIFF_MAX))) {
      return raise_win(win, MPI_ERR_COUNT, function, "count %lld is too large: its bytes exceed the address space",
                       side->count);
    }
  }
  call.bytes = call.target_type->size * call.target_count;
  if (uses_origin && call.origin_type->size * call.origin_count != call.bytes) {
    return raise_win(win, MPI_ERR_TYPE, function, "the origin's %zu bytes do not match the target's %zu",
                     call.origin_type->size * call.origin_count, call.bytes);
  }
  if (call.result_type != nullptr && call.result_type->size * call.result_count != call.bytes) {
    return raise_win(win, MPI_ERR_TYPE, function, "the result's %zu bytes do not match the target's %zu",
                     call.result_type->size * call.result_count, call.bytes);
  }
  if (accumulate) {
    call.basic = element_type(*call.target_type);
    const bool same = call.basic != MPI_DATATYPE_NULL &&
                      (!uses_origin || element_type(*call.origin_type) == call.basic) &&
                      (call.result_type == nullptr || element_type(*call.result_type) == call.basic);
    if (!same) {
      return raise_win(win, MPI_ERR_TYPE, function,
                       "accumulates need the origin, result and target types made of one same predefined type");
    }
    if (kind == kRmaCompareSwap) {
      const BaseKind base = kTypes[call.basic].kind;
      const std::size_t size = kTypes[call.basic].size;
      if (base == BaseKind::Float || (size != 1 && size != 2 && size != 4 && size != 8)) {
        return raise_win(win, MPI_ERR_TYPE, function, "compare-and-swap takes integer, logical or byte types, not %s",
                         kTypes[call.basic].name);
      }
    } else if (!accumulate_op_valid(op, call.basic) || (op == MPI_NO_OP && kind == kRmaAccumulate)) {
      return raise_win(win, MPI_ERR_OP, function, "operation %d is not an accumulate operation on %s", op,
                       kTypes[call.basic].name);
    }
  }
  if (request != nullptr ? !in_passive_epoch(*win, target) : !in_access_epoch(*win, target)) {
    return raise_win(win, MPI_ERR_RMA_SYNC, function, "no %s epoch is open to rank %d",
                     request != nullptr ? "passive-target (lock)" : "access", target);
  }
  // Where the target's data lies, checked against its window.
  const WinPeer& peer = win->peers[static_cast<std::size_t>(target)];
  if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    call.target_address = static_cast<uint64_t>(disp);
  } else {
    if (disp < 0) return raise_win(win, MPI_ERR_DISP, function, "invalid target displacement %td", disp);
    const MPI_Aint start = disp * peer.disp_unit;
    call.target_address = peer.base + static_cast<uint64_t>(start);
    if (call.bytes > 0) {
      const DerivedType& type = *call.target_type;
      const MPI_Aint repeat = static_cast<MPI_Aint>(call.target_count - 1) * type.extent;
      const MPI_Aint low = start + type.true_lb + std::min<MPI_Aint>(0, repeat);
      const MPI_Aint high = start + type.true_lb + type.true_extent + std::max<MPI_Aint>(0, repeat);
      if (low < 0 || high > peer.size) {
        return raise_win(win, MPI_ERR_RMA_RANGE, function,
                         "bytes %td to %td of rank %d's window, which has %td", low, high, target, peer.size);
      }
    }
  }
  if (call.bytes == 0) {
    if (request != nullptr) *request = kRequestSendDone;
    return MPI_SUCCESS;
  }
  if (win->direct) {
    error = direct_issue(*win, call);
  } else {
    error = served_issue(*win, call);
    // Request-based forms end locally before returning (their request is done).
    if (error == MPI_SUCCESS && request != nullptr) error = served_wait_local(*win, target);
  }
  if (error != MPI_SUCCESS) return raise_win(win, error, function, "the operation to rank %d failed", target);
  if (request != nullptr) *request = kRequestSendDone;
  return MPI_SUCCESS;
}

constexpr Side kNone{nullptr, 0, MPI_DATATYPE_NULL};

// The commonest calls: predefined types on a direct window, every check
// passing. Where the span's target is null, issue() checks everything again
// and raises what is wrong. A one-byte MPI_Put through issue() took about
// 15 ns, here 7.
struct DirectSpan {
  std::byte* target = nullptr;
  WinControl* control = nullptr;
  std::size_t bytes = 0;
};

DirectSpan direct_span(MPI_Win handle, int target, MPI_Aint disp, MPI_Count origin_count, MPI_Datatype origin_type,
                       MPI_Count target_count, MPI_Datatype target_type) {
  DirectSpan span;
  if (TERN_UNLIKELY(g_state == nullptr)) return span;
  Window* win = find_window(handle);
  if (win == nullptr || !win->direct || target < 0 || target >= win->size || origin_count < 0 || disp < 0 ||
      target_count < 0 || !in_access_epoch(*win, target)) {
    return span;
  }
  const DerivedType* origin = predefined_description(origin_type);
  const DerivedType* remote = predefined_description(target_type);
  if (origin == nullptr || remote == nullptr) return span;
  std::size_t bytes = 0, origin_bytes = 0;
  if (__builtin_mul_overflow(remote->size, static_cast<std::size_t>(target_count), &bytes) ||
      __builtin_mul_overflow(origin->size, static_cast<std::size_t>(origin_count), &origin_bytes)) {
    return span;
  }
  const WinPeer& peer = win->peers[static_cast<std::size_t>(target)];
  const MPI_Aint start = disp * peer.disp_unit;
  if (origin_bytes != bytes || start > peer.size || bytes > static_cast<std::size_t>(peer.size - start)) {
    return span;
  }
  span.target = peer.mapped + start;
  span.control = peer.control;
  span.bytes = bytes;
  return span;
}

// Compare-and-swap and fetch-and-op take integer types of a CPU word here.
bool word_type(MPI_Datatype type) {
  const TypeInfo* info = find_type(type);
  return info != nullptr && (info->kind == BaseKind::Signed || info->kind == BaseKind::Unsigned) &&
         (info->size == 4 || info->size == 8);
}

// Put and Get, int and _c: the direct path inline first (see DirectSpan).
[[gnu::always_inline]] inline int put(const char* function, const void* origin_addr, MPI_Count origin_count,
                                      MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                                      MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  if (const DirectSpan span = direct_span(win, target_rank, target_disp, origin_count, origin_datatype,
                                          target_count, target_datatype);
      span.target != nullptr) {
    runtime::copy_bytes(span.target, origin_addr, span.bytes);
    return MPI_SUCCESS;
  }
  return issue(function, kRmaPut, win, {origin_addr, origin_count, origin_datatype}, kNone, nullptr, target_rank,
               target_disp, {nullptr, target_count, target_datatype}, MPI_OP_NULL, nullptr);
}

[[gnu::always_inline]] inline int get(const char* function, void* origin_addr, MPI_Count origin_count,
                                      MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                                      MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  if (const DirectSpan span = direct_span(win, target_rank, target_disp, origin_count, origin_datatype,
                                          target_count, target_datatype);
      span.target != nullptr) {
    runtime::copy_bytes(origin_addr, span.target, span.bytes);
    return MPI_SUCCESS;
  }
  return issue(function, kRmaGet, win, {origin_addr, origin_count, origin_datatype}, kNone, nullptr, target_rank,
               target_disp, {nullptr, target_count, target_datatype}, MPI_OP_NULL, nullptr);
}

// The request-based forms refuse a null request before anything else.
int null_request(const char* function, MPI_Win win) {
  return raise_win(find_window(win), MPI_ERR_ARG, function, "null request argument");
}

// Rput and Rget (`kind`), Accumulate and Raccumulate (`op`; `request` null
// for the plain form).
int transfer(const char* function, int kind, const void* origin_addr, MPI_Count origin_count,
             MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count,
             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, bool with_request, MPI_Request* request) {
  if (with_request && request == nullptr) return null_request(function, win);
  return issue(function, kind, win, {origin_addr, origin_count, origin_datatype}, kNone, nullptr, target_rank,
               target_disp, {nullptr, target_count, target_datatype}, op, request);
}

// Get_accumulate and Rget_accumulate.
int get_accumulate(const char* function, const void* origin_addr, MPI_Count origin_count,
                   MPI_Datatype origin_datatype, void* result_addr, MPI_Count result_count,
                   MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, bool with_request, MPI_Request* request) {
  if (with_request && request == nullptr) return null_request(function, win);
  return issue(function, kRmaGetAccumulate, win, {origin_addr, origin_count, origin_datatype},
               {result_addr, result_count, result_datatype}, nullptr, target_rank, target_disp,
               {nullptr, target_count, target_datatype}, op, request);
}

}  // namespace

extern "C" {

// Each call in its int and large-count (_c) form, over one implementation.
int PMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return put("MPI_Put", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win);
}

int PMPI_Put_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return put("MPI_Put_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win);
}

int PMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return get("MPI_Get", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win);
}

int PMPI_Get_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return get("MPI_Get_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win);
}

int PMPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return transfer("MPI_Accumulate", kRmaAccumulate, origin_addr, origin_count, origin_datatype, target_rank,
                  target_disp, target_count, target_datatype, op, win, false, nullptr);
}

int PMPI_Accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                      MPI_Win win) {
  return transfer("MPI_Accumulate_c", kRmaAccumulate, origin_addr, origin_count, origin_datatype, target_rank,
                  target_disp, target_count, target_datatype, op, win, false, nullptr);
}

int PMPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr,
                        int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return get_accumulate("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                        result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, false,
                        nullptr);
}

int PMPI_Get_accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                          void* result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                          MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win) {
  return get_accumulate("MPI_Get_accumulate_c", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                        result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, false,
                        nullptr);
}

int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  if (word_type(datatype) && (op == MPI_SUM || op == MPI_REPLACE || op == MPI_NO_OP) && result_addr != nullptr) {
    if (const DirectSpan span = direct_span(win, target_rank, target_disp, 1, datatype, 1, datatype);
        span.target != nullptr) {
      AccumulateGuard guard(span.control->accumulate);
      accumulate_elements(op, datatype, static_cast<const std::byte*>(origin_addr), span.target, 1,
                          static_cast<std::byte*>(result_addr));
      return MPI_SUCCESS;
    }
  }
  if (g_state != nullptr && datatype >= kDerivedBase) {
    return raise_win(find_window(win), MPI_ERR_TYPE, "MPI_Fetch_and_op", "a derived datatype (%d): predefined only",
                     datatype);
  }
  return issue("MPI_Fetch_and_op", kRmaGetAccumulate, win, {origin_addr, 1, datatype}, {result_addr, 1, datatype},
               nullptr, target_rank, target_disp, {nullptr, 1, datatype}, op, nullptr);
}

int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win) {
  if (word_type(datatype) && origin_addr != nullptr && compare_addr != nullptr && result_addr != nullptr) {
    if (const DirectSpan span = direct_span(win, target_rank, target_disp, 1, datatype, 1, datatype);
        span.target != nullptr) {
      AccumulateGuard guard(span.control->accumulate);
      compare_and_swap_element(span.bytes, static_cast<const std::byte*>(origin_addr),
                               static_cast<const std::byte*>(compare_addr), span.target,
                               static_cast<std::byte*>(result_addr));
      return MPI_SUCCESS;
    }
  }
  if (g_state != nullptr && datatype >= kDerivedBase) {
    return raise_win(find_window(win), MPI_ERR_TYPE, "MPI_Compare_and_swap",
                     "a derived datatype (%d): predefined only", datatype);
  }
  return issue("MPI_Compare_and_swap", kRmaCompareSwap, win, {origin_addr, 1, datatype}, {result_addr, 1, datatype},
               compare_addr, target_rank, target_disp, {nullptr, 1, datatype}, MPI_OP_NULL, nullptr);
}

int PMPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request* request) {
  return transfer("MPI_Rput", kRmaPut, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, MPI_OP_NULL, win, true, request);
}

int PMPI_Rput_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request* request) {
  return transfer("MPI_Rput_c", kRmaPut, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, MPI_OP_NULL, win, true, request);
}

int PMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request* request) {
  return transfer("MPI_Rget", kRmaGet, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, MPI_OP_NULL, win, true, request);
}

int PMPI_Rget_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request* request) {
  return transfer("MPI_Rget_c", kRmaGet, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, MPI_OP_NULL, win, true, request);
}

int PMPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request* request) {
  return transfer("MPI_Raccumulate", kRmaAccumulate, origin_addr, origin_count, origin_datatype, target_rank,
                  target_disp, target_count, target_datatype, op, win, true, request);
}

int PMPI_Raccumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                       MPI_Win win, MPI_Request* request) {
  return transfer("MPI_Raccumulate_c", kRmaAccumulate, origin_addr, origin_count, origin_datatype, target_rank,
                  target_disp, target_count, target_datatype, op, win, true, request);
}

int PMPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr,
                         int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request* request) {
  return get_accumulate("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                        result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, true,
                        request);
}

int PMPI_Rget_accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                           void* result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                           MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                           MPI_Win win, MPI_Request* request) {
  return get_accumulate("MPI_Rget_accumulate_c", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                        result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, true,
                        request);
}

#pragma weak MPI_Put = PMPI_Put
#pragma weak MPI_Put_c = PMPI_Put_c
#pragma weak MPI_Get = PMPI_Get
#pragma weak MPI_Get_c = PMPI_Get_c
#pragma weak MPI_Accumulate = PMPI_Accumulate
#pragma weak MPI_Accumulate_c = PMPI_Accumulate_c
#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate
#pragma weak MPI_Get_accumulate_c = PMPI_Get_accumulate_c
#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op
#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap
#pragma weak MPI_Rput = PMPI_Rput
#pragma weak MPI_Rput_c = PMPI_Rput_c
#pragma weak MPI_Rget = PMPI_Rget
#pragma weak MPI_Rget_c = PMPI_Rget_c
#pragma weak MPI_Raccumulate = PMPI_Raccumulate
#pragma weak MPI_Raccumulate_c = PMPI_Raccumulate_c
#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate
#pragma weak MPI_Rget_accumulate_c = PMPI_Rget_accumulate_c

}  // extern "C"
