// Blocking collectives on intercommunicators. Within a group they run the
// intracommunicator algorithms on the hidden `local` communicator; between
// the groups, point-to-point on the hidden `bridge` (the intercommunicator
// in its collective context), so derived datatypes travel as they do in
// point-to-point calls. The reductions meet at each group's rank 0; the
// data movers send every block straight to where it belongs. Each call
// takes the intercommunicator's next collective tag on every member, so
// the traffic of consecutive collectives cannot cross.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "coll/inter.hpp"

namespace tern::mpi {
namespace {

enum class Role { Root, Idle, Member };

// The part `root` gives this process: the root (MPI_ROOT), a bystander in
// the root's group (MPI_PROC_NULL), or a member of the other group (the
// root's rank there).
int root_role(const Comm& comm, const char* function, int root, Role& role) {
  if (root == MPI_ROOT) {
    role = Role::Root;
  } else if (root == MPI_PROC_NULL) {
    role = Role::Idle;
  } else if (root >= 0 && root < comm.remote_size) {
    role = Role::Member;
  } else {
    return raise(&comm, MPI_ERR_ROOT, function,
                 "invalid root %d (MPI_ROOT, MPI_PROC_NULL or a rank of the remote group of size %d)", root,
                 comm.remote_size);
  }
  return MPI_SUCCESS;
}

int in_place(const Comm& comm, const char* function) {
  return raise(&comm, MPI_ERR_BUFFER, function, "MPI_IN_PLACE is not allowed on an intercommunicator");
}

int failed(const Comm& comm, const char* function, int err, const char* step) {
  return raise(&comm, err, function, "%s failed", step);
}

int tag_of(Comm& comm) { return static_cast<int>(next_tag_base(comm)); }

// Room for `count` elements of `type`, laid out as the type lays them
// (data() is where element 0 goes, as the caller's buffer would be).
class TypedTemp {
 public:
  int make(MPI_Datatype type, long long count) {
    MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    if (int err = PMPI_Type_get_extent(type, &lb, &extent); err != MPI_SUCCESS) return err;
    if (int err = PMPI_Type_get_true_extent(type, &true_lb, &true_extent); err != MPI_SUCCESS) return err;
    if (count <= 0) return MPI_SUCCESS;
    storage_.resize(static_cast<std::size_t>(true_extent + (count - 1) * std::max<MPI_Aint>(extent, 0)) + 1);
    data_ = storage_.data() - true_lb;
    return MPI_SUCCESS;
  }
  [[nodiscard]] void* data() const noexcept { return data_; }

 private:
  std::vector<std::byte> storage_;
  std::byte* data_ = nullptr;
};

// Rank `r`'s block of `layout` in `base`.
struct Block {
  void* address;
  int count;
  MPI_Datatype type;
};
int block_of(const InterLayout& layout, const void* base, int r, Block& block) {
  const auto i = static_cast<std::size_t>(r);
  block.count = layout.counts != nullptr ? layout.counts[i] : layout.uniform;
  block.type = layout.types != nullptr ? layout.types[i] : layout.type;
  long long offset = 0;
  if (layout.types != nullptr) {
    offset = layout.displs[i];  // bytes
  } else if (!layout.repeat) {
    MPI_Aint lb = 0, extent = 0;
    if (int err = PMPI_Type_get_extent(block.type, &lb, &extent); err != MPI_SUCCESS) return err;
    const long long displ = layout.displs != nullptr ? layout.displs[i] : static_cast<long long>(r) * layout.uniform;
    offset = displ * extent;
  }
  block.address = const_cast<std::byte*>(static_cast<const std::byte*>(base) + offset);
  return MPI_SUCCESS;
}

int check_layout(const Comm& comm, const char* function, const InterLayout& layout) {
  if (layout.varying && (layout.counts == nullptr || layout.displs == nullptr)) {
    return raise(&comm, MPI_ERR_ARG, function, "null counts or displacements");
  }
  if (!layout.varying && layout.uniform < 0) {
    return raise(&comm, MPI_ERR_COUNT, function, "invalid count %d", layout.uniform);
  }
  return MPI_SUCCESS;
}

// Non-blocking transfers on the bridge, waited for together.
class Transfers {
 public:
  Transfers(Comm& comm, int tag) : comm_(comm), tag_(tag) {}
  void send(const Block& block, int peer) { post(block, peer, true); }
  void recv(const Block& block, int peer) { post(block, peer, false); }
  void fail(int err) {
    if (error_ == MPI_SUCCESS) error_ = err;
  }
  int wait() {
    const int err = PMPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
    fail(err);
    return error_;
  }
  ~Transfers() { (void)wait(); }
  Transfers(const Transfers&) = delete;
  Transfers& operator=(const Transfers&) = delete;

