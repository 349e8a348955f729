// The non-blocking (MPI_Ineighbor_*) and persistent (MPI_Neighbor_*_init)
// neighbourhood collectives, int and large-count (_c): the schedule of
// neighbor.cpp handed to a request, started now or by MPI_Start.
#include "coll/neighbor.hpp"

using namespace tern;
using namespace tern::mpi;

namespace {

constexpr NeighbourMode kNow = NeighbourMode::Nonblocking;
constexpr NeighbourMode kLater = NeighbourMode::Persistent;

}  // namespace

extern "C" {

// Each call in its int and large-count (_c) form, over one implementation.
int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return neighbour_collective("MPI_Ineighbor_allgather", comm, uniform_side(sendbuf, sendcount, sendtype),
                              uniform_side(recvbuf, recvcount, recvtype), true, kNow, request);
}
int PMPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return neighbour_collective("MPI_Ineighbor_allgather_c", comm, uniform_side(sendbuf, sendcount, sendtype),
                              uniform_side(recvbuf, recvcount, recvtype), true, kNow, request);
}
int PMPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                                 MPI_Request* request) {
  return neighbour_collective("MPI_Neighbor_allgather_init", comm, uniform_side(sendbuf, sendcount, sendtype),
                              uniform_side(recvbuf, recvcount, recvtype), true, kLater, request);
}
int PMPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                                   MPI_Request* request) {
  return neighbour_collective("MPI_Neighbor_allgather_init_c", comm, uniform_side(sendbuf, sendcount, sendtype),
                              uniform_side(recvbuf, recvcount, recvtype), true, kLater, request);
}
int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                              const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request* request) {
  return neighbour_collective("MPI_Ineighbor_allgatherv", comm, uniform_side(sendbuf, sendcount, sendtype),
                              v_side(recvbuf, recvcounts, displs, recvtype), true, kNow, request);
}
int PMPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Request* request) {
  return neighbour_collective("MPI_Ineighbor_allgatherv_c", comm, uniform_side(sendbuf, sendcount, sendtype),
                              v_side(recvbuf, recvcounts, displs, recvtype), true, kNow, request);
}
int PMPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Info, MPI_Request* request) {
  return neighbour_collective("MPI_Neighbor_allgatherv_init", comm, uniform_side(sendbuf, sendcount, sendtype),
                              v_side(recvbuf, recvcounts, displs, recvtype), true, kLater, request);
}
int PMPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return neighbour_collective("MPI_Neighbor_allgatherv_init_c", comm, uniform_side(sendbuf, sendcount, sendtype),
                              v_side(recvbuf, recvcounts, displs, recvtype), true, kLater, request);
}
int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return neighbour_collective("MPI_Ineighbor_alltoall", comm, uniform_side(sendbuf, sendcount, sendtype),
                              uniform_side(recvbuf, recvcount, recvtype), false, kNow, request);
}
int PMPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return neighbour_collective("MPI_Ineighbor_alltoall_c", comm, uniform_side(sendbuf, sendcount, sendtype),
                              uniform_side(recvbuf, recvcount, recvtype), false, kNow, request);
}
int PMPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return neighbour_collective("MPI_Neighbor_alltoall_init", comm, uniform_side(sendbuf, sendcount, sendtype),
                              uniform_side(recvbuf, recvcount, recvtype), false, kLater, request);
}
int PMPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                                  MPI_Request* request) {
  return neighbour_collective("MPI_Neighbor_alltoall_init_c", comm, uniform_side(sendbuf, sendcount, sendtype),
                              uniform_side(recvbuf, recvcount, recvtype), false, kLater, request);
}
int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request* request) {
  return neighbour_collective("MPI_Ineighbor_alltoallv", comm, v_side(sendbuf, sendcounts, sdispls, sendtype),
                              v_side(recvbuf, recvcounts, rdispls, recvtype), false, kNow, request);
}
int PMPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                               MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return neighbour_collective("MPI_Ineighbor_alltoallv_c", comm, v_side(sendbuf, sendcounts, sdispls, sendtype),
                              v_side(recvbuf, recvcounts, rdispls, recvtype), false, kNow, request);
}
int PMPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return neighbour_collective("MPI_Neighbor_alltoallv_init", comm, v_side(sendbuf, sendcounts, sdispls, sendtype),
                              v_side(recvbuf, recvcounts, rdispls, recvtype), false, kLater, request);
}
int PMPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                   MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                                   MPI_Request* request) {
  return neighbour_collective("MPI_Neighbor_alltoallv_init_c", comm, v_side(sendbuf, sendcounts, sdispls, sendtype),
                              v_side(recvbuf, recvcounts, rdispls, recvtype), false, kLater, request);
}
int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request* request) {
  return neighbour_collective("MPI_Ineighbor_alltoallw", comm, w_side(sendbuf, sendcounts, sdispls, sendtypes),
                              w_side(recvbuf, recvcounts, rdispls, recvtypes), false, kNow, request);
}
int PMPI_Ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                               const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                               MPI_Request* request) {
  return neighbour_collective("MPI_Ineighbor_alltoallw_c", comm, w_side(sendbuf, sendcounts, sdispls, sendtypes),
                              w_side(recvbuf, recvcounts, rdispls, recvtypes), false, kNow, request);
}
int PMPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                 const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info,
                                 MPI_Request* request) {
  return neighbour_collective("MPI_Neighbor_alltoallw_init", comm, w_side(sendbuf, sendcounts, sdispls, sendtypes),
                              w_side(recvbuf, recvcounts, rdispls, recvtypes), false, kLater, request);
}
int PMPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                   const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info,
                                   MPI_Request* request) {
  return neighbour_collective("MPI_Neighbor_alltoallw_init_c", comm, w_side(sendbuf, sendcounts, sdispls, sendtypes),
                              w_side(recvbuf, recvcounts, rdispls, recvtypes), false, kLater, request);
}

#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather
#pragma weak MPI_Ineighbor_allgather_c = PMPI_Ineighbor_allgather_c
#pragma weak MPI_Neighbor_allgather_init = PMPI_Neighbor_allgather_init
#pragma weak MPI_Neighbor_allgather_init_c = PMPI_Neighbor_allgather_init_c
#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv
#pragma weak MPI_Ineighbor_allgatherv_c = PMPI_Ineighbor_allgatherv_c
#pragma weak MPI_Neighbor_allgatherv_init = PMPI_Neighbor_allgatherv_init
#pragma weak MPI_Neighbor_allgatherv_init_c = PMPI_Neighbor_allgatherv_init_c
#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall
#pragma weak MPI_Ineighbor_alltoall_c = PMPI_Ineighbor_alltoall_c
#pragma weak MPI_Neighbor_alltoall_init = PMPI_Neighbor_alltoall_init
#pragma weak MPI_Neighbor_alltoall_init_c = PMPI_Neighbor_alltoall_init_c
#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv
#pragma weak MPI_Ineighbor_alltoallv_c = PMPI_Ineighbor_alltoallv_c
#pragma weak MPI_Neighbor_alltoallv_init = PMPI_Neighbor_alltoallv_init
#pragma weak MPI_Neighbor_alltoallv_init_c = PMPI_Neighbor_alltoallv_init_c
#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
#pragma weak MPI_Ineighbor_alltoallw_c = PMPI_Ineighbor_alltoallw_c
#pragma weak MPI_Neighbor_alltoallw_init = PMPI_Neighbor_alltoallw_init
#pragma weak MPI_Neighbor_alltoallw_init_c = PMPI_Neighbor_alltoallw_init_c

}  // extern "C"
