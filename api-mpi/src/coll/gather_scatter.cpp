// Gathers and scatters: linear gather(v) and scatter(v), gather + broadcast
// allgather (one step through the shared segment of a one-host
// communicator for blocks up to kSharedVectorBytes), ring allgatherv.
#include <algorithm>
#include <cstring>
#include <vector>

#include "coll/coll.hpp"
#include "coll/inter.hpp"
#include "coll/shared.hpp"

namespace tern::mpi {
namespace {


// Gatherv (`gather`) and Scatterv on an intercommunicator: `mine` a
// member's own part, `parts` the root's buffer, whose counts and
// displacements go in as ints.
template <class Count, class Displ>
int inter_rooted_v(Comm& inter, const char* function, bool gather, const void* mine, MPI_Count mine_count,
                   MPI_Datatype mine_type, const void* parts, const Count counts[], const Displ displs[],
                   MPI_Datatype type, int root) {
  IntCounts narrow;
  int count = 0;
  if (int err = narrow_rooted(inter, function, counts, displs, mine_count, root, narrow, count); err != MPI_SUCCESS) {
    return err;
  }
  return inter_rooted(inter, function, gather, mine, count, mine_type, parts,
                      InterLayout{.counts = narrow.counts, .displs = narrow.displs, .type = type, .varying = true},
                      root);
}

int gather(const char* kFunction, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
           MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    int send = 0, recv = 0;
    if (int err = narrow_pair(inter, kFunction, sendcount, recvcount, kInterPath, send, recv); err != MPI_SUCCESS) {
      return err;
    }
    return inter_rooted(*inter, kFunction, true, sendbuf, send, sendtype, recvbuf,
                        InterLayout{.uniform = recv, .type = recvtype}, root);
  }
  if (TERN_UNLIKELY(is_derived_handle(sendtype) || is_derived_handle(recvtype)) && g_state != nullptr &&
      find_comm(handle) != nullptr) {
    Comm* c = find_comm(handle);
    if (root < 0 || root >= c->size) return check_root(kFunction, *c, root);
    const bool recv_matters = c->rank == root;
    if ((is_derived_handle(sendtype) && !(recv_matters && sendbuf == MPI_IN_PLACE)) ||
        (recv_matters && is_derived_handle(recvtype))) {
      int send = 0, recv = 0;
      if (int err = narrow_pair(c, kFunction, sendcount, recv_matters ? recvcount : 0, kDerivedPath, send, recv);
          err != MPI_SUCCESS) {
        return err;
      }
      return derived_gather(kFunction, sendbuf, send, sendtype, recvbuf, recv, recvtype, root, handle);
    }
  }
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  const TypeInfo* stype = nullptr;
  if (int err = check_coll(kFunction, handle, sendcount, sendtype, comm, stype); err != MPI_SUCCESS) return err;
  if (int err = check_root(kFunction, *comm, root); err != MPI_SUCCESS) return err;
  const bool is_root = comm->rank == root;
  const std::size_t send_bytes = static_cast<std::size_t>(sendcount) * stype->size;
  const unsigned tag = next_tag_base(*comm);
  if (!is_root) {
    if (Status s = coll_send(*comm, sendbuf, send_bytes, root, tag); s != Status::Ok) {
      return coll_failed(*comm, kFunction, s);
    }
    return MPI_SUCCESS;
  }
  const TypeInfo* rtype = nullptr;
  if (int err = check_coll(kFunction, handle, recvcount, recvtype, comm, rtype); err != MPI_SUCCESS) return err;
  const std::size_t block = static_cast<std::size_t>(recvcount) * rtype->size;
  std::byte* out = static_cast<std::byte*>(recvbuf);
  if (sendbuf != MPI_IN_PLACE && block != 0) {
    std::memcpy(out + static_cast<std::size_t>(root) * block, sendbuf, std::min(block, send_bytes));
  }
  std::vector<engine::Request*> pending;
  Status result = Status::Ok;
  for (int source = 0; source < comm->size; ++source) {
    if (source == root) continue;
    engine::Request* request = nullptr;
    Status s = g_state->worker->tag_recv_nb(out + static_cast<std::size_t>(source) * block, block,
                                            make_tag(collective_context(*comm), static_cast<unsigned>(source), tag),
                                            engine::kTagMaskAll, request);
    if (s == Status::InProgress) {
      pending.push_back(request);
    } else if (s != Status::Ok && result == Status::Ok) {
      result = s;
    }
  }
  for (engine::Request* request : pending) {
    Status s = g_state->worker->wait(request);
    if (s != Status::Ok && result == Status::Ok) result = s;
  }
  if (result != Status::Ok) return coll_failed(*comm, kFunction, result);
  return MPI_SUCCESS;
}

int allgather(const char* kFunction, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    int send = 0, recv = 0;
    if (int err = narrow_pair(inter, kFunction, sendcount, recvcount, kInterPath, send, recv); err != MPI_SUCCESS) {
      return err;
    }
    return inter_all(*inter, kFunction, sendbuf, InterLayout{.uniform = send, .type = sendtype, .repeat = true},
                     recvbuf, InterLayout{.uniform = recv, .type = recvtype});
  }
  if (TERN_UNLIKELY((is_derived_handle(sendtype) && sendbuf != MPI_IN_PLACE) || is_derived_handle(recvtype)) &&
      g_state != nullptr && find_comm(handle) != nullptr) {
    const Comm* c = find_comm(handle);
    const auto n = static_cast<std::size_t>(c->size);
    std::vector<MPI_Count> counts(n, recvcount);
    std::vector<MPI_Aint> displs(n);
    for (std::size_t r = 0; r < n; ++r) displs[r] = static_cast<MPI_Aint>(r) * recvcount;
    IntCounts narrow;
    int send = 0;
    if (int err = narrow.narrow(c, kFunction, counts.data(), displs.data(), c->size, kDerivedPath);
        err != MPI_SUCCESS) {
      return err;
    }
    if (int err = narrow_count(c, kFunction, sendcount, kDerivedPath, send); err != MPI_SUCCESS) return err;
    return derived_allgatherv(kFunction, sendbuf, send, sendtype, recvbuf, narrow.counts, narrow.displs, recvtype,
                              handle, true);
  }
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  const TypeInfo* rtype = nullptr;
  if (int err = check_coll(kFunction, handle, recvcount, recvtype, comm, rtype); err != MPI_SUCCESS) return err;
  const std::size_t block = static_cast<std::size_t>(recvcount) * rtype->size;
  const void* mine = sendbuf;
  if (sendbuf == MPI_IN_PLACE) {
    // Our block is already in place; gather it from there.
    mine = static_cast<const std::byte*>(recvbuf) + static_cast<std::size_t>(comm->rank) * block;
    sendcount = recvcount;
    sendtype = recvtype;
  }
  // One step through the segment of a one-host communicator, when the
  // arguments are such that the messages below would not refuse them.
  if (block <= kSharedVectorBytes && (block == 0 || recvbuf != nullptr)) {
    const TypeInfo* stype = find_type(sendtype);
    if (stype != nullptr && sendcount >= 0 && static_cast<std::size_t>(sendcount) * stype->size == block &&
        (block == 0 || mine != nullptr)) {
      if (SharedSegment* shared = shared_segment(*comm)) {
        shared->allgather(mine, block, recvbuf);
        return MPI_SUCCESS;
      }
    }
  }
  if (sendbuf == MPI_IN_PLACE && comm->rank == 0) mine = MPI_IN_PLACE;
  if (int err = gather(kFunction, mine, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, handle);
      err != MPI_SUCCESS) {
    return err;
  }
  if (Status s = coll_bcast(*comm, recvbuf, block * static_cast<std::size_t>(comm->size), 0); s != Status::Ok) {
    return coll_failed(*comm, kFunction, s);
  }
  return MPI_SUCCESS;
}