 private:
  void post(const Block& block, int peer, bool send) {
    MPI_Request request = MPI_REQUEST_NULL;
    const int err = send ? PMPI_Isend(block.address, block.count, block.type, peer, tag_, comm_.bridge, &request)
                         : PMPI_Irecv(block.address, block.count, block.type, peer, tag_, comm_.bridge, &request);
    if (err != MPI_SUCCESS) return fail(err);
    requests_.push_back(request);
  }

  Comm& comm_;
  int tag_;
  std::vector<MPI_Request> requests_;
  int error_ = MPI_SUCCESS;
};

// Whether this group goes first where the two take turns: the one with the
// lowest job rank, the same answer on both sides.
bool goes_first(const Comm& comm) {
  return *std::min_element(comm.job_ranks.begin(), comm.job_ranks.end()) <
         *std::min_element(comm.remote_job_ranks.begin(), comm.remote_job_ranks.end());
}

// This group's reduction of `sendbuf` into `partial` at local rank 0.
int reduce_to_leader(Comm& comm, const char* function, const void* sendbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, TypedTemp& partial) {
  if (sendbuf == MPI_IN_PLACE) return in_place(comm, function);
  if (comm.rank == 0) {
    if (int err = partial.make(datatype, count); err != MPI_SUCCESS) return failed(comm, function, err, "the datatype");
  }
  if (int err = PMPI_Reduce(sendbuf, partial.data(), count, datatype, op, 0, comm.local); err != MPI_SUCCESS) {
    return failed(comm, function, err, "local reduction");
  }
  return MPI_SUCCESS;
}

}  // namespace

int inter_barrier(Comm& comm) {
  constexpr const char* kFunction = "MPI_Barrier";
  const int tag = tag_of(comm);
  // Nobody leaves the second local barrier before its leader has heard from
  // the other leader, who had waited for its whole group in the first.
  if (int err = PMPI_Barrier(comm.local); err != MPI_SUCCESS) return failed(comm, kFunction, err, "local barrier");
  if (comm.rank == 0) {
    if (int err = PMPI_Sendrecv(nullptr, 0, MPI_BYTE, 0, tag, nullptr, 0, MPI_BYTE, 0, tag, comm.bridge,
                                MPI_STATUS_IGNORE);
        err != MPI_SUCCESS) {
      return failed(comm, kFunction, err, "the leaders' exchange");
    }
  }
  if (int err = PMPI_Barrier(comm.local); err != MPI_SUCCESS) return failed(comm, kFunction, err, "local barrier");
  return MPI_SUCCESS;
}

int inter_bcast(Comm& comm, const char* kFunction, void* buffer, int count, MPI_Datatype datatype, int root) {
  const int tag = tag_of(comm);
  Role role = Role::Idle;
  if (int err = root_role(comm, kFunction, root, role); err != MPI_SUCCESS) return err;
  if (role == Role::Idle) return MPI_SUCCESS;
  if (role == Role::Root) {
    if (int err = PMPI_Send(buffer, count, datatype, 0, tag, comm.bridge); err != MPI_SUCCESS) {
      return failed(comm, kFunction, err, "sending to the remote group");
    }
    return MPI_SUCCESS;
  }
  if (comm.rank == 0) {
    if (int err = PMPI_Recv(buffer, count, datatype, root, tag, comm.bridge, MPI_STATUS_IGNORE);
        err != MPI_SUCCESS) {
      return failed(comm, kFunction, err, "receiving from the root");
    }
  }
  if (int err = PMPI_Bcast(buffer, count, datatype, 0, comm.local); err != MPI_SUCCESS) {
    return failed(comm, kFunction, err, "local broadcast");
  }
  return MPI_SUCCESS;
}

int inter_reduce(Comm& comm, const char* function, const void* sendbuf, void* recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, int root) {
  const int tag = tag_of(comm);
  Role role = Role::Idle;
  if (int err = root_role(comm, function, root, role); err != MPI_SUCCESS) return err;
  if (role == Role::Idle) return MPI_SUCCESS;
  if (role == Role::Root) {
    if (int err = PMPI_Recv(recvbuf, count, datatype, 0, tag, comm.bridge, MPI_STATUS_IGNORE); err != MPI_SUCCESS) {
      return failed(comm, function, err, "receiving the remote group's reduction");
    }
    return MPI_SUCCESS;
  }
  TypedTemp partial;
  if (int err = reduce_to_leader(comm, function, sendbuf, count, datatype, op, partial); err != MPI_SUCCESS) {
    return err;
  }
  if (comm.rank == 0) {
    if (int err = PMPI_Send(partial.data(), count, datatype, root, tag, comm.bridge); err != MPI_SUCCESS) {
      return failed(comm, function, err, "sending to the root");
    }
  }
  return MPI_SUCCESS;
}

int inter_allreduce(Comm& comm, const char* kFunction, const void* sendbuf, void* recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op) {
  const int tag = tag_of(comm);
  // Each group reduces to its rank 0; the two swap their results, and each
  // broadcasts the other group's within its own.
  TypedTemp partial;
  if (int err = reduce_to_leader(comm, kFunction, sendbuf, count, datatype, op, partial); err != MPI_SUCCESS) {
    return err;
  }
  if (comm.rank == 0) {
    if (int err = PMPI_Sendrecv(partial.data(), count, datatype, 0, tag, recvbuf, count, datatype, 0, tag,
                                comm.bridge, MPI_STATUS_IGNORE);
        err != MPI_SUCCESS) {
      return failed(comm, kFunction, err, "the leaders' exchange");
    }
  }
  if (int err = PMPI_Bcast(recvbuf, count, datatype, 0, comm.local); err != MPI_SUCCESS) {
    return failed(comm, kFunction, err, "local broadcast");
  }
  return MPI_SUCCESS;
}

int inter_rooted(Comm& comm, const char* function, bool gather, const void* mine, int mine_count,
                 MPI_Datatype mine_type, const void* parts, const InterLayout& layout, int root) {
  const int tag = tag_of(comm);
  Role role = Role::Idle;
  if (int err = root_role(comm, function, root, role); err != MPI_SUCCESS) return err;
  if (role == Role::Idle) return MPI_SUCCESS;
  Transfers transfers(comm, tag);
  if (role == Role::Member) {
    if (mine == MPI_IN_PLACE) return in_place(comm, function);
    const Block block{const_cast<void*>(mine), mine_count, mine_type};
    gather ? transfers.send(block, root) : transfers.recv(block, root);
  } else {
    if (int err = check_layout(comm, function, layout); err != MPI_SUCCESS) return err;
    for (int r = 0; r < comm.remote_size; ++r) {
      Block block{};
      if (int err = block_of(layout, parts, r, block); err != MPI_SUCCESS) {
        transfers.fail(err);
        break;
      }
      gather ? transfers.recv(block, r) : transfers.send(block, r);
    }
  }
  if (int err = transfers.wait(); err != MPI_SUCCESS) return failed(comm, function, err, "a transfer");
  return MPI_SUCCESS;
}

int inter_all(Comm& comm, const char* function, const void* sendbuf, const InterLayout& send, void* recvbuf,
              const InterLayout& recv) {
  const int tag = tag_of(comm);
  if (sendbuf == MPI_IN_PLACE) return in_place(comm, function);
  if (int err = check_layout(comm, function, send); err != MPI_SUCCESS) return err;
  if (int err = check_layout(comm, function, recv); err != MPI_SUCCESS) return err;
  Transfers transfers(comm, tag);
  for (int r = 0; r < comm.remote_size; ++r) {
    Block in{}, out{};
    if (int err = block_of(recv, recvbuf, r, in); err != MPI_SUCCESS) {
      transfers.fail(err);
      break;
    }
    if (int err = block_of(send, sendbuf, r, out); err != MPI_SUCCESS) {
      transfers.fail(err);
      break;
    }
    transfers.recv(in, r);
    transfers.send(out, r);
  }
  if (int err = transfers.wait(); err != MPI_SUCCESS) return failed(comm, function, err, "a transfer");
  return MPI_SUCCESS;
}

int inter_reduce_scatter(Comm& comm, const char* function, const void* sendbuf, void* recvbuf, const int counts[],
                         MPI_Datatype datatype, MPI_Op op) {
  if (counts == nullptr) return raise(&comm, MPI_ERR_ARG, function, "null recvcounts argument");
  long long total = 0;
  for (int r = 0; r < comm.size; ++r) {
    if (counts[r] < 0) return raise(&comm, MPI_ERR_COUNT, function, "invalid count %d for rank %d", counts[r], r);
    total += counts[r];
  }
  // The groups take turns reducing their vectors (total elements, which the
  // standard has both groups agree on) to the other's rank 0, which then
  // scatters its share to each member.
  TypedTemp result;
  if (comm.rank == 0) {
    if (int err = result.make(datatype, total); err != MPI_SUCCESS) {
      return failed(comm, function, err, "the datatype");
    }
  }
  const int n = static_cast<int>(total);
  const int receive_root = comm.rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
  for (bool send_turn : {goes_first(comm), !goes_first(comm)}) {
    const int err = send_turn ? inter_reduce(comm, function, sendbuf, nullptr, n, datatype, op, 0)
                              : inter_reduce(comm, function, nullptr, result.data(), n, datatype, op, receive_root);
    if (err != MPI_SUCCESS) return err;
  }
  std::vector<int> displs(static_cast<std::size_t>(comm.size));
  for (int r = 1; r < comm.size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  if (int err = PMPI_Scatterv(result.data(), counts, displs.data(), datatype, recvbuf, counts[comm.rank], datatype, 0,
                              comm.local);
      err != MPI_SUCCESS) {
    return failed(comm, function, err, "local scatter");
  }
  return MPI_SUCCESS;
}

}  // namespace tern::mpi
