// Non-blocking and persistent data movers: MPI_Igather(v), MPI_Iscatter(v),
// MPI_Iallgather(v), MPI_Ialltoall(v,w) and their MPI_*_init forms, int and
// large-count (_c). Every form is built from one part per rank (where its
// data is, how many instances of which type), so the uniform and v forms
// share a path and a derived type packs or unpacks each part on its own.
#include <cstring>
#include <vector>

#include "coll/nbc.hpp"

namespace tern::mpi {
namespace {

// Parts of a v-collective buffer: counts[r] instances at displs[r] extents
// (int arrays, or MPI_Count and MPI_Aint ones in the _c forms).
template <class Count, class Displ>
int parts_of(const char* function, const Comm& comm, const void* buffer, const Count counts[], const Displ displs[],
             MPI_Datatype datatype, std::vector<Part>& parts) {
  if (int err = check_counts(function, comm, "part", counts, displs); err != MPI_SUCCESS) return err;
  DataShape shape;
  if (int err = data_shape(function, comm, 0, datatype, shape); err != MPI_SUCCESS) return err;
  parts.resize(static_cast<std::size_t>(comm.peer_count()));
  for (int r = 0; r < comm.peer_count(); ++r) {
    Part& part = parts[static_cast<std::size_t>(r)];
    part.address = instance_at(const_cast<void*>(buffer), displs[r], shape);
    part.count = static_cast<std::size_t>(counts[r]);
    part.shape = shape;
    if (int err = check_bytes(&comm, function, counts[r], shape.size); err != MPI_SUCCESS) return err;
  }
  return MPI_SUCCESS;
}

// The counts and displacements of a uniform form: `count` at r * count.
struct Uniform {
  Uniform(const Comm& comm, MPI_Count count) : counts(static_cast<std::size_t>(comm.size), count) {
    for (int r = 0; r < comm.size; ++r) displs.push_back(r * count);
  }
  std::vector<MPI_Count> counts;
  std::vector<MPI_Aint> displs;
};

Block send_block(Schedule& s, const Part& part) {
  return Block{const_cast<void*>(s.send_view(part.address, part.count, part.shape.layout)), part.bytes()};
}
Block recv_block(Schedule& s, const Part& part) {
  return Block{s.recv_view(part.address, part.count, part.shape.layout), part.bytes()};
}

int null_buffer(const Comm& comm, const char* function, const void* buffer, std::size_t bytes) {
  if (buffer == nullptr && bytes != 0) return raise(&comm, MPI_ERR_BUFFER, function, "null buffer");
  return MPI_SUCCESS;
}

// Gather (`gather`) or scatter: `mine` is this rank's own buffer, `parts`
// the root's (read only at the root).
template <class Count, class Displ>
int root_collective(const char* function, bool gather, const void* mine, MPI_Count mine_count,
                    MPI_Datatype mine_type, const void* root_buffer, const Count counts[], const Displ displs[],
                    MPI_Datatype root_type, int root, MPI_Comm handle, bool persistent, MPI_Request* request) {
  if (g_state == nullptr) return not_initialized(function);
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    // The root's parts (MPI_ROOT) come from the remote group; its members
    // send or receive their own.
    const InterCall call{function, *inter, handle, persistent, request};
    std::vector<Part> parts;
    Part own;
    if (root == MPI_ROOT) {
      if (int err = parts_of(function, *inter, root_buffer, counts, displs, root_type, parts); err != MPI_SUCCESS) {
        return err;
      }
    } else if (root != MPI_PROC_NULL) {
      if (int err = data_shape(function, *inter, mine_count, mine_type, own.shape); err != MPI_SUCCESS) return err;
      own.address = const_cast<void*>(mine);
      own.count = static_cast<std::size_t>(mine_count);
    }
    return inter_irooted_parts(call, gather, own, parts, root);
  }
  Comm* comm = nullptr;
  if (int err = nbc_prologue(function, handle, request, comm); err != MPI_SUCCESS) return err;
  if (int err = check_root(function, *comm, root); err != MPI_SUCCESS) return err;
  const bool is_root = comm->rank == root;
  const bool in_place = is_root && mine == MPI_IN_PLACE;
  Part own;
  if (!in_place) {
    if (int err = data_shape(function, *comm, mine_count, mine_type, own.shape); err != MPI_SUCCESS) return err;
    own.address = const_cast<void*>(mine);
    own.count = static_cast<std::size_t>(mine_count);
    if (int err = null_buffer(*comm, function, mine, own.bytes()); err != MPI_SUCCESS) return err;
  }
  std::vector<Block> blocks(static_cast<std::size_t>(comm->size));
  auto schedule = new_schedule(*comm, persistent);
  if (is_root) {
    std::vector<Part> parts;
    if (int err = parts_of(function, *comm, root_buffer, counts, displs, root_type, parts); err != MPI_SUCCESS) {
      return err;
    }
    for (int r = 0; r < comm->size; ++r) {
      const Part& part = parts[static_cast<std::size_t>(r)];
      if (int err = null_buffer(*comm, function, root_buffer, part.bytes()); err != MPI_SUCCESS) return err;
      if (r == root && in_place) continue;  // its data stays where it is
      if (r == root && part.bytes() != own.bytes()) {
        return raise(comm, MPI_ERR_TRUNCATE, function, "the root's own part is %zu bytes, its slot %zu",
                     own.bytes(), part.bytes());
      }
      blocks[static_cast<std::size_t>(r)] = gather ? recv_block(*schedule, part) : send_block(*schedule, part);
    }
  } else {
    blocks[static_cast<std::size_t>(comm->rank)].bytes = own.bytes();
  }
  if (gather) {
    schedule_gather(*schedule, *comm, in_place ? nullptr : send_block(*schedule, own).data, blocks, root);
  } else {
    schedule_scatter(*schedule, *comm, in_place ? nullptr : recv_block(*schedule, own).data, blocks, root);
  }
  return issue_schedule(function, *comm, handle, std::move(schedule), persistent, request);
}

template <class Count, class Displ>
int allgather(const char* function, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
              const Count counts[], const Displ displs[], MPI_Datatype recvtype, Comm& comm, MPI_Comm handle,
              bool persistent, MPI_Request* request) {
  std::vector<Part> parts;
  if (int err = parts_of(function, comm, recvbuf, counts, displs, recvtype, parts); err != MPI_SUCCESS) return err;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  Part own;
  if (!in_place) {
    if (int err = data_shape(function, comm, sendcount, sendtype, own.shape); err != MPI_SUCCESS) return err;
    own.address = const_cast<void*>(sendbuf);
    own.count = static_cast<std::size_t>(sendcount);
  }
  const Part& slot = parts[static_cast<std::size_t>(comm.rank)];
  if (!in_place && own.bytes() != slot.bytes()) {
    return raise(&comm, MPI_ERR_TRUNCATE, function, "this rank's part is %zu bytes, its slot %zu", own.bytes(),
                 slot.bytes());
  }
  for (const Part& part : parts) {
    if (int err = null_buffer(comm, function, recvbuf, part.bytes()); err != MPI_SUCCESS) return err;
  }
  if (int err = null_buffer(comm, function, sendbuf, own.bytes()); err != MPI_SUCCESS) return err;
  auto schedule = new_schedule(comm, persistent);
  std::vector<Block> blocks;
  for (int r = 0; r < comm.size; ++r) {
    const Part& part = parts[static_cast<std::size_t>(r)];
    if (r == comm.rank && in_place) {
      blocks.push_back(Block{schedule->inout_view(part.address, part.count, part.shape.layout), part.bytes()});
    } else {
      blocks.push_back(recv_block(*schedule, part));
    }
  }
  if (!in_place) schedule->copy(send_block(*schedule, own).data, blocks[static_cast<std::size_t>(comm.rank)].data,
                                own.bytes());
  schedule_allgather(*schedule, comm, blocks);
  return issue_schedule(function, comm, handle, std::move(schedule), persistent, request);
}

// Alltoall(v,w) over parts. In place, the parts to send are this rank's
// receive parts as they are at the start.
int alltoall(const char* function, const std::vector<Part>& send, const std::vector<Part>& recv, bool in_place,
             Comm& comm, MPI_Comm handle, bool persistent, MPI_Request* request) {
  for (int r = 0; r < comm.size; ++r) {
    const Part& out = in_place ? recv[static_cast<std::size_t>(r)] : send[static_cast<std::size_t>(r)];
    const Part& in = recv[static_cast<std::size_t>(r)];
    if (int err = null_buffer(comm, function, out.address, out.bytes()); err != MPI_SUCCESS) return err;
    if (int err = null_buffer(comm, function, in.address, in.bytes()); err != MPI_SUCCESS) return err;
    if (r == comm.rank && out.bytes() != in.bytes()) {
      return raise(&comm, MPI_ERR_TRUNCATE, function, "this rank's part to itself is %zu bytes, its slot %zu",
                   out.bytes(), in.bytes());
    }
  }
  auto schedule = new_schedule(comm, persistent);
  std::vector<Block> out_blocks, in_blocks;
  for (int r = 0; r < comm.size; ++r) {
    if (in_place) {
      const Part& part = recv[static_cast<std::size_t>(r)];
      Block view = send_block(*schedule, part);
      if (view.data == part.address) {  // contiguous: keep a copy of it
        std::byte* copy = schedule->scratch(part.bytes());
        schedule->copy(view.data, copy, part.bytes());
        view.data = copy;
      }
      out_blocks.push_back(view);
    } else {
      out_blocks.push_back(send_block(*schedule, send[static_cast<std::size_t>(r)]));
    }
    in_blocks.push_back(recv_block(*schedule, recv[static_cast<std::size_t>(r)]));
  }
  schedule_alltoall(*schedule, comm, out_blocks, in_blocks);
  return issue_schedule(function, comm, handle, std::move(schedule), persistent, request);
}

template <class Count, class Displ>
int alltoallv(const char* function, const void* sendbuf, const Count sendcounts[], const Displ sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const Count recvcounts[], const Displ rdispls[],
              MPI_Datatype recvtype, MPI_Comm handle, bool persistent, MPI_Request* request) {
  if (g_state == nullptr) return not_initialized(function);
  Comm* comm = intercomm_of(handle);
  if (comm == nullptr) {
    if (int err = nbc_prologue(function, handle, request, comm); err != MPI_SUCCESS) return err;
  }
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::vector<Part> send, recv;
  if (int err = parts_of(function, *comm, recvbuf, recvcounts, rdispls, recvtype, recv); err != MPI_SUCCESS) {
    return err;
  }
  if (!in_place) {
    if (int err = parts_of(function, *comm, sendbuf, sendcounts, sdispls, sendtype, send); err != MPI_SUCCESS) {
      return err;
    }
  }
  if (comm->inter) return inter_iexchange({function, *comm, handle, persistent, request}, send, recv, in_place);
  return alltoall(function, send, recv, in_place, *comm, handle, persistent, request);
}

template <class Count, class Displ>
int alltoallw(const char* function, const void* sendbuf, const Count sendcounts[], const Displ sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const Count recvcounts[], const Displ rdispls[],
              const MPI_Datatype recvtypes[], MPI_Comm handle, bool persistent, MPI_Request* request) {
  if (g_state == nullptr) return not_initialized(function);
  Comm* comm = intercomm_of(handle);
  if (comm == nullptr) {
    if (int err = nbc_prologue(function, handle, request, comm); err != MPI_SUCCESS) return err;
  }
  const bool in_place = sendbuf == MPI_IN_PLACE;
  // Displacements in bytes, a type per peer.
  auto parts_w = [&](const void* buffer, const Count counts[], const Displ displs[], const MPI_Datatype types[],
                     std::vector<Part>& parts) {
    if (types == nullptr) return raise(comm, MPI_ERR_ARG, function, "null datatype array");
    if (int err = check_counts(function, *comm, "part", counts, displs); err != MPI_SUCCESS) return err;
    parts.resize(static_cast<std::size_t>(comm->peer_count()));
    for (int r = 0; r < comm->peer_count(); ++r) {
      Part& part = parts[static_cast<std::size_t>(r)];
      if (int err = data_shape(function, *comm, counts[r], types[r], part.shape); err != MPI_SUCCESS) return err;
      part.address = static_cast<std::byte*>(const_cast<void*>(buffer)) + displs[r];
      part.count = static_cast<std::size_t>(counts[r]);
    }
    return MPI_SUCCESS;
  };
  std::vector<Part> send, recv;
  if (int err = parts_w(recvbuf, recvcounts, rdispls, recvtypes, recv); err != MPI_SUCCESS) return err;
  if (!in_place) {
    if (int err = parts_w(sendbuf, sendcounts, sdispls, sendtypes, send); err != MPI_SUCCESS) return err;
  }
  if (comm->inter) return inter_iexchange({function, *comm, handle, persistent, request}, send, recv, in_place);
  return alltoall(function, send, recv, in_place, *comm, handle, persistent, request);
}

template <class Count, class Displ>
int allgatherv(const char* function, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
               const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype, MPI_Comm handle,
               bool persistent, MPI_Request* request) {
  if (g_state == nullptr) return not_initialized(function);
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    // This rank's one part to every rank of the remote group, theirs into the parts.
    std::vector<Part> recv;
    if (int err = parts_of(function, *inter, recvbuf, recvcounts, displs, recvtype, recv); err != MPI_SUCCESS) {
      return err;
    }
    Part own;
    if (sendbuf != MPI_IN_PLACE) {
      if (int err = data_shape(function, *inter, sendcount, sendtype, own.shape); err != MPI_SUCCESS) return err;
      own.address = const_cast<void*>(sendbuf);
      own.count = static_cast<std::size_t>(sendcount);
    }
    const std::vector<Part> send(recv.size(), own);
    return inter_iexchange({function, *inter, handle, persistent, request}, send, recv, sendbuf == MPI_IN_PLACE);
  }
  Comm* comm = nullptr;
  if (int err = nbc_prologue(function, handle, request, comm); err != MPI_SUCCESS) return err;
  return allgather(function, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, *comm, handle,
                   persistent, request);
}

