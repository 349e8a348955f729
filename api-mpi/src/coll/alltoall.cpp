// MPI_Alltoall(v): every transfer posted at once, waited for together.
#include <algorithm>
#include <cstring>
#include <vector>

#include "coll/coll.hpp"

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                   MPI_Comm handle) {
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
  constexpr const char* kFunction = "MPI_Alltoall";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", handle);
  if (recvcount < 0) return raise(comm, MPI_ERR_COUNT, kFunction, "invalid count %d", recvcount);
  if (sendbuf != MPI_IN_PLACE && sendcount < 0) {
    return raise(comm, MPI_ERR_COUNT, kFunction, "invalid count %d", sendcount);
  }
  const auto n = static_cast<std::size_t>(comm->size);
  std::vector<int> scounts(n, sendcount), sdispls(n), rcounts(n, recvcount), rdispls(n);
  for (std::size_t r = 0; r < n; ++r) {
    sdispls[r] = static_cast<int>(r) * sendcount;
    rdispls[r] = static_cast<int>(r) * recvcount;
  }
  return PMPI_Alltoallv(sendbuf, scounts.data(), sdispls.data(), sendtype, recvbuf, rcounts.data(), rdispls.data(),
                        recvtype, handle);
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
#pragma weak MPI_Alltoall = PMPI_Alltoall

}  // extern "C"
