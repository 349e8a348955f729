// MPI_Alltoall(v,w): every transfer posted at once, waited for together
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
  int displ = 0;
};

int w_blocks(const char* function, const Comm& comm, const char* what, const int counts[], const int displs[],
             const MPI_Datatype types[], std::vector<WBlock>& blocks) {
  if (counts == nullptr || displs == nullptr || types == nullptr) {
    return raise(&comm, MPI_ERR_ARG, function, "null %s counts, displacements or datatypes", what);
  }
  blocks.resize(static_cast<std::size_t>(comm.size));
  for (int r = 0; r < comm.size; ++r) {
    WBlock& block = blocks[static_cast<std::size_t>(r)];
    if (counts[r] < 0) return raise(&comm, MPI_ERR_COUNT, function, "invalid %s count %d for rank %d", what, counts[r], r);
    block.type = describe_type(types[r]);
    if (block.type == nullptr || !block.type->committed) {
      return raise(&comm, MPI_ERR_TYPE, function, "invalid or uncommitted %s datatype %d for rank %d", what,
                   types[r], r);
    }
    block.count = static_cast<std::size_t>(counts[r]);
    block.bytes = block.count * block.type->size;
    block.displ = displs[r];
  }
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                   MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    return inter_all(*inter, "MPI_Alltoallv", sendbuf,
                     InterLayout{.counts = sendcounts, .displs = sdispls, .type = sendtype, .varying = true}, recvbuf,
                     InterLayout{.counts = recvcounts, .displs = rdispls, .type = recvtype, .varying = true});
  }
  if (TERN_UNLIKELY((is_derived_handle(sendtype) && sendbuf != MPI_IN_PLACE) || is_derived_handle(recvtype)) &&
      g_state != nullptr && find_comm(handle) != nullptr) {
    return derived_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, handle);
  }
  constexpr const char* kFunction = "MPI_Alltoallv";
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

int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    return inter_all(*inter, "MPI_Alltoall", sendbuf, InterLayout{.uniform = sendcount, .type = sendtype}, recvbuf,
                     InterLayout{.uniform = recvcount, .type = recvtype});
  }
  constexpr const char* kFunction = "MPI_Alltoall";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", handle);
  if (recvcount < 0) return raise(comm, MPI_ERR_COUNT, kFunction, "invalid count %d", recvcount);
  if (sendbuf != MPI_IN_PLACE && sendcount < 0) {
    return raise(comm, MPI_ERR_COUNT, kFunction, "invalid count %d", sendcount);
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
  std::vector<int> scounts(n, sendcount), sdispls(n), rcounts(n, recvcount), rdispls(n);
  for (std::size_t r = 0; r < n; ++r) {
    sdispls[r] = static_cast<int>(r) * sendcount;
    rdispls[r] = static_cast<int>(r) * recvcount;
  }
  return PMPI_Alltoallv(sendbuf, scounts.data(), sdispls.data(), sendtype, recvbuf, rcounts.data(), rdispls.data(),
                        recvtype, handle);
}

// Every block is packed with its own datatype into a temporary, the packed
// bytes are exchanged, and each received block unpacked with its type. In
// place, the blocks to send are packed from the receive buffer first.
int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    return inter_all(*inter, "MPI_Alltoallw", sendbuf,
                     InterLayout{.counts = sendcounts, .displs = sdispls, .types = sendtypes, .varying = true}, recvbuf,
                     InterLayout{.counts = recvcounts, .displs = rdispls, .types = recvtypes, .varying = true});
  }
  constexpr const char* kFunction = "MPI_Alltoallw";
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

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
#pragma weak MPI_Alltoall = PMPI_Alltoall
#pragma weak MPI_Alltoallw = PMPI_Alltoallw

}  // extern "C"
