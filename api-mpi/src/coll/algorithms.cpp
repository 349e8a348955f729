// Collective algorithms over the engine's tag API in the communicator's
// collective context (its context id with kCollectiveBit set), so their
// messages never match point-to-point receives. Each call takes the next
// sequence number of its communicator; the engine tag's MPI-tag field
// carries (sequence, round), so traffic of consecutive collectives cannot
// cross.
//
// Dissemination barrier, binomial broadcast and reduction, recursive
// doubling allreduce (power-of-two sizes; reduce + broadcast otherwise;
// halving-doubling for large vectors). Operations that do not commute (user
// ops created so) reduce in rank order at the root. Where a communicator
// spans several hosts with several ranks on some, barrier, broadcast and
// allreduce go node-aware instead (coll/node.cpp). Where every rank is on
// one host, barrier, broadcasts of up to kSharedSlotBytes and reductions of
// up to kSharedVectorBytes go through a segment the ranks share
// (coll/shared.hpp).
#include <algorithm>
#include <cstring>
#include <vector>

#include "coll/scratch.hpp"
#include "coll/shared.hpp"
#include "op/op.hpp"
#include "state.hpp"

namespace tern::mpi {

Status coll_send(Comm& comm, const void* buffer, std::size_t bytes, int dest, unsigned tag) {
  engine::Endpoint* endpoint = comm_endpoint(comm, dest);
  if (endpoint == nullptr) return Status::Unreachable;
  return g_state->worker->tag_send(endpoint, buffer, bytes,
                                   make_tag(collective_context(comm), static_cast<unsigned>(comm.rank), tag));
}

Status coll_recv(Comm& comm, void* buffer, std::size_t bytes, int source, unsigned tag) {
  return g_state->worker->tag_recv(buffer, bytes,
                                   make_tag(collective_context(comm), static_cast<unsigned>(source), tag),
                                   engine::kTagMaskAll);
}

Status coll_sendrecv(Comm& comm, const void* send_buffer, std::size_t send_bytes, int dest, void* recv_buffer,
                     std::size_t recv_bytes, int source, unsigned tag) {
  engine::Request* request = nullptr;
  Status s = g_state->worker->tag_recv_nb(
      recv_buffer, recv_bytes, make_tag(collective_context(comm), static_cast<unsigned>(source), tag),
      engine::kTagMaskAll, request);
  if (s != Status::InProgress && s != Status::Ok) return s;
  Status sent = coll_send(comm, send_buffer, send_bytes, dest, tag);
  if (request != nullptr) {
    if (sent != Status::Ok) (void)g_state->worker->cancel(request);
    s = g_state->worker->wait(request);
  }
  return sent != Status::Ok ? sent : s;
}

namespace {

// Reductions take the segment whatever the order of the operation (it
// combines in rank order where that matters).
SharedSegment* shared_reduce_segment(Comm& comm, std::size_t bytes) {
  return bytes <= kSharedVectorBytes ? shared_segment(comm) : nullptr;
}

}  // namespace

bool coll_reduce_reads_non_roots(Comm& comm, std::size_t bytes) { return shared_reduce_segment(comm, bytes) != nullptr; }

Status coll_barrier(Comm& comm) {
  if (SharedSegment* shared = shared_segment(comm)) {
    shared->barrier();
    return Status::Ok;
  }
  if (comm.size > 2) {
    const NodeLayout& layout = node_layout(comm);
    if (layout.worth) return node_barrier(comm, layout);
  }
  const unsigned base = next_tag_base(comm);
  unsigned round = 0;
  for (int distance = 1; distance < comm.size; distance <<= 1, ++round) {
    const int dest = (comm.rank + distance) % comm.size;
    const int source = (comm.rank - distance + comm.size) % comm.size;
    if (Status s = coll_sendrecv(comm, nullptr, 0, dest, nullptr, 0, source, base | round); s != Status::Ok) {
      return s;
    }
  }
  return Status::Ok;
}

Status coll_bcast(Comm& comm, void* buffer, std::size_t bytes, int root) {
  if (bytes <= kSharedSlotBytes) {
    if (SharedSegment* shared = shared_segment(comm)) {
      shared->bcast(buffer, bytes, root);
      return Status::Ok;
    }
  }
  if (comm.size > 2) {
    const NodeLayout& layout = node_layout(comm);
    if (layout.worth) return node_bcast(comm, layout, buffer, bytes, root);
  }
  const unsigned tag = next_tag_base(comm);
  const int size = comm.size;
  const int relative = (comm.rank - root + size) % size;
  int mask = 1;
  while (mask < size) {
    if (relative & mask) {
      const int parent = (relative - mask + root) % size;
      if (Status s = coll_recv(comm, buffer, bytes, parent, tag); s != Status::Ok) return s;
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (relative + mask < size) {
      const int child = (relative + mask + root) % size;
      if (Status s = coll_send(comm, buffer, bytes, child, tag); s != Status::Ok) return s;
    }
  }
  return Status::Ok;
}

// Binomial reduction of `accumulator` (this rank's contribution on entry) to
// `root`; on the root it ends holding the result.
Status coll_reduce(Comm& comm, void* accumulator, std::size_t count, const TypeInfo& type, MPI_Datatype type_handle,
              MPI_Op op, int root) {
  if (SharedSegment* shared = shared_reduce_segment(comm, count * type.size)) {
    return shared->reduce(accumulator, count, type, type_handle, op, root);
  }
  const unsigned tag = next_tag_base(comm);
  const int size = comm.size;
  const int relative = (comm.rank - root + size) % size;
  const std::size_t bytes = count * type.size;
  ScratchBuffer incoming((relative & 1) == 0 && relative + 1 < size ? bytes : 0);  // leaves receive nothing
  if (incoming.failed()) return Status::NoMemory;
  for (int mask = 1; mask < size; mask <<= 1) {
    if ((relative & mask) == 0) {
      const int child_relative = relative | mask;
      if (child_relative < size) {
        const int child = (child_relative + root) % size;
        if (Status s = coll_recv(comm, incoming.data(), bytes, child, tag); s != Status::Ok) return s;
        if (apply_op(op, type_handle, incoming.data(), accumulator, count) != MPI_SUCCESS) return Status::InvalidParam;
      }
    } else {
      const int parent = ((relative & ~mask) + root) % size;
      return coll_send(comm, accumulator, bytes, parent, tag);
    }
  }
  return Status::Ok;
}

// Reduction in rank order for operations that do not commute: the root
// collects every contribution and combines a0 op (a1 op (... op an-1)).
Status coll_reduce_ordered(Comm& comm, void* accumulator, std::size_t count, const TypeInfo& type,
                      MPI_Datatype type_handle, MPI_Op op, int root) {
  if (SharedSegment* shared = shared_reduce_segment(comm, count * type.size)) {
    return shared->reduce(accumulator, count, type, type_handle, op, root);
  }
  const unsigned tag = next_tag_base(comm);
  const std::size_t bytes = count * type.size;
  if (comm.rank != root) return coll_send(comm, accumulator, bytes, root, tag);
  const int size = comm.size;
  std::vector<std::byte> all(bytes * static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    std::byte* block = all.data() + bytes * static_cast<std::size_t>(r);
    if (r == root) {
      if (bytes != 0) std::memcpy(block, accumulator, bytes);
    } else if (Status s = coll_recv(comm, block, bytes, r, tag); s != Status::Ok) {
      return s;
    }
  }
  std::byte* result = all.data() + bytes * static_cast<std::size_t>(size - 1);
  for (int r = size - 2; r >= 0; --r) {
    if (apply_op(op, type_handle, all.data() + bytes * static_cast<std::size_t>(r), result, count) != MPI_SUCCESS) {
      return Status::InvalidParam;
    }
  }
  if (bytes != 0) std::memcpy(accumulator, result, bytes);
  return Status::Ok;
}

Status allreduce_halving_doubling(Comm& comm, void* buffer, std::size_t count, const TypeInfo& type,
                                  MPI_Datatype type_handle, MPI_Op op) {
  const int size = comm.size;
  const int rank = comm.rank;
  auto* data = static_cast<std::byte*>(buffer);
  // Block b holds elements [first(b), first(b + 1)).
  auto first = [&](int block) {
    return count * static_cast<std::size_t>(block) / static_cast<std::size_t>(size);
  };
  const unsigned base = next_tag_base(comm);
  unsigned round = 0;
  std::vector<std::byte> incoming;
  int lo = 0, hi = size;  // the blocks this rank still works on
  for (int mask = size / 2; mask >= 1; mask >>= 1, ++round) {
    const int partner = rank ^ mask;
    const int mid = (lo + hi) / 2;
    const bool lower = (rank & mask) == 0;
    const int keep_lo = lower ? lo : mid, keep_hi = lower ? mid : hi;
    const int send_lo = lower ? mid : lo, send_hi = lower ? hi : mid;
    const std::size_t keep_first = first(keep_lo), keep_count = first(keep_hi) - keep_first;
    const std::size_t send_first = first(send_lo), send_count = first(send_hi) - send_first;
    incoming.resize(keep_count * type.size);
    if (Status s = coll_sendrecv(comm, data + send_first * type.size, send_count * type.size, partner,
                                 incoming.data(), keep_count * type.size, partner, base | round);
        s != Status::Ok) {
      return s;
    }
    if (keep_count != 0 &&
        apply_op(op, type_handle, incoming.data(), data + keep_first * type.size, keep_count) != MPI_SUCCESS) {
      return Status::InvalidParam;
    }
    lo = keep_lo;
    hi = keep_hi;
  }
  for (int mask = 1; mask < size; mask <<= 1, ++round) {
    const int partner = rank ^ mask;
    const bool lower = (rank & mask) == 0;
    const int other_lo = lower ? hi : lo - mask, other_hi = lower ? hi + mask : lo;
    const std::size_t mine_first = first(lo), mine_count = first(hi) - mine_first;
    const std::size_t other_first = first(other_lo), other_count = first(other_hi) - other_first;
    if (Status s = coll_sendrecv(comm, data + mine_first * type.size, mine_count * type.size, partner,
                                 data + other_first * type.size, other_count * type.size, partner, base | round);
        s != Status::Ok) {
      return s;
    }
    lo = std::min(lo, other_lo);
    hi = std::max(hi, other_hi);
  }
  return Status::Ok;
}

Status coll_allreduce(Comm& comm, void* buffer, std::size_t count, const TypeInfo& type, MPI_Datatype type_handle,
                      MPI_Op op) {
  const int size = comm.size;
  if (size == 1) return Status::Ok;
  if (count * type.size <= kSharedVectorBytes) {
    if (SharedSegment* shared = shared_segment(comm); shared != nullptr && shared->allreduce_pays(count * type.size)) {
      return shared->allreduce(buffer, count, type, type_handle, op);
    }
  }
  if (!op_commutative(op)) {
    if (Status s = coll_reduce_ordered(comm, buffer, count, type, type_handle, op, 0); s != Status::Ok) return s;
    return coll_bcast(comm, buffer, count * type.size, 0);
  }
  if (size > 2) {
    const NodeLayout& layout = node_layout(comm);
    if (layout.worth) return node_allreduce(comm, layout, buffer, count, type, type_handle, op);
  }
  if ((size & (size - 1)) != 0) {
    if (Status s = coll_reduce(comm, buffer, count, type, type_handle, op, 0); s != Status::Ok) return s;
    return coll_bcast(comm, buffer, count * type.size, 0);
  }
  const std::size_t bytes = count * type.size;
  if (bytes >= kLargeAllreduceBytes && count >= static_cast<std::size_t>(size)) {
    return allreduce_halving_doubling(comm, buffer, count, type, type_handle, op);
  }
  const unsigned base = next_tag_base(comm);
  ScratchBuffer incoming(bytes);
  if (incoming.failed()) return Status::NoMemory;
  unsigned round = 0;
  for (int mask = 1; mask < size; mask <<= 1, ++round) {
    const int partner = comm.rank ^ mask;
    if (Status s = coll_sendrecv(comm, buffer, bytes, partner, incoming.data(), bytes, partner, base | round);
        s != Status::Ok) {
      return s;
    }
    if (apply_op(op, type_handle, incoming.data(), buffer, count) != MPI_SUCCESS) return Status::InvalidParam;
  }
  return Status::Ok;
}

}  // namespace tern::mpi