// Allgather, or (`alltoall`) Alltoall, on an intercommunicator.
int inter_all_uniform(const InterCall& call, bool alltoall, const void* sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype) {
  int send = 0, recv = 0;
  if (int err = narrow_pair(&call.comm, call.function, sendcount, recvcount, kInterPath, send, recv);
      err != MPI_SUCCESS) {
    return err;
  }
  return inter_iall(call, alltoall, sendbuf, send, sendtype, recvbuf, recv, recvtype);
}

int allgather_uniform(const char* function, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm handle, bool persistent,
                      MPI_Request* request) {
  if (g_state == nullptr) return not_initialized(function);
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    return inter_all_uniform({function, *inter, handle, persistent, request}, false, sendbuf, sendcount, sendtype,
                             recvbuf, recvcount, recvtype);
  }
  Comm* comm = nullptr;
  if (int err = nbc_prologue(function, handle, request, comm); err != MPI_SUCCESS) return err;
  if (recvcount < 0) return raise(comm, MPI_ERR_COUNT, function, "invalid count %lld", recvcount);
  const Uniform uniform(*comm, recvcount);
  return allgather(function, sendbuf, sendcount, sendtype, recvbuf, uniform.counts.data(), uniform.displs.data(),
                   recvtype, *comm, handle, persistent, request);
}

