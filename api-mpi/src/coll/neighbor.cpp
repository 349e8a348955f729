// Neighbourhood collectives: MPI_Neighbor_allgather(v) and
// MPI_Neighbor_alltoall(v,w) (int and _c forms), and the schedule every form of them (blocking,
// non-blocking, persistent) runs. The schedule is one round: the send
// blocks packed where their type needs it, a send per out-neighbour, a
// receive per in-neighbour (unpacked after), copies for edges to this rank
// itself. The blocking forms run the same schedule and wait for it, so they
// share the collective sequence with the others.
//
// Matching: all messages of one schedule carry one tag, so between two
// ranks the k-th send meets the k-th receive posted. On graphs that is the
// standard's rule for repeated edges as is; on Cartesian grids the receives
// of each dimension are posted +1 first (see Neighbourhood).
#include "coll/neighbor.hpp"

#include <algorithm>
#include <vector>

#include "coll/nbc.hpp"
#include "comm/graph.hpp"

namespace tern::mpi {
namespace {

// The `n` blocks `side` describes (one for a gather's send side).
int blocks_of(const char* function, const Comm& comm, const NeighbourSide& side, int n, const char* what,
              std::vector<Part>& blocks) {
  if (side.buffer == MPI_IN_PLACE) {
    return raise(&comm, MPI_ERR_BUFFER, function, "MPI_IN_PLACE is not allowed in neighbourhood collectives");
  }
  if (n > 0 && side.form != NeighbourForm::Uniform) {
    if (!side.has_counts() || !side.has_displs() || (side.form == NeighbourForm::W && side.types == nullptr)) {
      return raise(&comm, MPI_ERR_ARG, function, "null %s counts, displacements or datatypes", what);
    }
  }
  blocks.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    Part& block = blocks[static_cast<std::size_t>(i)];
    const MPI_Count count = side.count_of(i);
    const MPI_Datatype type = side.form == NeighbourForm::W ? side.types[i] : side.type;
    if (int err = data_shape(function, comm, count, type, block.shape); err != MPI_SUCCESS) return err;
    block.count = static_cast<std::size_t>(count);
    long long offset = 0;
    switch (side.form) {
      case NeighbourForm::Uniform: offset = static_cast<long long>(i) * count * block.shape.extent; break;
      case NeighbourForm::V: offset = static_cast<long long>(side.displ_of(i)) * block.shape.extent; break;
      case NeighbourForm::W: offset = side.byte_displs[i]; break;
    }
    block.address = static_cast<std::byte*>(const_cast<void*>(side.buffer)) + offset;
    if (side.buffer == nullptr && block.bytes() != 0) {
      return raise(&comm, MPI_ERR_BUFFER, function, "null %s buffer", what);
    }
  }
  return MPI_SUCCESS;
}

// Adds the transfers of the neighbourhood to `s`: `send[i]` (or send[0]
// when gathering) to destination i, source i into `recv[i]`.
int schedule_neighbours(const char* function, const Comm& comm, Schedule& s, const Neighbourhood& hood,
                        const std::vector<const void*>& send, const std::vector<std::size_t>& send_bytes,
                        const std::vector<void*>& recv, const std::vector<std::size_t>& recv_bytes, bool gather) {
  std::vector<std::size_t> to_self, from_self;
  for (std::size_t i = 0; i < hood.destinations.size(); ++i) {
    const int peer = hood.destinations[i];
    const std::size_t block = gather ? 0 : i;
    if (peer == comm.rank) {
      to_self.push_back(block);
    } else if (peer != MPI_PROC_NULL) {
      (void)s.send(send[block], send_bytes[block], peer);
    }
  }
  for (std::size_t k = 0; k < hood.sources.size(); ++k) {
    // A Cartesian neighbourhood has an even number of sources, two per dimension.
    const std::size_t i = hood.cartesian ? (k ^ 1U) : k;
    const int peer = hood.sources[i];
    if (peer == comm.rank) {
      from_self.push_back(i);
    } else if (peer != MPI_PROC_NULL) {
      (void)s.recv(recv[i], recv_bytes[i], peer);
    }
  }
  if (to_self.size() != from_self.size()) {
    return raise(&comm, MPI_ERR_TOPOLOGY, function, "%zu edges from this rank to itself, but %zu to it from itself",
                 to_self.size(), from_self.size());
  }
  for (std::size_t k = 0; k < to_self.size(); ++k) {
    const std::size_t out = to_self[k], in = from_self[k];
    if (send_bytes[out] > recv_bytes[in]) {
      return raise(&comm, MPI_ERR_TRUNCATE, function, "%zu bytes to itself into a block of %zu", send_bytes[out],
                   recv_bytes[in]);
    }
    s.copy(send[out], recv[in], send_bytes[out]);
  }
  return MPI_SUCCESS;
}

// Runs a built schedule to its end (the blocking forms).
int run_now(const char* function, Comm& comm, Schedule& s) {
  if (!s.reachable()) return raise(&comm, MPI_ERR_OTHER, function, "a neighbour cannot be reached");
  s.seal();
  s.start();
  progress_until([&] { return s.done(); });
  if (int err = s.error_class(); err != MPI_SUCCESS) {
    return raise(&comm, err, function, "communication with a neighbour failed");
  }
  return MPI_SUCCESS;
}

}  // namespace