template <class Count, class Displ>
int scatterv(const char* kFunction, const void* sendbuf, const Count sendcounts[], const Displ displs[],
             MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
             MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    return inter_rooted_v(*inter, kFunction, false, recvbuf, recvcount, recvtype, sendbuf, sendcounts, displs,
                          sendtype, root);
  }
  if (TERN_UNLIKELY(is_derived_handle(sendtype) || is_derived_handle(recvtype)) && g_state != nullptr &&
      find_comm(handle) != nullptr) {
    Comm* c = find_comm(handle);
    if (root < 0 || root >= c->size) return check_root(kFunction, *c, root);
    const bool is_root = c->rank == root;
    if ((is_root && is_derived_handle(sendtype)) ||
        (is_derived_handle(recvtype) && !(is_root && recvbuf == MPI_IN_PLACE))) {
      IntCounts narrow;
      int recv = 0;
      if (int err = narrow_rooted(*c, kFunction, sendcounts, displs, recvcount, root, narrow, recv);
          err != MPI_SUCCESS) {
        return err;
      }
      return derived_scatterv(kFunction, sendbuf, narrow.counts, narrow.displs, sendtype, recvbuf, recv, recvtype,
                              root, handle);
    }
  }
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  if (int err = check_comm_root(kFunction, handle, root, comm); err != MPI_SUCCESS) return err;
  const bool is_root = comm->rank == root;
  const bool in_place = is_root && recvbuf == MPI_IN_PLACE;
  std::size_t recv_bytes = 0;
  if (!in_place) {
    const TypeInfo* rtype = nullptr;
    if (int err = check_coll(kFunction, handle, recvcount, recvtype, comm, rtype); err != MPI_SUCCESS) return err;
    recv_bytes = static_cast<std::size_t>(recvcount) * rtype->size;
    if (recv_bytes != 0 && recvbuf == nullptr) return raise(comm, MPI_ERR_BUFFER, kFunction, "null receive buffer");
  }
  if (!is_root) {
    const unsigned tag = next_tag_base(*comm);
    if (Status s = coll_recv(*comm, recvbuf, recv_bytes, root, tag); s != Status::Ok) {
      return coll_failed(*comm, kFunction, s);
    }
    return MPI_SUCCESS;
  }
  const TypeInfo* stype = find_type(sendtype);
  if (stype == nullptr) return type_error(comm, kFunction, sendtype);
  if (int err = check_counts(kFunction, *comm, "send", sendcounts, displs); err != MPI_SUCCESS) return err;
  const unsigned tag = next_tag_base(*comm);
  Batch batch(*comm, tag);
  for (int i = 1; i < comm->size; ++i) {
    const int r = (root + i) % comm->size;
    batch.send(at(sendbuf, displs[r], stype->size), static_cast<std::size_t>(sendcounts[r]) * stype->size, r);
  }
  if (!in_place) {
    const std::size_t bytes = std::min(recv_bytes, static_cast<std::size_t>(sendcounts[root]) * stype->size);
    if (bytes != 0) std::memmove(recvbuf, at(sendbuf, displs[root], stype->size), bytes);
  }
  if (Status s = batch.wait(); s != Status::Ok) return coll_failed(*comm, kFunction, s);
  return MPI_SUCCESS;
}