int alltoall_uniform(const char* function, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm handle, bool persistent,
                     MPI_Request* request) {
  if (g_state == nullptr) return not_initialized(function);
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    return inter_all_uniform({function, *inter, handle, persistent, request}, true, sendbuf, sendcount, sendtype,
                             recvbuf, recvcount, recvtype);
  }
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, function, "invalid communicator %d", handle);
  if (sendcount < 0 || recvcount < 0) {
    return raise(comm, MPI_ERR_COUNT, function, "invalid count %lld", sendcount < 0 ? sendcount : recvcount);
  }
  const Uniform sends(*comm, sendcount), recvs(*comm, recvcount);
  return alltoallv(function, sendbuf, sends.counts.data(), sends.displs.data(), sendtype, recvbuf,
                   recvs.counts.data(), recvs.displs.data(), recvtype, handle, persistent, request);
}

// The uniform root forms: the root's parts from one count.
int gather_uniform(const char* function, bool gather, const void* mine, MPI_Count mine_count,
                   MPI_Datatype mine_type, const void* root_buffer, MPI_Count root_count, MPI_Datatype root_type,
                   int root, MPI_Comm handle, bool persistent, MPI_Request* request) {
  if (g_state == nullptr) return not_initialized(function);
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) {
    int own = 0, root_narrow = 0;
    if (int err = narrow_pair(inter, function, mine_count, root_count, kInterPath, own, root_narrow);
        err != MPI_SUCCESS) {
      return err;
    }
    return inter_irooted({function, *inter, handle, persistent, request}, gather, mine, own, mine_type, root_buffer,
                         root_narrow, root_type, root);
  }
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, function, "invalid communicator %d", handle);
  const bool is_root = comm->rank == root;
  if (is_root && root_count < 0) return raise(comm, MPI_ERR_COUNT, function, "invalid count %lld", root_count);
  const Uniform uniform(*comm, is_root ? root_count : 0);
  return root_collective(function, gather, mine, mine_count, mine_type, root_buffer, uniform.counts.data(),
                         uniform.displs.data(), root_type, root, handle, persistent, request);
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