int neighbour_collective(const char* function, MPI_Comm handle, const NeighbourSide& send, const NeighbourSide& recv,
                         bool gather, NeighbourMode mode, MPI_Request* request) {
  if (g_state == nullptr) return not_initialized(function);
  Comm* comm = nullptr;
  if (mode == NeighbourMode::Blocking) {
    if (int err = find_comm_checked(function, handle, comm); err != MPI_SUCCESS) return err;
  } else if (int err = nbc_prologue(function, handle, request, comm); err != MPI_SUCCESS) {
    return err;
  }
  Neighbourhood hood;
  if (int err = neighbourhood_of(function, *comm, hood); err != MPI_SUCCESS) return err;
  std::vector<Part> out, in;
  const int outdegree = static_cast<int>(hood.destinations.size());
  if (int err = blocks_of(function, *comm, send, gather ? 1 : outdegree, "send", out); err != MPI_SUCCESS) {
    return err;
  }
  if (int err = blocks_of(function, *comm, recv, static_cast<int>(hood.sources.size()), "receive", in);
      err != MPI_SUCCESS) {
    return err;
  }
  auto schedule = new_schedule(*comm, mode == NeighbourMode::Persistent);
  std::vector<const void*> send_views;
  std::vector<std::size_t> send_bytes, recv_bytes;
  std::vector<void*> recv_views;
  // Blocks of MPI_PROC_NULL neighbours get no view: packing them would be
  // wasted, and unpacking a receive view would overwrite what the standard
  // leaves alone.
  auto real = [](int peer) { return peer != MPI_PROC_NULL; };
  const bool sends = std::any_of(hood.destinations.begin(), hood.destinations.end(), real);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const Part& block = out[i];
    const bool used = gather ? sends : real(hood.destinations[i]);
    send_views.push_back(used ? schedule->send_view(block.address, block.count, block.shape.layout) : nullptr);
    send_bytes.push_back(block.bytes());
  }
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Part& block = in[i];
    recv_views.push_back(real(hood.sources[i]) ? schedule->recv_view(block.address, block.count, block.shape.layout)
                                               : nullptr);
    recv_bytes.push_back(block.bytes());
  }
  if (int err = schedule_neighbours(function, *comm, *schedule, hood, send_views, send_bytes, recv_views, recv_bytes,
                                    gather);
      err != MPI_SUCCESS) {
    return err;
  }
  if (mode == NeighbourMode::Blocking) return run_now(function, *comm, *schedule);
  return issue_schedule(function, *comm, handle, std::move(schedule), mode == NeighbourMode::Persistent, request);
}

}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

// Each call in its int and large-count (_c) form, over one implementation.
int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm) {
  return neighbour_collective("MPI_Neighbor_allgather", comm, uniform_side(sendbuf, sendcount, sendtype),
                              uniform_side(recvbuf, recvcount, recvtype), true, NeighbourMode::Blocking, nullptr);
}
int PMPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return neighbour_collective("MPI_Neighbor_allgather_c", comm, uniform_side(sendbuf, sendcount, sendtype),
                              uniform_side(recvbuf, recvcount, recvtype), true, NeighbourMode::Blocking, nullptr);
}
int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return neighbour_collective("MPI_Neighbor_allgatherv", comm, uniform_side(sendbuf, sendcount, sendtype),
                              v_side(recvbuf, recvcounts, displs, recvtype), true, NeighbourMode::Blocking, nullptr);
}
int PMPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                               MPI_Comm comm) {
  return neighbour_collective("MPI_Neighbor_allgatherv_c", comm, uniform_side(sendbuf, sendcount, sendtype),
                              v_side(recvbuf, recvcounts, displs, recvtype), true, NeighbourMode::Blocking, nullptr);
}
int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) {
  return neighbour_collective("MPI_Neighbor_alltoall", comm, uniform_side(sendbuf, sendcount, sendtype),
                              uniform_side(recvbuf, recvcount, recvtype), false, NeighbourMode::Blocking, nullptr);
}
int PMPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return neighbour_collective("MPI_Neighbor_alltoall_c", comm, uniform_side(sendbuf, sendcount, sendtype),
                              uniform_side(recvbuf, recvcount, recvtype), false, NeighbourMode::Blocking, nullptr);
}
int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm) {
  return neighbour_collective("MPI_Neighbor_alltoallv", comm, v_side(sendbuf, sendcounts, sdispls, sendtype),
                              v_side(recvbuf, recvcounts, rdispls, recvtype), false, NeighbourMode::Blocking,
                              nullptr);
}
int PMPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return neighbour_collective("MPI_Neighbor_alltoallv_c", comm, v_side(sendbuf, sendcounts, sdispls, sendtype),
                              v_side(recvbuf, recvcounts, rdispls, recvtype), false, NeighbourMode::Blocking, nullptr);
}
int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return neighbour_collective("MPI_Neighbor_alltoallw", comm, w_side(sendbuf, sendcounts, sdispls, sendtypes),
                              w_side(recvbuf, recvcounts, rdispls, recvtypes), false, NeighbourMode::Blocking,
                              nullptr);
}
int PMPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return neighbour_collective("MPI_Neighbor_alltoallw_c", comm, w_side(sendbuf, sendcounts, sdispls, sendtypes),
                              w_side(recvbuf, recvcounts, rdispls, recvtypes), false, NeighbourMode::Blocking, nullptr);
}

#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
#pragma weak MPI_Neighbor_allgather_c = PMPI_Neighbor_allgather_c
#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
#pragma weak MPI_Neighbor_allgatherv_c = PMPI_Neighbor_allgatherv_c
#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
#pragma weak MPI_Neighbor_alltoall_c = PMPI_Neighbor_alltoall_c
#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
#pragma weak MPI_Neighbor_alltoallv_c = PMPI_Neighbor_alltoallv_c
#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
#pragma weak MPI_Neighbor_alltoallw_c = PMPI_Neighbor_alltoallw_c

}  // extern "C"