int scatter(const char* kFunction, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
            MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    int send = 0, recv = 0;
    if (int err = narrow_pair(inter, kFunction, sendcount, recvcount, kInterPath, send, recv); err != MPI_SUCCESS) {
      return err;
    }
    return inter_rooted(*inter, kFunction, false, recvbuf, recv, recvtype, sendbuf,
                        InterLayout{.uniform = send, .type = sendtype}, root);
  }
  if (TERN_UNLIKELY(is_derived_handle(sendtype) || is_derived_handle(recvtype)) && g_state != nullptr &&
      find_comm(handle) != nullptr) {
    Comm* c = find_comm(handle);
    if (root < 0 || root >= c->size) return check_root(kFunction, *c, root);
    const bool is_root = c->rank == root;
    if ((is_root && is_derived_handle(sendtype)) ||
        (is_derived_handle(recvtype) && !(is_root && recvbuf == MPI_IN_PLACE))) {
      int send = 0, recv = 0;
      if (int err = narrow_pair(c, kFunction, is_root ? sendcount : 0, recvcount, kDerivedPath, send, recv);
          err != MPI_SUCCESS) {
        return err;
      }
      return derived_scatter(kFunction, sendbuf, send, sendtype, recvbuf, recv, recvtype, root, handle);
    }
  }
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  if (int err = check_comm_root(kFunction, handle, root, comm); err != MPI_SUCCESS) return err;
  std::vector<MPI_Count> counts;
  std::vector<MPI_Aint> displs;
  if (comm->rank == root) {
    if (sendcount < 0) return raise(comm, MPI_ERR_COUNT, kFunction, "invalid count %lld", sendcount);
    counts.assign(static_cast<std::size_t>(comm->size), sendcount);
    displs.resize(static_cast<std::size_t>(comm->size));
    for (int r = 0; r < comm->size; ++r) displs[static_cast<std::size_t>(r)] = r * sendcount;
  }
  return scatterv(kFunction, sendbuf, counts.data(), displs.data(), sendtype, recvbuf, recvcount, recvtype, root,
                  handle);
}

