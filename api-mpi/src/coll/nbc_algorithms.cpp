// The collective algorithms as schedules (schedule.hpp): the same shapes as
// the blocking ones of algorithms.cpp (dissemination barrier, binomial
// broadcast and reduction, recursive doubling allreduce with halving-doubling
// for long vectors, rank-ordered reduction for operations that do not
// commute) plus a ring allgather and a pairwise alltoall, each step a round
// the engine's callbacks move on.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "coll/schedule.hpp"

namespace tern::mpi {

void schedule_barrier(Schedule& s, const Comm& comm) {
  for (int distance = 1; distance < comm.size; distance <<= 1) {
    s.next_round();
    s.send(nullptr, 0, (comm.rank + distance) % comm.size);
    s.recv(nullptr, 0, (comm.rank - distance + comm.size) % comm.size);
  }
}

void schedule_bcast(Schedule& s, const Comm& comm, void* buffer, std::size_t bytes, int root) {
  const int size = comm.size;
  const int relative = (comm.rank - root + size) % size;
  s.next_round();
  int mask = 1;
  while (mask < size) {
    if (relative & mask) {
      s.recv(buffer, bytes, (relative - mask + root) % size);
      break;
    }
    mask <<= 1;
  }
  s.next_round();
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (relative + mask < size) s.send(buffer, bytes, (relative + mask + root) % size);
  }
}

namespace {

// The root gathers every part and combines a0 op (a1 op (... op an-1)).
void schedule_reduce_ordered(Schedule& s, const Comm& comm, void* accumulator, std::size_t count, std::size_t elem,
                             int root) {
  const std::size_t bytes = count * elem;
  const auto size = static_cast<std::size_t>(comm.size);
  s.next_round();
  if (comm.rank != root) {
    s.send(accumulator, bytes, root);
    return;
  }
  std::byte* all = s.scratch(bytes * size);
  for (int r = 0; r < comm.size; ++r) {
    if (r != root) s.recv(all + bytes * static_cast<std::size_t>(r), bytes, r);
  }
  s.next_round();
  s.copy(accumulator, all + bytes * static_cast<std::size_t>(root), bytes);
  std::byte* result = all + bytes * (size - 1);
  for (int r = comm.size - 2; r >= 0; --r) s.reduce(all + bytes * static_cast<std::size_t>(r), result, count);
  s.copy(result, accumulator, bytes);
}

}  // namespace

void schedule_reduce(Schedule& s, const Comm& comm, void* accumulator, std::size_t count, std::size_t elem,
                     bool commutative, int root) {
  if (!commutative) return schedule_reduce_ordered(s, comm, accumulator, count, elem, root);
  const int size = comm.size;
  const int relative = (comm.rank - root + size) % size;
  const std::size_t bytes = count * elem;
  s.next_round();
  std::vector<std::byte*> incoming;
  int parent = -1;
  for (int mask = 1; mask < size; mask <<= 1) {
    if (relative & mask) {
      parent = ((relative & ~mask) + root) % size;
      break;
    }
    if ((relative | mask) < size) {
      incoming.push_back(s.scratch(bytes));
      s.recv(incoming.back(), bytes, ((relative | mask) + root) % size);
    }
  }
  s.next_round();
  // In the order the blocking form combines them: nearest child first.
  for (std::byte* part : incoming) s.reduce(part, accumulator, count);
  if (parent >= 0) s.send(accumulator, bytes, parent);
}

namespace {

// Long vectors on power-of-two sizes, as the blocking form: a reduce-scatter
// by recursive halving, then an allgather by recursive doubling, the same
// blocks combined in the same order, so the results match it bit for bit.
void schedule_allreduce_halving_doubling(Schedule& s, const Comm& comm, std::byte* data, std::size_t count,
                                         std::size_t elem) {
  const int size = comm.size;
  const int rank = comm.rank;
  // Block b holds elements [first(b), first(b + 1)).
  auto first = [&](int block) { return count * static_cast<std::size_t>(block) / static_cast<std::size_t>(size); };
  std::byte* incoming = s.scratch(count * elem);
  std::byte* landed = nullptr;  // where the last round's incoming part is combined
  std::size_t landed_count = 0;
  int lo = 0, hi = size;  // the blocks this rank still works on
  for (int mask = size / 2; mask >= 1; mask >>= 1) {
    s.next_round();
    if (landed != nullptr) s.reduce(incoming, landed, landed_count);
    const int mid = (lo + hi) / 2;
    const bool lower = (rank & mask) == 0;
    const int keep_lo = lower ? lo : mid, keep_hi = lower ? mid : hi;
    const int send_lo = lower ? mid : lo, send_hi = lower ? hi : mid;
    s.send(data + first(send_lo) * elem, (first(send_hi) - first(send_lo)) * elem, rank ^ mask);
    landed = data + first(keep_lo) * elem;
    landed_count = first(keep_hi) - first(keep_lo);
    s.recv(incoming, landed_count * elem, rank ^ mask);
    lo = keep_lo;
    hi = keep_hi;
  }
  s.next_round();
  s.reduce(incoming, landed, landed_count);
  for (int mask = 1; mask < size; mask <<= 1) {
    s.next_round();
    const bool lower = (rank & mask) == 0;
    const int other_lo = lower ? hi : lo - mask, other_hi = lower ? hi + mask : lo;
    s.send(data + first(lo) * elem, (first(hi) - first(lo)) * elem, rank ^ mask);
    s.recv(data + first(other_lo) * elem, (first(other_hi) - first(other_lo)) * elem, rank ^ mask);
    lo = std::min(lo, other_lo);
    hi = std::max(hi, other_hi);
  }
}

}  // namespace

