// MPI_Alltoall(v,w) and their _c forms: every transfer posted at once, waited for together
// (small alltoalls of a one-host communicator through its shared segment).
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "coll/coll.hpp"
#include "coll/inter.hpp"
#include "coll/shared.hpp"
#include "datatype/derived.hpp"

namespace tern::mpi {
namespace {

// One peer's side of MPI_Alltoallw: `count` elements of `type` at byte
// offset `displ`.
struct WBlock {
  std::shared_ptr<const DerivedType> type;
  std::size_t count = 0;
  std::size_t bytes = 0;
  MPI_Aint displ = 0;
};

template <class Count, class Displ>
int w_blocks(const char* function, const Comm& comm, const char* what, const Count counts[], const Displ displs[],
             const MPI_Datatype types[], std::vector<WBlock>& blocks) {
  if (counts == nullptr || displs == nullptr || types == nullptr) {
    return raise(&comm, MPI_ERR_ARG, function, "null %s counts, displacements or datatypes", what);
  }
  blocks.resize(static_cast<std::size_t>(comm.size));
  for (int r = 0; r < comm.size; ++r) {
    WBlock& block = blocks[static_cast<std::size_t>(r)];
    if (counts[r] < 0) {
      return raise(&comm, MPI_ERR_COUNT, function, "invalid %s count %lld for rank %d", what,
                   static_cast<long long>(counts[r]), r);
    }
    block.type = describe_type(types[r]);
    if (block.type == nullptr || !block.type->committed) {
      return raise(&comm, MPI_ERR_TYPE, function, "invalid or uncommitted %s datatype %d for rank %d", what,
                   types[r], r);
    }
    block.count = static_cast<std::size_t>(counts[r]);
    if (__builtin_mul_overflow(block.count, block.type->size, &block.bytes)) {
      return raise(&comm, MPI_ERR_COUNT, function,
                   "%s count %lld for rank %d is too large: its bytes overflow a size_t", what,
                   static_cast<long long>(counts[r]), r);
    }
    block.displ = displs[r];
  }
  return MPI_SUCCESS;
}

// Both sides' counts and displacements as ints for `path` (the send side
// left out in place).
template <class Count, class Displ>
int narrow_sides(const Comm& comm, const char* function, const void* sendbuf, const Count sendcounts[],
                 const Displ sdispls[], const Count recvcounts[], const Displ rdispls[], const char* path,
                 IntCounts& send, IntCounts& recv) {
  const int n = comm.peer_count();
  if (sendbuf != MPI_IN_PLACE) {
    if (int err = send.narrow(&comm, function, sendcounts, sdispls, n, path); err != MPI_SUCCESS) return err;
  }
  return recv.narrow(&comm, function, recvcounts, rdispls, n, path);
}

// Alltoallv and Alltoallw on an intercommunicator: `send` and `recv` name
// the type or types, the caller's counts and displacements go in as ints.
template <class Count, class Displ>
int inter_alltoall(Comm& inter, const char* function, const void* sendbuf, const Count sendcounts[],
                   const Displ sdispls[], InterLayout send, void* recvbuf, const Count recvcounts[],
                   const Displ rdispls[], InterLayout recv) {
  IntCounts send_ints, recv_ints;
  if (int err = narrow_sides(inter, function, sendbuf, sendcounts, sdispls, recvcounts, rdispls, kInterPath,
                             send_ints, recv_ints);
      err != MPI_SUCCESS) {
    return err;
  }
  send.counts = send_ints.counts;
  send.displs = send_ints.displs;
  recv.counts = recv_ints.counts;
  recv.displs = recv_ints.displs;
  send.varying = recv.varying = true;
  return inter_all(inter, function, sendbuf, send, recvbuf, recv);
}

template <class Count, class Displ>
int alltoallv(const char* kFunction, const void* sendbuf, const Count sendcounts[], const Displ sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const Count recvcounts[], const Displ rdispls[],
              MPI_Datatype recvtype, MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    return inter_alltoall(*inter, kFunction, sendbuf, sendcounts, sdispls, InterLayout{.type = sendtype}, recvbuf,
                          recvcounts, rdispls, InterLayout{.type = recvtype});
  }
  if (TERN_UNLIKELY((is_derived_handle(sendtype) && sendbuf != MPI_IN_PLACE) || is_derived_handle(recvtype)) &&
      g_state != nullptr && find_comm(handle) != nullptr) {
    IntCounts send, recv;
    if (int err = narrow_sides(*find_comm(handle), kFunction, sendbuf, sendcounts, sdispls, recvcounts, rdispls,
                               kDerivedPath, send, recv);
        err != MPI_SUCCESS) {
      return err;
    }
    return derived_alltoallv(kFunction, sendbuf, send.counts, send.displs, sendtype, recvbuf, recv.counts,
                             recv.displs, recvtype, handle);
  }
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", handle);
  const TypeInfo* rtype = find_type(recvtype);
  if (rtype == nullptr) return type_error(comm, kFunction, recvtype);
  if (int err = check_counts(kFunction, *comm, "receive", recvcounts, rdispls); err != MPI_SUCCESS) return err;
  const int size = comm->size;
  const int rank = comm->rank;
  // In place: the data to send is in the receive buffer, so send from a copy.
  std::vector<std::byte> copy;
  const TypeInfo* stype = rtype;
  if (sendbuf == MPI_IN_PLACE) {
    long long end = 0;
    for (int r = 0; r < size; ++r) end = std::max(end, static_cast<long long>(rdispls[r]) + recvcounts[r]);
    copy.resize(static_cast<std::size_t>(end) * rtype->size);
    if (!copy.empty()) std::memcpy(copy.data(), recvbuf, copy.size());
    sendbuf = copy.data();
    sendcounts = recvcounts;
    sdispls = rdispls;
  } else {
    stype = find_type(sendtype);
    if (stype == nullptr) return type_error(comm, kFunction, sendtype);
    if (int err = check_counts(kFunction, *comm, "send", sendcounts, sdispls); err != MPI_SUCCESS) return err;
  }
  const unsigned tag = next_tag_base(*comm);
  Batch batch(*comm, tag);
  for (int i = 1; i < size; ++i) {
    const int source = (rank - i + size) % size;
    batch.recv(at(recvbuf, rdispls[source], rtype->size), static_cast<std::size_t>(recvcounts[source]) * rtype->size,
               source);
  }
  for (int i = 1; i < size; ++i) {
    const int dest = (rank + i) % size;
    batch.send(at(sendbuf, sdispls[dest], stype->size), static_cast<std::size_t>(sendcounts[dest]) * stype->size, dest);
  }
  const std::size_t bytes = std::min(static_cast<std::size_t>(recvcounts[rank]) * rtype->size,
                                     static_cast<std::size_t>(sendcounts[rank]) * stype->size);
  if (bytes != 0) std::memmove(at(recvbuf, rdispls[rank], rtype->size), at(sendbuf, sdispls[rank], stype->size), bytes);
  if (Status s = batch.wait(); s != Status::Ok) return coll_failed(*comm, kFunction, s);
  return MPI_SUCCESS;
}

int alltoall(const char* kFunction, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    int send = 0, recv = 0;
    if (int err = narrow_pair(inter, kFunction, sendcount, recvcount, kInterPath, send, recv); err != MPI_SUCCESS) {
      return err;
    }
    return inter_all(*inter, kFunction, sendbuf, InterLayout{.uniform = send, .type = sendtype}, recvbuf,
                     InterLayout{.uniform = recv, .type = recvtype});
  }
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", handle);
  if (recvcount < 0) return raise(comm, MPI_ERR_COUNT, kFunction, "invalid count %lld", recvcount);
  if (sendbuf != MPI_IN_PLACE && sendcount < 0) {
    return raise(comm, MPI_ERR_COUNT, kFunction, "invalid count %lld", sendcount);
  }
  const auto n = static_cast<std::size_t>(comm->size);
  // Small exchanges of predefined types in one step through the segment of
  // a one-host communicator (up to half a slot: from there the messages,
  // one kernel copy per block, were as quick on 2 cores).
  if (sendbuf != MPI_IN_PLACE && !is_derived_handle(sendtype) && !is_derived_handle(recvtype)) {
    const TypeInfo* stype = find_type(sendtype);
    const TypeInfo* rtype = find_type(recvtype);
    if (stype != nullptr && rtype != nullptr) {
      const std::size_t block = static_cast<std::size_t>(recvcount) * rtype->size;
      if (static_cast<std::size_t>(sendcount) * stype->size == block && block * n <= kSharedSlotBytes / 2 &&
          (block == 0 || (sendbuf != nullptr && recvbuf != nullptr))) {
        if (SharedSegment* shared = shared_segment(*comm)) {
          shared->alltoall(sendbuf, block, recvbuf);
          return MPI_SUCCESS;
        }
      }
    }
  }
  std::vector<MPI_Count> scounts(n, sendcount), rcounts(n, recvcount);
  std::vector<MPI_Aint> sdispls(n), rdispls(n);
  for (std::size_t r = 0; r < n; ++r) {
    sdispls[r] = static_cast<MPI_Aint>(r) * sendcount;
    rdispls[r] = static_cast<MPI_Aint>(r) * recvcount;
  }
  return alltoallv(kFunction, sendbuf, scounts.data(), sdispls.data(), sendtype, recvbuf, rcounts.data(),
                   rdispls.data(), recvtype, handle);
}