template <class Count, class Displ>
int gatherv(const char* kFunction, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
            const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype, int root, MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    return inter_rooted_v(*inter, kFunction, true, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                          recvtype, root);
  }
  if (TERN_UNLIKELY(is_derived_handle(sendtype) || is_derived_handle(recvtype)) && g_state != nullptr &&
      find_comm(handle) != nullptr) {
    Comm* c = find_comm(handle);
    if (root < 0 || root >= c->size) return check_root(kFunction, *c, root);
    const bool is_root = c->rank == root;
    if ((is_derived_handle(sendtype) && !(is_root && sendbuf == MPI_IN_PLACE)) ||
        (is_root && is_derived_handle(recvtype))) {
      IntCounts narrow;
      int send = 0;
      if (int err = narrow_rooted(*c, kFunction, recvcounts, displs, sendcount, root, narrow, send);
          err != MPI_SUCCESS) {
        return err;
      }
      return derived_gatherv(kFunction, sendbuf, send, sendtype, recvbuf, narrow.counts, narrow.displs, recvtype,
                             root, handle);
    }
  }
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  if (int err = check_comm_root(kFunction, handle, root, comm); err != MPI_SUCCESS) return err;
  const bool is_root = comm->rank == root;
  const bool in_place = is_root && sendbuf == MPI_IN_PLACE;
  std::size_t send_bytes = 0;
  if (!in_place) {
    const TypeInfo* stype = nullptr;
    if (int err = check_coll(kFunction, handle, sendcount, sendtype, comm, stype); err != MPI_SUCCESS) return err;
    send_bytes = static_cast<std::size_t>(sendcount) * stype->size;
    if (send_bytes != 0 && sendbuf == nullptr) return raise(comm, MPI_ERR_BUFFER, kFunction, "null send buffer");
  }
  if (!is_root) {
    const unsigned tag = next_tag_base(*comm);
    if (Status s = coll_send(*comm, sendbuf, send_bytes, root, tag); s != Status::Ok) {
      return coll_failed(*comm, kFunction, s);
    }
    return MPI_SUCCESS;
  }
  const TypeInfo* rtype = find_type(recvtype);
  if (rtype == nullptr) return type_error(comm, kFunction, recvtype);
  if (int err = check_counts(kFunction, *comm, "receive", recvcounts, displs); err != MPI_SUCCESS) return err;
  const unsigned tag = next_tag_base(*comm);
  Batch batch(*comm, tag);
  for (int r = 0; r < comm->size; ++r) {
    if (r == root) continue;
    batch.recv(at(recvbuf, displs[r], rtype->size), static_cast<std::size_t>(recvcounts[r]) * rtype->size, r);
  }
  if (!in_place) {
    const std::size_t bytes = std::min(send_bytes, static_cast<std::size_t>(recvcounts[root]) * rtype->size);
    if (bytes != 0) std::memmove(at(recvbuf, displs[root], rtype->size), sendbuf, bytes);
  }
  if (Status s = batch.wait(); s != Status::Ok) return coll_failed(*comm, kFunction, s);
  return MPI_SUCCESS;
}

