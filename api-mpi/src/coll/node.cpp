// Node-aware barrier, broadcast and allreduce: the ranks of a host meet at
// their leader (its lowest rank), only the leaders talk across hosts, and
// each leader hands the result back to its host. A communicator spread over
// several hosts with several ranks on some sends one message per host across
// the network per step instead of one per rank. On a host the ranks meet
// through the segment they share (coll/shared.hpp) up to a slot's size, by
// messages through the shared-memory transport beyond it.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "coll/scratch.hpp"
#include "coll/shared.hpp"
#include "op/op.hpp"
#include "state.hpp"
#include "tern/runtime/log.hpp"

namespace tern::mpi {
namespace {

// Binomial broadcast among `members` (communicator ranks) from
// members[root_index]; `index` is this rank's place among them.
Status bcast_among(Comm& comm, const std::vector<int>& members, int index, int root_index, void* buffer,
                   std::size_t bytes, unsigned tag) {
  const int size = static_cast<int>(members.size());
  const int relative = (index - root_index + size) % size;
  int mask = 1;
  while (mask < size) {
    if (relative & mask) {
      const int parent = members[(relative - mask + root_index) % size];
      if (Status s = coll_recv(comm, buffer, bytes, parent, tag); s != Status::Ok) return s;
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (relative + mask < size) {
      const int child = members[(relative + mask + root_index) % size];
      if (Status s = coll_send(comm, buffer, bytes, child, tag); s != Status::Ok) return s;
    }
  }
  return Status::Ok;
}

// Allreduce among `members` in place: recursive doubling for a power-of-two
// count, else a binomial reduction to members[0] and a broadcast back.
Status allreduce_among(Comm& comm, const std::vector<int>& members, int index, void* buffer, std::size_t count,
                       const TypeInfo& type, MPI_Datatype type_handle, MPI_Op op, unsigned base, unsigned round) {
  const int size = static_cast<int>(members.size());
  const std::size_t bytes = count * type.size;
  ScratchBuffer incoming(bytes);
  if (incoming.failed()) return Status::NoMemory;
  if ((size & (size - 1)) == 0) {
    for (int mask = 1; mask < size; mask <<= 1, ++round) {
      const int partner = members[index ^ mask];
      if (Status s = coll_sendrecv(comm, buffer, bytes, partner, incoming.data(), bytes, partner, base | round);
          s != Status::Ok) {
        return s;
      }
      if (apply_op(op, type_handle, incoming.data(), buffer, count) != MPI_SUCCESS) return Status::InvalidParam;
    }
    return Status::Ok;
  }
  for (int mask = 1; mask < size; mask <<= 1) {
    if ((index & mask) == 0) {
      if ((index | mask) < size) {
        if (Status s = coll_recv(comm, incoming.data(), bytes, members[index | mask], base | round); s != Status::Ok) {
          return s;
        }
        if (apply_op(op, type_handle, incoming.data(), buffer, count) != MPI_SUCCESS) return Status::InvalidParam;
      }
    } else {
      if (Status s = coll_send(comm, buffer, bytes, members[index & ~mask], base | round); s != Status::Ok) return s;
      break;
    }
  }
  return bcast_among(comm, members, index, 0, buffer, bytes, base | (round + 1));
}

}  // namespace

const NodeLayout& node_layout(Comm& comm) {
  if (comm.node_layout) return *comm.node_layout;
  auto layout = std::make_shared<NodeLayout>();
  std::vector<std::string> hosts(static_cast<std::size_t>(comm.size));
  {
    StateGuard guard(*g_state);
    for (int r = 0; r < comm.size; ++r) hosts[r] = g_state->job->host_of(comm.job_ranks[r]);
  }
  std::map<std::string, int> leader_by_host;
  bool all_known = true;
  layout->leader_of.resize(hosts.size());
  for (int r = 0; r < comm.size; ++r) {
    all_known = all_known && hosts[r] != "?";
    auto [it, first] = leader_by_host.emplace(hosts[r], r);
    if (first) layout->leaders.push_back(r);
    layout->leader_of[r] = it->second;
    if (hosts[r] == hosts[comm.rank]) layout->local.push_back(r);
  }
  const auto mine = std::find(layout->leaders.begin(), layout->leaders.end(), comm.rank);
  if (mine != layout->leaders.end()) layout->leader_index = static_cast<int>(mine - layout->leaders.begin());
  const std::size_t host_count = layout->leaders.size();
  layout->worth = all_known && host_count > 1 && host_count < static_cast<std::size_t>(comm.size);
  if (layout->worth) {
    TERN_LOG(Debug, "mpi: a communicator of %d ranks on %zu hosts: node-aware barrier, broadcast and allreduce",
             comm.size, host_count);
  }
  comm.node_layout = std::move(layout);
  return *comm.node_layout;
}

// The leaders' dissemination barrier.
Status leaders_barrier(Comm& comm, const NodeLayout& layout, unsigned base, unsigned round) {
  const int count = static_cast<int>(layout.leaders.size());
  const int index = layout.leader_index;
  for (int distance = 1; distance < count; distance <<= 1, ++round) {
    const int dest = layout.leaders[(index + distance) % count];
    const int source = layout.leaders[(index - distance + count) % count];
    if (Status s = coll_sendrecv(comm, nullptr, 0, dest, nullptr, 0, source, base | round); s != Status::Ok) return s;
  }
  return Status::Ok;
}

Status node_barrier(Comm& comm, const NodeLayout& layout) {
  SharedSegment* host = node_segment(comm, layout);
  const unsigned base = next_tag_base(comm);
  const int leader = layout.local.front();
  if (host != nullptr) {
    // Everyone of the host has arrived when the first barrier ends; the
    // leader joins the second once the other hosts have.
    host->barrier();
    if (comm.rank == leader) {
      if (Status s = leaders_barrier(comm, layout, base, 2); s != Status::Ok) return s;
    }
    host->barrier();
    return Status::Ok;
  }
  if (comm.rank != leader) {
    if (Status s = coll_send(comm, nullptr, 0, leader, base | 0); s != Status::Ok) return s;
    return coll_recv(comm, nullptr, 0, leader, base | 1);
  }
  for (std::size_t i = 1; i < layout.local.size(); ++i) {
    if (Status s = coll_recv(comm, nullptr, 0, layout.local[i], base | 0); s != Status::Ok) return s;
  }
  if (Status s = leaders_barrier(comm, layout, base, 2); s != Status::Ok) return s;
  for (std::size_t i = 1; i < layout.local.size(); ++i) {
    if (Status s = coll_send(comm, nullptr, 0, layout.local[i], base | 1); s != Status::Ok) return s;
  }
  return Status::Ok;
}

Status node_bcast(Comm& comm, const NodeLayout& layout, void* buffer, std::size_t bytes, int root) {
  SharedSegment* host = bytes <= kSharedSlotBytes ? node_segment(comm, layout) : nullptr;
  const unsigned base = next_tag_base(comm);
  const int root_leader = layout.leader_of[root];
  const int leader = layout.local.front();
  if (root != root_leader) {
    if (comm.rank == root) {
      if (Status s = coll_send(comm, buffer, bytes, root_leader, base | 0); s != Status::Ok) return s;
    } else if (comm.rank == root_leader) {
      if (Status s = coll_recv(comm, buffer, bytes, root, base | 0); s != Status::Ok) return s;
    }
  }
  if (comm.rank == leader) {
    const auto root_index = static_cast<int>(
        std::find(layout.leaders.begin(), layout.leaders.end(), root_leader) - layout.leaders.begin());
    if (Status s = bcast_among(comm, layout.leaders, layout.leader_index, root_index, buffer, bytes, base | 1);
        s != Status::Ok) {
      return s;
    }
  }
  if (host != nullptr) {
    // The root keeps its buffer as it is (it may be read-only memory): what
    // the leader publishes lands in scratch there.
    std::vector<std::byte> unused(comm.rank == root && comm.rank != leader ? bytes : 0);
    host->bcast(unused.empty() ? buffer : unused.data(), bytes, 0);
    return Status::Ok;
  }
  if (comm.rank == leader) {
    for (std::size_t i = 1; i < layout.local.size(); ++i) {
      if (layout.local[i] == root) continue;
      if (Status s = coll_send(comm, buffer, bytes, layout.local[i], base | 2); s != Status::Ok) return s;
    }
    return Status::Ok;
  }
  if (comm.rank == root) return Status::Ok;
  return coll_recv(comm, buffer, bytes, leader, base | 2);
}

Status node_allreduce(Comm& comm, const NodeLayout& layout, void* buffer, std::size_t count, const TypeInfo& type,
                      MPI_Datatype type_handle, MPI_Op op) {
  const std::size_t bytes = count * type.size;
  SharedSegment* host = bytes <= kSharedSlotBytes ? node_segment(comm, layout) : nullptr;
  const unsigned base = next_tag_base(comm);
  const int leader = layout.local.front();
  if (host != nullptr) {
    // The host's sum at its leader (operations here commute), the leaders'
    // allreduce, the result back through the segment.
    if (Status s = host->reduce(buffer, count, type, type_handle, op, 0); s != Status::Ok) return s;
    if (comm.rank == leader) {
      if (Status s = allreduce_among(comm, layout.leaders, layout.leader_index, buffer, count, type, type_handle, op,
                                     base, 2);
          s != Status::Ok) {
        return s;
      }
    }
    host->bcast(buffer, bytes, 0);
    return Status::Ok;
  }
  if (comm.rank != leader) {
    if (Status s = coll_send(comm, buffer, bytes, leader, base | 0); s != Status::Ok) return s;
    return coll_recv(comm, buffer, bytes, leader, base | 1);
  }
  ScratchBuffer incoming(bytes);
  if (incoming.failed()) return Status::NoMemory;
  for (std::size_t i = 1; i < layout.local.size(); ++i) {
    if (Status s = coll_recv(comm, incoming.data(), bytes, layout.local[i], base | 0); s != Status::Ok) return s;
    if (apply_op(op, type_handle, incoming.data(), buffer, count) != MPI_SUCCESS) return Status::InvalidParam;
  }
  if (Status s = allreduce_among(comm, layout.leaders, layout.leader_index, buffer, count, type, type_handle, op,
                                 base, 2);
      s != Status::Ok) {
    return s;
  }
  for (std::size_t i = 1; i < layout.local.size(); ++i) {
    if (Status s = coll_send(comm, buffer, bytes, layout.local[i], base | 1); s != Status::Ok) return s;
  }
  return Status::Ok;
}

}  // namespace tern::mpi
