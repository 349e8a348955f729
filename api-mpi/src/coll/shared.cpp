// Collectives through the segment of a one-host communicator (shared.hpp).
#include "coll/shared.hpp"

#include <poll.h>
#include <sched.h>
#include <unistd.h>
#include <time.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "op/op.hpp"
#include "tern/runtime/copy.hpp"

namespace tern::mpi {
namespace {

// Per rank: kSharedSlots step lines and a done line, then the data slots of
// every rank.
constexpr std::size_t kLinesPerRank = kSharedSlots + 1;

// Spins between looks at the engine while a flag is not there yet: what we
// wait for is a peer's store, and the engine's progress costs more than a
// look at one line; but a peer may wait for us to drain its messages first.
constexpr unsigned kPollsPerProgress = 16;

}  // namespace

std::size_t SharedSegment::bytes_for(int size) noexcept {
  const auto n = static_cast<std::size_t>(size);
  return n * kLinesPerRank * sizeof(Flag) + n * kSharedSlots * kSharedSlotBytes;
}

SharedSegment::Flag& SharedSegment::line(int r, uint64_t step) const noexcept {
  return reinterpret_cast<Flag*>(base_)[kLinesPerRank * static_cast<std::size_t>(r) + step % kSharedSlots];
}

SharedSegment::Flag& SharedSegment::done(int r) const noexcept {
  return reinterpret_cast<Flag*>(base_)[kLinesPerRank * static_cast<std::size_t>(r) + kSharedSlots];
}

std::byte* SharedSegment::data(int r, uint64_t step, std::size_t bytes) const noexcept {
  if (bytes <= kSharedInline) return line(r, step).data;
  const auto n = static_cast<std::size_t>(size_);
  return base_ + n * kLinesPerRank * sizeof(Flag) +
         (kSharedSlots * static_cast<std::size_t>(r) + step % kSharedSlots) * kSharedSlotBytes;
}

void SharedSegment::publish_streamed(uint64_t step, const std::byte* from, std::size_t bytes, std::size_t piece) {
  wait_slot_free(step);
  Flag& mine = line(rank_, step);
  mine.streamed.store(0, std::memory_order_relaxed);
  mine.step.store(step, std::memory_order_release);
  std::byte* to = data(rank_, step, bytes);
  for (std::size_t offset = 0; offset < bytes; offset += piece) {
    const std::size_t n = std::min(piece, bytes - offset);
    runtime::copy_bytes(to + offset, from + offset, n);
    mine.streamed.store(offset + n, std::memory_order_release);
  }
}

void SharedSegment::publish(uint64_t step, const void* from, std::size_t bytes) {
  wait_slot_free(step);
  if (from != nullptr && bytes != 0) runtime::copy_bytes(data(rank_, step, bytes), from, bytes);
  line(rank_, step).step.store(step, std::memory_order_release);
}

SharedSegment::~SharedSegment() {
  if (mapping_ != nullptr) engine::RemoteKey::destroy(mapping_);
  if (region_ != nullptr) engine::MemRegion::unmap(region_);
}

std::unique_ptr<SharedSegment> SharedSegment::create(Comm& comm, const std::vector<int>& members) {
  // One tag base on every rank of `comm`, members or not, so that the
  // sequence stays the same everywhere.
  const unsigned tag = next_tag_base(comm);
  const auto me = std::find(members.begin(), members.end(), comm.rank);
  if (members.size() < 2 || me == members.end()) return nullptr;
  const int index = static_cast<int>(me - members.begin());
  const int leader = members.front();
  const std::size_t bytes = bytes_for(static_cast<int>(members.size()));
  engine::MemRegion* region = nullptr;
  engine::RemoteKey* mapping = nullptr;
  std::vector<std::byte> key;
  int ok = 1;
  if (index == 0) {
    engine::MemMapParams params;
    params.length = bytes;
    if (engine::MemRegion::map(params, region) == Status::Ok) {
      key = region->packed_key();
    } else {
      ok = 0;
    }
    uint64_t key_length = ok != 0 ? key.size() : 0;
    for (std::size_t m = 1; m < members.size(); ++m) {
      if (coll_send(comm, &key_length, sizeof(key_length), members[m], tag | 0) != Status::Ok ||
          coll_send(comm, key.data(), key.size(), members[m], tag | 1) != Status::Ok) {
        ok = 0;
      }
    }
    // Everyone or no one: a rank that could not map it would wait forever.
    for (std::size_t m = 1; m < members.size(); ++m) {
      int theirs = 0;
      if (coll_recv(comm, &theirs, sizeof(theirs), members[m], tag | 2) != Status::Ok) theirs = 0;
      ok = ok != 0 && theirs != 0 ? 1 : 0;
    }
    for (std::size_t m = 1; m < members.size(); ++m) (void)coll_send(comm, &ok, sizeof(ok), members[m], tag | 3);
  } else {
    uint64_t key_length = 0;
    if (coll_recv(comm, &key_length, sizeof(key_length), leader, tag | 0) != Status::Ok || key_length > (1u << 16)) {
      ok = 0;
      key_length = 0;
    }
    key.resize(key_length);
    if (coll_recv(comm, key.data(), key.size(), leader, tag | 1) != Status::Ok) ok = 0;
    if (ok != 0 && (key.empty() || engine::RemoteKey::unpack(key, mapping) != Status::Ok)) ok = 0;
    if (coll_send(comm, &ok, sizeof(ok), leader, tag | 2) != Status::Ok ||
        coll_recv(comm, &ok, sizeof(ok), leader, tag | 3) != Status::Ok) {
      ok = 0;
    }
  }
  if (ok == 0) {
    if (mapping != nullptr) engine::RemoteKey::destroy(mapping);
    if (region != nullptr) engine::MemRegion::unmap(region);
    return nullptr;
  }
  std::byte* base = index == 0 ? static_cast<std::byte*>(region->base()) : mapping->local_base();
  // Oversubscribed: more ranks of the job on this host than cores (the
  // launcher's blocking wait mode says so too).
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  Comm* world = find_comm(MPI_COMM_WORLD);
  const bool oversubscribed =
      g_state->wait_mode == runtime::WaitMode::Block ||
      (cores > 0 && world != nullptr && static_cast<long>(node_layout(*world).local.size()) > cores);
  std::unique_ptr<SharedSegment> segment(new SharedSegment(base, static_cast<int>(members.size()), index,
                                                           oversubscribed, g_state->coll_shm == runtime::Switch::On));
  segment->region_ = region;
  segment->mapping_ = mapping;
  return segment;
}

void SharedSegment::wait_for(const std::atomic<uint64_t>& word, uint64_t value) const {
  if (word.load(std::memory_order_acquire) >= value) return;
  const State& state = *g_state;
  // More ranks than cores: the rank we wait for most likely waits for our
  // core, so hand it over at once (spinning 64-100 polls first cost about
  // 4 us per collective with 4 ranks on 2 cores).
  const std::size_t spins = state.wait_mode == runtime::WaitMode::Spin ? SIZE_MAX
                            : oversubscribed_                            ? 2
                            : state.wait_mode == runtime::WaitMode::Block ? 64
                                                                          : state.spin_count;
  std::size_t polls = 0;
  unsigned yields = 0;
  while (word.load(std::memory_order_acquire) < value) {
    // Past the spins, every look: a peer blocked on a message of ours (one
    // we forward in a tree, a send waiting for room) must not wait for our
    // next turn at the core and then 16 more.
    if ((++polls % kPollsPerProgress == 0 || polls >= spins) && state.worker->progress() != 0) {
      // Traffic (a window's requests to serve, say): spin again before sleeping.
      polls = 0;
      yields = 0;
      continue;
    }
    if (polls < spins) {
      cpu_relax();
    } else if (yields < 2048) {
      ++yields;
      sched_yield();
    } else {
      // A peer computing for long: do not burn the core meanwhile, but wake
      // for a message at once: a rank in a barrier serves its windows' agents
      // (a get from a dynamic window took 110 us on one host while its target
      // napped here, 1.2 us while it spun). Peers' stores to `word` raise no
      // event: they are seen at the next look.
      const timespec nap{0, 50'000};
      if (state.worker->progress_mode() != runtime::ProgressMode::Caller) {
        nanosleep(&nap, nullptr);
      } else if (state.worker->arm() == Status::Ok) {
        pollfd wakeup{state.worker->efd(), POLLIN, 0};
        (void)ppoll(&wakeup, 1, &nap, nullptr);
      }  // Busy: events came meanwhile, for the next look's progress
    }
  }
}

void SharedSegment::wait_slot_free(uint64_t step) {
  // One step more than the slot's last use: a split allreduce reads the
  // slots of its first step during its second.
  if (step <= kSharedSlots || all_done_ >= step - kSharedSlots + 1) return;
  uint64_t least = UINT64_MAX;
  for (int r = 0; r < size_; ++r) {
    wait_for(done(r), step - kSharedSlots + 1);
    least = std::min(least, done(r).step.load(std::memory_order_acquire));
  }
  all_done_ = least;
}

void SharedSegment::wait_all_arrived(uint64_t step) {
  for (int r = 0; r < size_; ++r) wait_arrived(r, step);
}

void SharedSegment::barrier() {
  const uint64_t step = ++step_;
  if (!oversubscribed_) {
    publish(step, nullptr, 0);
    wait_all_arrived(step);
  } else if (rank_ == 0) {
    // More ranks than cores: rank 0 gathers the arrivals and releases the
    // others, so it leaves first and what it does next (a broadcast's
    // root, most often) is under way while the others still wait for a
    // turn at a core; each of them watches one line instead of all.
    for (int r = 1; r < size_; ++r) wait_arrived(r, step);
    publish(step, nullptr, 0);
  } else {
    publish(step, nullptr, 0);
    wait_arrived(0, step);
  }
  finish(step);
}

void SharedSegment::bcast(void* buffer, std::size_t bytes, int root) {
  const uint64_t step = ++step_;
  if (rank_ == root) {
    publish(step, buffer, bytes);
  } else {
    wait_arrived(root, step);
    runtime::copy_bytes(buffer, data(root, step, bytes), bytes);
  }
  finish(step);
}

Status SharedSegment::combine(uint64_t step, void* out, std::size_t count, const TypeInfo& type,
                              MPI_Datatype type_handle, MPI_Op op) const {
  // a0 op (a1 op (... op an-1)): apply_op computes inout = in op inout.
  const std::size_t bytes = count * type.size;
  runtime::copy_bytes(out, data(size_ - 1, step, bytes), bytes);
  for (int r = size_ - 2; r >= 0; --r) {
    if (apply_op(op, type_handle, data(r, step, bytes), out, count) != MPI_SUCCESS) return Status::InvalidParam;
  }
  return Status::Ok;
}

Status SharedSegment::combine_range(uint64_t step, std::byte* out, std::size_t first, std::size_t count,
                                    const TypeInfo& type, MPI_Datatype type_handle, MPI_Op op) {
  // As combine(), over elements [first, first + count) of a slot-sized step,
  // into `out`, that range of our own slot: our contribution is set aside
  // first, since the result overwrites it.
  const std::size_t offset = first * type.size;
  const std::size_t bytes = count * type.size;
  scratch_.resize(bytes);
  runtime::copy_bytes(scratch_.data(), out, bytes);
  auto input = [&](int r) -> std::byte* {
    return r == rank_ ? scratch_.data() : data(r, step, kSharedSlotBytes) + offset;
  };
  runtime::copy_bytes(out, input(size_ - 1), bytes);
  for (int r = size_ - 2; r >= 0; --r) {
    if (apply_op(op, type_handle, input(r), out, count) != MPI_SUCCESS) return Status::InvalidParam;
  }
  return Status::Ok;
}

namespace {

// Calls piece(part, n) over `buffer` in slot-sized pieces of whole elements
// (once for an empty vector, which still takes its step on every rank).
template <typename Piece>
Status by_pieces(void* buffer, std::size_t count, const TypeInfo& type, Piece&& piece) {
  const std::size_t per_piece = kSharedSlotBytes / type.size;
  auto* data_at = static_cast<std::byte*>(buffer);
  Status status = Status::Ok;
  std::size_t first = 0;
  do {
    const std::size_t n = std::min(per_piece, count - first);
    const Status s = piece(data_at + first * type.size, n);
    if (status == Status::Ok) status = s;
    first += n;
  } while (first < count);
  return status;
}

}  // namespace

Status SharedSegment::allreduce(void* buffer, std::size_t count, const TypeInfo& type, MPI_Datatype type_handle,
                                MPI_Op op) {
  return by_pieces(buffer, count, type, [&](std::byte* part, std::size_t n) {
    const uint64_t step = ++step_;
    publish(step, part, n * type.size);
    wait_all_arrived(step);
    // Oversubscribed, the second step's wait costs a turn at the core more
    // than the combining it shares saves (4 ranks on 2 cores: 4-64 KiB
    // 1.6-2x slower split).
    if (n * type.size < kSplitCombineBytes || oversubscribed_) {
      const Status status = combine(step, part, n, type, type_handle, op);
      finish(step);
      return status;
    }
    // Each rank combines its share of the elements into that share of its
    // own slot, which only it reads in this step, and announces it in a
    // second step; then everyone copies every share.
    auto share = [&](int r) { return n * static_cast<std::size_t>(r) / static_cast<std::size_t>(size_); };
    const std::size_t mine = share(rank_), mine_count = share(rank_ + 1) - mine;
    std::byte* result = data(rank_, step, kSharedSlotBytes) + mine * type.size;
    Status status = Status::Ok;
    if (mine_count != 0) status = combine_range(step, result, mine, mine_count, type, type_handle, op);
    const uint64_t results = ++step_;
    publish(results, nullptr, 0);
    for (int r = 0; r < size_; ++r) {
      wait_arrived(r, results);
      const std::size_t from = share(r), from_count = share(r + 1) - from;
      runtime::copy_bytes(part + from * type.size, data(r, step, kSharedSlotBytes) + from * type.size,
                          from_count * type.size);
    }
    finish(results);
    return status;
  });
}

Status SharedSegment::reduce(void* buffer, std::size_t count, const TypeInfo& type, MPI_Datatype type_handle,
                             MPI_Op op, int root) {
  // The root combines into its own buffer in one pass where the order does
  // not matter; nobody reads its contribution then.
  const bool root_in_place = rank_ == root && op_commutative(op);
  // Long enough, and folded by the root as it arrives: streamed in pieces of
  // whole elements.
  const std::size_t stream_piece = kSharedStreamBytes / type.size * type.size;
  return by_pieces(buffer, count, type, [&](std::byte* part, std::size_t n) {
    const uint64_t step = ++step_;
    const std::size_t bytes = n * type.size;
    const bool streamed = op_commutative(op) && bytes >= 2 * kSharedStreamBytes;
    Status status = Status::Ok;
    if (root_in_place) {
      for (int r = 0; r < size_; ++r) {
        if (r == root) continue;
        wait_arrived(r, step);
        const std::byte* in = data(r, step, bytes);
        const std::size_t piece = streamed ? stream_piece : bytes;
        for (std::size_t offset = 0; offset < bytes; offset += piece) {
          const std::size_t m = std::min(piece, bytes - offset);
          if (streamed) wait_for(line(r, step).streamed, offset + m);
          if (status == Status::Ok &&
              apply_op(op, type_handle, in + offset, part + offset, m / type.size) != MPI_SUCCESS) {
            status = Status::InvalidParam;
          }
        }
      }
    } else if (streamed && rank_ != root) {
      publish_streamed(step, part, bytes, stream_piece);
    } else {
      publish(step, part, bytes);
      if (rank_ == root) {
        wait_all_arrived(step);
        status = combine(step, part, n, type, type_handle, op);
      }
    }
    finish(step);
    return status;
  });
}

void SharedSegment::allgather(const void* mine, std::size_t block, void* out) {
  const auto* from = static_cast<const std::byte*>(mine);
  auto* to = static_cast<std::byte*>(out);
  for (std::size_t offset = 0; offset < block || offset == 0; offset += kSharedSlotBytes) {
    const std::size_t n = std::min(kSharedSlotBytes, block - offset);
    const uint64_t step = ++step_;
    publish(step, from + offset, n);
    for (int r = 0; r < size_; ++r) {
      std::byte* place = to + static_cast<std::size_t>(r) * block + offset;
      if (r == rank_) {
        // Ours from where it is (nothing to do in place), not from the slot.
        if (place != from + offset) runtime::copy_bytes(place, from + offset, n);
        continue;
      }
      wait_arrived(r, step);
      runtime::copy_bytes(place, data(r, step, n), n);
    }
    finish(step);
    if (block == 0) break;
  }
}

void SharedSegment::alltoall(const void* send, std::size_t block, void* recv) {
  const std::size_t bytes = block * static_cast<std::size_t>(size_);
  const uint64_t step = ++step_;
  publish(step, send, bytes);
  auto* to = static_cast<std::byte*>(recv);
  const std::size_t mine = static_cast<std::size_t>(rank_) * block;
  for (int r = 0; r < size_; ++r) {
    wait_arrived(r, step);
    runtime::copy_bytes(to + static_cast<std::size_t>(r) * block, data(r, step, bytes) + mine, block);
  }
  finish(step);
}

namespace {

// A communicator's segment, looked at once: `make` runs on the first call
// (null: none), the state says so afterwards. While it runs the segment is
// being created (over messages of its own) and none is handed out.
template <typename Make>
SharedSegment* lazy_segment(Comm::SharedState& state, std::shared_ptr<SharedSegment>& held, Make&& make) {
  if (state == Comm::SharedState::Ready) return held.get();
  if (state != Comm::SharedState::Unknown) return nullptr;
  state = Comm::SharedState::Creating;
  std::unique_ptr<SharedSegment> segment = make();
  state = segment != nullptr ? Comm::SharedState::Ready : Comm::SharedState::None;
  held = std::move(segment);
  return held.get();
}

}  // namespace

SharedSegment* shared_segment(Comm& comm) {
  return lazy_segment(comm.shared_state, comm.shared, [&comm]() -> std::unique_ptr<SharedSegment> {
    if (comm.inter || comm.size < 2 || comm.size > kSharedMaxRanks || g_state->coll_shm == runtime::Switch::Off) {
      return nullptr;
    }
    if (node_layout(comm).local.size() != static_cast<std::size_t>(comm.size)) return nullptr;  // several hosts
    std::vector<int> everyone(static_cast<std::size_t>(comm.size));
    for (int r = 0; r < comm.size; ++r) everyone[r] = r;
    return SharedSegment::create(comm, everyone);
  });
}

SharedSegment* node_segment(Comm& comm, const NodeLayout& layout) {
  return lazy_segment(comm.node_shared_state, comm.node_shared, [&]() -> std::unique_ptr<SharedSegment> {
    // Off for the whole job (every rank reads the same setting): no rank
    // takes the tag base that creating does.
    if (g_state->coll_shm == runtime::Switch::Off) return nullptr;
    const bool fits = layout.local.size() <= static_cast<std::size_t>(kSharedMaxRanks);
    return SharedSegment::create(comm, fits ? layout.local : std::vector<int>{});
  });
}

}  // namespace tern::mpi