template <class Count, class Displ>
int allgatherv(const char* kFunction, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
               const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype, MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    IntCounts narrow;
    int send = 0;
    if (int err = narrow_all(*inter, kFunction, recvcounts, displs, inter->remote_size, sendcount, kInterPath, narrow,
                             send);
        err != MPI_SUCCESS) {
      return err;
    }
    return inter_all(*inter, kFunction, sendbuf, InterLayout{.uniform = send, .type = sendtype, .repeat = true},
                     recvbuf,
                     InterLayout{.counts = narrow.counts, .displs = narrow.displs, .type = recvtype, .varying = true});
  }
  if (TERN_UNLIKELY((is_derived_handle(sendtype) && sendbuf != MPI_IN_PLACE) || is_derived_handle(recvtype)) &&
      g_state != nullptr && find_comm(handle) != nullptr) {
    const Comm* c = find_comm(handle);
    IntCounts narrow;
    int send = 0;
    if (int err = narrow_all(*c, kFunction, recvcounts, displs, c->size, sendcount, kDerivedPath, narrow, send);
        err != MPI_SUCCESS) {
      return err;
    }
    return derived_allgatherv(kFunction, sendbuf, send, sendtype, recvbuf, narrow.counts, narrow.displs, recvtype,
                              handle, false);
  }
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", handle);
  const TypeInfo* rtype = find_type(recvtype);
  if (rtype == nullptr) return type_error(comm, kFunction, recvtype);
  if (int err = check_counts(kFunction, *comm, "receive", recvcounts, displs); err != MPI_SUCCESS) return err;
  const int rank = comm->rank;
  const int size = comm->size;
  auto block = [&](int r) { return at(recvbuf, displs[r], rtype->size); };
  auto block_bytes = [&](int r) { return static_cast<std::size_t>(recvcounts[r]) * rtype->size; };
  if (sendbuf != MPI_IN_PLACE) {
    const TypeInfo* stype = nullptr;
    if (int err = check_coll(kFunction, handle, sendcount, sendtype, comm, stype); err != MPI_SUCCESS) return err;
    const std::size_t bytes = std::min(block_bytes(rank), static_cast<std::size_t>(sendcount) * stype->size);
    if (bytes != 0) std::memmove(block(rank), sendbuf, bytes);
  }
  // Ring: in step k pass on the block that came in at step k - 1. One tag
  // for every step; messages from the same neighbour arrive in order.
  const unsigned tag = next_tag_base(*comm);
  const int right = (rank + 1) % size;
  const int left = (rank - 1 + size) % size;
  for (int step = 0; step < size - 1; ++step) {
    const int out = (rank - step + size) % size;
    const int in = (rank - step - 1 + size) % size;
    if (Status s = coll_sendrecv(*comm, block(out), block_bytes(out), right, block(in), block_bytes(in), left, tag);
        s != Status::Ok) {
      return coll_failed(*comm, kFunction, s);
    }
  }
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

// Each call in its int and large-count (_c) form, over one implementation.
int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int PMPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gather("MPI_Gather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gatherv("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}

int PMPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm) {
  return gatherv("MPI_Gatherv_c", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}

int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatter("MPI_Scatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int PMPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatter("MPI_Scatter_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatterv("MPI_Scatterv", sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int PMPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm) {
  return scatterv("MPI_Scatterv_c", sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int PMPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather("MPI_Allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int PMPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv("MPI_Allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

#pragma weak MPI_Gather = PMPI_Gather
#pragma weak MPI_Gather_c = PMPI_Gather_c
#pragma weak MPI_Gatherv = PMPI_Gatherv
#pragma weak MPI_Gatherv_c = PMPI_Gatherv_c
#pragma weak MPI_Scatter = PMPI_Scatter
#pragma weak MPI_Scatter_c = PMPI_Scatter_c
#pragma weak MPI_Scatterv = PMPI_Scatterv
#pragma weak MPI_Scatterv_c = PMPI_Scatterv_c
#pragma weak MPI_Allgather = PMPI_Allgather
#pragma weak MPI_Allgather_c = PMPI_Allgather_c
#pragma weak MPI_Allgatherv = PMPI_Allgatherv
#pragma weak MPI_Allgatherv_c = PMPI_Allgatherv_c

}  // extern "C"