// Every block is packed with its own datatype into a temporary, the packed
// bytes are exchanged, and each received block unpacked with its type. In
// place, the blocks to send are packed from the receive buffer first.
template <class Count, class Displ>
int alltoallw(const char* kFunction, const void* sendbuf, const Count sendcounts[], const Displ sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const Count recvcounts[], const Displ rdispls[],
              const MPI_Datatype recvtypes[], MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    return inter_alltoall(*inter, kFunction, sendbuf, sendcounts, sdispls, InterLayout{.types = sendtypes}, recvbuf,
                          recvcounts, rdispls, InterLayout{.types = recvtypes});
  }
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", handle);
  std::vector<WBlock> sends, recvs;
  if (int err = w_blocks(kFunction, *comm, "receive", recvcounts, rdispls, recvtypes, recvs); err != MPI_SUCCESS) {
    return err;
  }
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place) {
    sends = recvs;
    sendbuf = recvbuf;
  } else if (int err = w_blocks(kFunction, *comm, "send", sendcounts, sdispls, sendtypes, sends);
             err != MPI_SUCCESS) {
    return err;
  }
  const int size = comm->size;
  const int rank = comm->rank;
  std::vector<std::vector<char>> packed_out(static_cast<std::size_t>(size)), packed_in(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    const WBlock& block = sends[static_cast<std::size_t>(r)];
    packed_out[static_cast<std::size_t>(r)].resize(block.bytes + 1);
    if (block.bytes != 0) {
      pack_data(*block.type, static_cast<const char*>(sendbuf) + block.displ, block.count,
                packed_out[static_cast<std::size_t>(r)].data());
    }
    packed_in[static_cast<std::size_t>(r)].resize(recvs[static_cast<std::size_t>(r)].bytes + 1);
  }
  const unsigned tag = next_tag_base(*comm);
  Status result = Status::Ok;
  {
    Batch batch(*comm, tag);
    for (int i = 1; i < size; ++i) {
      const int source = (rank - i + size) % size;
      batch.recv(packed_in[static_cast<std::size_t>(source)].data(), recvs[static_cast<std::size_t>(source)].bytes,
                 source);
    }
    for (int i = 1; i < size; ++i) {
      const int dest = (rank + i) % size;
      batch.send(packed_out[static_cast<std::size_t>(dest)].data(), sends[static_cast<std::size_t>(dest)].bytes,
                 dest);
    }
    result = batch.wait();
  }
  if (result != Status::Ok) return coll_failed(*comm, kFunction, result);
  packed_in[static_cast<std::size_t>(rank)] = std::move(packed_out[static_cast<std::size_t>(rank)]);
  for (int r = 0; r < size; ++r) {
    const WBlock& block = recvs[static_cast<std::size_t>(r)];
    const std::size_t arrived = r == rank ? std::min(block.bytes, sends[static_cast<std::size_t>(r)].bytes) : block.bytes;
    if (arrived != 0) {
      unpack_data(*block.type, packed_in[static_cast<std::size_t>(r)].data(), arrived,
                  static_cast<char*>(recvbuf) + block.displ, block.count);
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
int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall("MPI_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int PMPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall("MPI_Alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv("MPI_Alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                   comm);
}

int PMPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                     MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv("MPI_Alltoallv_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                   comm);
}

int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm) {
  return alltoallw("MPI_Alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                   comm);
}

int PMPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoallw("MPI_Alltoallw_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                   recvtypes, comm);
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
#pragma weak MPI_Alltoall_c = PMPI_Alltoall_c
#pragma weak MPI_Alltoallv = PMPI_Alltoallv
#pragma weak MPI_Alltoallv_c = PMPI_Alltoallv_c
#pragma weak MPI_Alltoallw = PMPI_Alltoallw
#pragma weak MPI_Alltoallw_c = PMPI_Alltoallw_c

}  // extern "C"