// Each call in its int and large-count (_c) form, over one implementation.
int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return gather_uniform("MPI_Igather", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                        false, request);
}
int PMPI_Igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return gather_uniform("MPI_Igather_c", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                        false, request);
}
int PMPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return gather_uniform("MPI_Gather_init", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                        comm, true, request);
}
int PMPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                       MPI_Request* request) {
  return gather_uniform("MPI_Gather_init_c", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                        comm, true, request);
}
int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return root_collective("MPI_Igatherv", true, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                         root, comm, false, request);
}
int PMPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                    MPI_Comm comm, MPI_Request* request) {
  return root_collective("MPI_Igatherv_c", true, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                         root, comm, false, request);
}
int PMPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info, MPI_Request* request) {
  return root_collective("MPI_Gatherv_init", true, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                         recvtype, root, comm, true, request);
}
int PMPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return root_collective("MPI_Gatherv_init_c", true, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                         recvtype, root, comm, true, request);
}
int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return gather_uniform("MPI_Iscatter", false, recvbuf, recvcount, recvtype, sendbuf, sendcount, sendtype, root,
                        comm, false, request);
}
int PMPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return gather_uniform("MPI_Iscatter_c", false, recvbuf, recvcount, recvtype, sendbuf, sendcount, sendtype, root, comm,
                        false, request);
}
int PMPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return gather_uniform("MPI_Scatter_init", false, recvbuf, recvcount, recvtype, sendbuf, sendcount, sendtype, root,
                        comm, true, request);
}
int PMPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                        MPI_Request* request) {
  return gather_uniform("MPI_Scatter_init_c", false, recvbuf, recvcount, recvtype, sendbuf, sendcount, sendtype, root,
                        comm, true, request);
}
int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return root_collective("MPI_Iscatterv", false, recvbuf, recvcount, recvtype, sendbuf, sendcounts, displs, sendtype,
                         root, comm, false, request);
}
int PMPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Request* request) {
  return root_collective("MPI_Iscatterv_c", false, recvbuf, recvcount, recvtype, sendbuf, sendcounts, displs, sendtype,
                         root, comm, false, request);
}
int PMPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                       void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                       MPI_Request* request) {
  return root_collective("MPI_Scatterv_init", false, recvbuf, recvcount, recvtype, sendbuf, sendcounts, displs,
                         sendtype, root, comm, true, request);
}
int PMPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                         MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return root_collective("MPI_Scatterv_init_c", false, recvbuf, recvcount, recvtype, sendbuf, sendcounts, displs,
                         sendtype, root, comm, true, request);
}
int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgather_uniform("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, false,
                           request);
}
int PMPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgather_uniform("MPI_Iallgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, false,
                           request);
}
int PMPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return allgather_uniform("MPI_Allgather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           true, request);
}
int PMPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return allgather_uniform("MPI_Allgather_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           true, request);
}
int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgatherv("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                    false, request);
}
int PMPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request* request) {
  return allgatherv("MPI_Iallgatherv_c", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                    false, request);
}
int PMPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                         MPI_Request* request) {
  return allgatherv("MPI_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                    true, request);
}
int PMPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                           const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Info, MPI_Request* request) {
  return allgatherv("MPI_Allgatherv_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                    true, request);
}
int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoall_uniform("MPI_Ialltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, false,
                          request);
}
int PMPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoall_uniform("MPI_Ialltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, false,
                          request);
}
int PMPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return alltoall_uniform("MPI_Alltoall_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, true,
                          request);
}
int PMPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return alltoall_uniform("MPI_Alltoall_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, true,
                          request);
}
int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                    void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request* request) {
  return alltoallv("MPI_Ialltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                   comm, false, request);
}
int PMPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoallv("MPI_Ialltoallv_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                   comm, false, request);
}
int PMPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return alltoallv("MPI_Alltoallv_init", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                   recvtype, comm, true, request);
}
int PMPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return alltoallv("MPI_Alltoallv_init_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                   recvtype, comm, true, request);
}
int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                    void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                    MPI_Comm comm, MPI_Request* request) {
  return alltoallw("MPI_Ialltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                   comm, false, request);
}
int PMPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  return alltoallw("MPI_Ialltoallw_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                   comm, false, request);
}
int PMPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
                        const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return alltoallw("MPI_Alltoallw_init", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                   recvtypes, comm, true, request);
}
int PMPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info,
                          MPI_Request* request) {
  return alltoallw("MPI_Alltoallw_init_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                   recvtypes, comm, true, request);
}

#pragma weak MPI_Igather = PMPI_Igather
#pragma weak MPI_Igather_c = PMPI_Igather_c
#pragma weak MPI_Gather_init = PMPI_Gather_init
#pragma weak MPI_Gather_init_c = PMPI_Gather_init_c
#pragma weak MPI_Igatherv = PMPI_Igatherv
#pragma weak MPI_Igatherv_c = PMPI_Igatherv_c
#pragma weak MPI_Gatherv_init = PMPI_Gatherv_init
#pragma weak MPI_Gatherv_init_c = PMPI_Gatherv_init_c
#pragma weak MPI_Iscatter = PMPI_Iscatter
#pragma weak MPI_Iscatter_c = PMPI_Iscatter_c
#pragma weak MPI_Scatter_init = PMPI_Scatter_init
#pragma weak MPI_Scatter_init_c = PMPI_Scatter_init_c
#pragma weak MPI_Iscatterv = PMPI_Iscatterv
#pragma weak MPI_Iscatterv_c = PMPI_Iscatterv_c
#pragma weak MPI_Scatterv_init = PMPI_Scatterv_init
#pragma weak MPI_Scatterv_init_c = PMPI_Scatterv_init_c
#pragma weak MPI_Iallgather = PMPI_Iallgather
#pragma weak MPI_Iallgather_c = PMPI_Iallgather_c
#pragma weak MPI_Allgather_init = PMPI_Allgather_init
#pragma weak MPI_Allgather_init_c = PMPI_Allgather_init_c
#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
#pragma weak MPI_Iallgatherv_c = PMPI_Iallgatherv_c
#pragma weak MPI_Allgatherv_init = PMPI_Allgatherv_init
#pragma weak MPI_Allgatherv_init_c = PMPI_Allgatherv_init_c
#pragma weak MPI_Ialltoall = PMPI_Ialltoall
#pragma weak MPI_Ialltoall_c = PMPI_Ialltoall_c
#pragma weak MPI_Alltoall_init = PMPI_Alltoall_init
#pragma weak MPI_Alltoall_init_c = PMPI_Alltoall_init_c
#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
#pragma weak MPI_Ialltoallv_c = PMPI_Ialltoallv_c
#pragma weak MPI_Alltoallv_init = PMPI_Alltoallv_init
#pragma weak MPI_Alltoallv_init_c = PMPI_Alltoallv_init_c
#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
#pragma weak MPI_Ialltoallw_c = PMPI_Ialltoallw_c
#pragma weak MPI_Alltoallw_init = PMPI_Alltoallw_init
#pragma weak MPI_Alltoallw_init_c = PMPI_Alltoallw_init_c

}  // extern "C"