void schedule_allreduce(Schedule& s, const Comm& comm, void* buffer, std::size_t count, std::size_t elem,
                        bool commutative) {
  const int size = comm.size;
  if (size == 1) return;
  if (!commutative || (size & (size - 1)) != 0) {
    schedule_reduce(s, comm, buffer, count, elem, commutative, 0);
    return schedule_bcast(s, comm, buffer, count * elem, 0);
  }
  const std::size_t bytes = count * elem;
  if (bytes >= kLargeAllreduceBytes && count >= static_cast<std::size_t>(size)) {
    return schedule_allreduce_halving_doubling(s, comm, static_cast<std::byte*>(buffer), count, elem);
  }
  std::byte* incoming = s.scratch(bytes);
  for (int mask = 1; mask < size; mask <<= 1) {
    s.next_round();
    if (mask > 1) s.reduce(incoming, buffer, count);
    s.send(buffer, bytes, comm.rank ^ mask);
    s.recv(incoming, bytes, comm.rank ^ mask);
  }
  s.next_round();
  s.reduce(incoming, buffer, count);
}

void schedule_gather(Schedule& s, const Comm& comm, const void* own, const std::vector<Block>& blocks, int root) {
  s.next_round();
  const auto rank = static_cast<std::size_t>(comm.rank);
  if (comm.rank != root) {
    s.send(own, blocks[rank].bytes, root);
    return;
  }
  for (int r = 0; r < comm.size; ++r) {
    const Block& block = blocks[static_cast<std::size_t>(r)];
    if (r != root) {
      s.recv(block.data, block.bytes, r);
    } else if (own != nullptr) {
      s.copy(own, block.data, block.bytes);
    }
  }
}

void schedule_scatter(Schedule& s, const Comm& comm, void* own, const std::vector<Block>& blocks, int root) {
  s.next_round();
  const auto rank = static_cast<std::size_t>(comm.rank);
  if (comm.rank != root) {
    s.recv(own, blocks[rank].bytes, root);
    return;
  }
  for (int r = 0; r < comm.size; ++r) {
    const Block& block = blocks[static_cast<std::size_t>(r)];
    if (r != root) {
      s.send(block.data, block.bytes, r);
    } else if (own != nullptr) {
      s.copy(block.data, own, block.bytes);
    }
  }
}

void schedule_allgather(Schedule& s, const Comm& comm, const std::vector<Block>& blocks) {
  const int size = comm.size;
  const int right = (comm.rank + 1) % size;
  const int left = (comm.rank - 1 + size) % size;
  for (int step = 0; step < size - 1; ++step) {
    s.next_round();
    const Block& out = blocks[static_cast<std::size_t>((comm.rank - step + size) % size)];
    const Block& in = blocks[static_cast<std::size_t>((comm.rank - step - 1 + size) % size)];
    s.send(out.data, out.bytes, right);
    s.recv(in.data, in.bytes, left);
  }
}

void schedule_alltoall(Schedule& s, const Comm& comm, const std::vector<Block>& send, const std::vector<Block>& recv) {
  const int size = comm.size;
  const auto rank = static_cast<std::size_t>(comm.rank);
  s.next_round();
  s.copy(send[rank].data, recv[rank].data, recv[rank].bytes);
  for (int distance = 1; distance < size; ++distance) {
    s.next_round();
    const int to = (comm.rank + distance) % size;
    const int from = (comm.rank - distance + size) % size;
    s.send(send[static_cast<std::size_t>(to)].data, send[static_cast<std::size_t>(to)].bytes, to);
    s.recv(recv[static_cast<std::size_t>(from)].data, recv[static_cast<std::size_t>(from)].bytes, from);
  }
}

void schedule_scan(Schedule& s, const Comm& comm, void* accumulator, std::size_t count, std::size_t elem) {
  const std::size_t bytes = count * elem;
  s.next_round();
  if (comm.rank > 0) {
    std::byte* prefix = s.scratch(bytes);
    s.recv(prefix, bytes, comm.rank - 1);
    s.next_round();
    s.reduce(prefix, accumulator, count);
  }
  if (comm.rank + 1 < comm.size) s.send(accumulator, bytes, comm.rank + 1);
}

void schedule_exscan(Schedule& s, const Comm& comm, const void* own, void* result, std::size_t count,
                     std::size_t elem) {
  const std::size_t bytes = count * elem;
  s.next_round();
  const void* outgoing = own;
  if (comm.rank > 0) {
    s.recv(result, bytes, comm.rank - 1);
    s.next_round();
    std::byte* combined = s.scratch(bytes);
    s.copy(own, combined, bytes);
    s.reduce(result, combined, count);
    outgoing = combined;
  }
  if (comm.rank + 1 < comm.size) s.send(outgoing, bytes, comm.rank + 1);
}

}  // namespace tern::mpi
