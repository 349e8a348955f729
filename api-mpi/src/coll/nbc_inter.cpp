// Non-blocking and persistent collectives on intercommunicators, as
// schedules in the blocking ones' shapes (inter.cpp): the steps within a
// group run the intracommunicator algorithms on the hidden `local`
// communicator, and those between the groups go through the hidden
// `bridge`, both in one schedule (Schedule::set_bridge). Every member
// makes its schedule, whatever its part, so each group's sequence on
// `local` and both groups' on the intercommunicator stay in step.
#include <cstddef>
#include <memory>

#include "coll/nbc.hpp"
#include "op/op.hpp"

namespace tern::mpi {
namespace {

enum class Role { Root, Idle, Member };

int root_role(const InterCall& call, int root, Role& role) {
  if (root == MPI_ROOT) {
    role = Role::Root;
  } else if (root == MPI_PROC_NULL) {
    role = Role::Idle;
  } else if (root >= 0 && root < call.comm.remote_size) {
    role = Role::Member;
  } else {
    return raise(&call.comm, MPI_ERR_ROOT, call.function,
                 "invalid root %d (MPI_ROOT, MPI_PROC_NULL or a rank of the remote group of size %d)", root,
                 call.comm.remote_size);
  }
  return MPI_SUCCESS;
}

int check_request(const InterCall& call) {
  if (call.request == nullptr) return raise(&call.comm, MPI_ERR_REQUEST, call.function, "null request argument");
  return MPI_SUCCESS;
}

int in_place_refused(const InterCall& call) {
  return raise(&call.comm, MPI_ERR_BUFFER, call.function, "MPI_IN_PLACE is not allowed on an intercommunicator");
}

int null_buffer(const InterCall& call, const void* buffer, std::size_t bytes) {
  if (buffer == nullptr && bytes != 0) return raise(&call.comm, MPI_ERR_BUFFER, call.function, "null buffer");
  return MPI_SUCCESS;
}

// The hidden local communicator, on which a schedule's within-group steps run.
Comm& local_of(const InterCall& call) { return *find_comm(call.comm.local); }

// A schedule on the local communicator with the bridge beside it, building
// its transfers on the bridge.
std::shared_ptr<Schedule> inter_schedule(const InterCall& call) {
  auto schedule = new_schedule(local_of(call), call.persistent);
  schedule->set_bridge(*find_comm(call.comm.bridge), Schedule::take_tag_base(call.comm, call.persistent));
  schedule->on_bridge(true);
  return schedule;
}

int issue(const InterCall& call, std::shared_ptr<Schedule> schedule) {
  return issue_schedule(call.function, call.comm, call.handle, std::move(schedule), call.persistent, call.request);
}

}  // namespace

int inter_ibarrier(const InterCall& call) {
  if (int err = check_request(call); err != MPI_SUCCESS) return err;
  auto schedule = inter_schedule(call);
  Comm& local = local_of(call);
  // As the blocking one: no member leaves before its leader has heard from
  // the other leader, who had heard from its whole group.
  schedule->on_bridge(false);
  schedule_barrier(*schedule, local);
  if (local.rank == 0) {
    schedule->on_bridge(true);
    schedule->next_round();
    schedule->send(nullptr, 0, 0);
    schedule->recv(nullptr, 0, 0);
    schedule->on_bridge(false);
  }
  schedule_bcast(*schedule, local, nullptr, 0, 0);
  return issue(call, std::move(schedule));
}

int inter_ibcast(const InterCall& call, void* buffer, int count, MPI_Datatype datatype, int root) {
  if (int err = check_request(call); err != MPI_SUCCESS) return err;
  Role role = Role::Idle;
  if (int err = root_role(call, root, role); err != MPI_SUCCESS) return err;
  DataShape shape;
  if (int err = data_shape(call.function, call.comm, count, datatype, shape); err != MPI_SUCCESS) return err;
  const auto n = static_cast<std::size_t>(count);
  const std::size_t bytes = n * shape.size;
  if (role != Role::Idle) {
    if (int err = null_buffer(call, buffer, bytes); err != MPI_SUCCESS) return err;
  }
  auto schedule = inter_schedule(call);
  Comm& local = local_of(call);
  if (role == Role::Root) {
    schedule->send(schedule->send_view(buffer, n, shape.layout), bytes, 0);
  } else if (role == Role::Member) {
    void* data = schedule->recv_view(buffer, n, shape.layout);
    if (local.rank == 0) schedule->recv(data, bytes, root);
    schedule->on_bridge(false);
    schedule_bcast(*schedule, local, data, bytes, 0);
  }
  return issue(call, std::move(schedule));
}

int inter_ireduce(const InterCall& call, bool all, const void* sendbuf, void* recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, int root) {
  if (int err = check_request(call); err != MPI_SUCCESS) return err;
  Role role = Role::Member;
  if (!all) {
    if (int err = root_role(call, root, role); err != MPI_SUCCESS) return err;
  }
  ReductionShape shape;
  if (int err = reduction_shape(call.function, call.comm, count, datatype, op, shape); err != MPI_SUCCESS) {
    return err;
  }
  const auto n = static_cast<std::size_t>(count);
  const std::size_t elements = n * shape.per_instance;
  const std::size_t bytes = elements * shape.elem;
  if (role == Role::Member && sendbuf == MPI_IN_PLACE) return in_place_refused(call);
  const bool gets_result = all || role == Role::Root;
  if (role == Role::Member) {
    if (int err = null_buffer(call, sendbuf, bytes); err != MPI_SUCCESS) return err;
  }
  if (gets_result) {
    if (int err = null_buffer(call, recvbuf, bytes); err != MPI_SUCCESS) return err;
  }
  auto schedule = inter_schedule(call);
  schedule->set_reduction(op, shape.basic, shape.user_layout);
  Comm& local = local_of(call);
  void* result = gets_result ? schedule->recv_view(recvbuf, n, shape.layout) : nullptr;
  if (role == Role::Root) {
    schedule->recv(result, bytes, 0);
  } else if (role == Role::Member) {
    // Each group reduces to its rank 0, which sends the group's result to
    // the root or (allreduce) swaps it with the other leader for the
    // broadcast within its group.
    std::byte* accumulator = schedule->scratch(bytes);
    schedule->copy(schedule->send_view(sendbuf, n, shape.layout), accumulator, bytes);
    schedule->on_bridge(false);
    schedule_reduce(*schedule, local, accumulator, elements, shape.elem, op_commutative(op), 0);
    schedule->on_bridge(true);
    if (local.rank == 0) {
      schedule->next_round();
      schedule->send(accumulator, bytes, all ? 0 : root);
      if (all) schedule->recv(result, bytes, 0);
    }
    if (all) {
      schedule->on_bridge(false);
      schedule_bcast(*schedule, local, result, bytes, 0);
    }
  }
  return issue(call, std::move(schedule));
}

int inter_irooted(const InterCall& call, bool gather, const void* mine, int mine_count, MPI_Datatype mine_type,
                  const void* root_buffer, int root_count, MPI_Datatype root_type, int root) {
  if (int err = check_request(call); err != MPI_SUCCESS) return err;
  Role role = Role::Idle;
  if (int err = root_role(call, root, role); err != MPI_SUCCESS) return err;
  DataShape shape;
  if (role == Role::Member) {
    if (mine == MPI_IN_PLACE) return in_place_refused(call);
    if (int err = data_shape(call.function, call.comm, mine_count, mine_type, shape); err != MPI_SUCCESS) return err;
    const auto n = static_cast<std::size_t>(mine_count);
    if (int err = null_buffer(call, mine, n * shape.size); err != MPI_SUCCESS) return err;
    auto schedule = inter_schedule(call);
    if (gather) {
      schedule->send(schedule->send_view(mine, n, shape.layout), n * shape.size, root);
    } else {
      schedule->recv(schedule->recv_view(const_cast<void*>(mine), n, shape.layout), n * shape.size, root);
    }
    return issue(call, std::move(schedule));
  }
  if (role == Role::Root) {
    if (int err = data_shape(call.function, call.comm, root_count, root_type, shape); err != MPI_SUCCESS) return err;
    if (int err = null_buffer(call, root_buffer, static_cast<std::size_t>(root_count) * shape.size);
        err != MPI_SUCCESS) {
      return err;
    }
  }
  auto schedule = inter_schedule(call);
  const auto n = static_cast<std::size_t>(role == Role::Root ? root_count : 0);
  for (int r = 0; role == Role::Root && r < call.comm.remote_size; ++r) {
    void* part = instance_at(const_cast<void*>(root_buffer), static_cast<long long>(r) * root_count, shape);
    if (gather) {
      schedule->recv(schedule->recv_view(part, n, shape.layout), n * shape.size, r);
    } else {
      schedule->send(schedule->send_view(part, n, shape.layout), n * shape.size, r);
    }
  }
  return issue(call, std::move(schedule));
}

int inter_iall(const InterCall& call, bool alltoall, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
               void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  if (int err = check_request(call); err != MPI_SUCCESS) return err;
  if (sendbuf == MPI_IN_PLACE) return in_place_refused(call);
  DataShape out, in;
  if (int err = data_shape(call.function, call.comm, sendcount, sendtype, out); err != MPI_SUCCESS) return err;
  if (int err = data_shape(call.function, call.comm, recvcount, recvtype, in); err != MPI_SUCCESS) return err;
  const auto send_n = static_cast<std::size_t>(sendcount);
  const auto recv_n = static_cast<std::size_t>(recvcount);
  if (int err = null_buffer(call, sendbuf, send_n * out.size); err != MPI_SUCCESS) return err;
  if (int err = null_buffer(call, recvbuf, recv_n * in.size); err != MPI_SUCCESS) return err;
  auto schedule = inter_schedule(call);
  // Every block goes straight to the remote rank it is for; allgather's one
  // block is packed once for all of them.
  const void* shared = alltoall ? nullptr : schedule->send_view(sendbuf, send_n, out.layout);
  for (int r = 0; r < call.comm.remote_size; ++r) {
    const long long index = r;
    void* part = instance_at(recvbuf, index * recvcount, in);
    schedule->recv(schedule->recv_view(part, recv_n, in.layout), recv_n * in.size, r);
    const void* block = alltoall ? schedule->send_view(instance_at(sendbuf, index * sendcount, out), send_n, out.layout)
                                 : shared;
    schedule->send(block, send_n * out.size, r);
  }
  return issue(call, std::move(schedule));
}

int inter_iexchange(const InterCall& call, const std::vector<Part>& send, const std::vector<Part>& recv,
                    bool in_place) {
  if (int err = check_request(call); err != MPI_SUCCESS) return err;
  if (in_place) return in_place_refused(call);
  for (std::size_t r = 0; r < send.size(); ++r) {
    if (int err = null_buffer(call, send[r].address, send[r].bytes()); err != MPI_SUCCESS) return err;
    if (int err = null_buffer(call, recv[r].address, recv[r].bytes()); err != MPI_SUCCESS) return err;
  }
  auto schedule = inter_schedule(call);
  for (int r = 0; r < call.comm.remote_size; ++r) {
    const Part& in = recv[static_cast<std::size_t>(r)];
    const Part& out = send[static_cast<std::size_t>(r)];
    schedule->recv(schedule->recv_view(in.address, in.count, in.shape.layout), in.bytes(), r);
    schedule->send(schedule->send_view(out.address, out.count, out.shape.layout), out.bytes(), r);
  }
  return issue(call, std::move(schedule));
}

int inter_ireduce_scatter(const InterCall& call, const void* sendbuf, void* recvbuf,
                          const std::vector<std::size_t>& counts, const ReductionShape& shape, MPI_Op op) {
  if (int err = check_request(call); err != MPI_SUCCESS) return err;
  if (sendbuf == MPI_IN_PLACE) return in_place_refused(call);
  std::size_t total = 0;
  for (std::size_t count : counts) total += count;
  const std::size_t instance_bytes = shape.per_instance * shape.elem;
  const std::size_t bytes = total * instance_bytes;
  Comm& local = local_of(call);
  const std::size_t mine = counts[static_cast<std::size_t>(local.rank)];
  if (int err = null_buffer(call, sendbuf, bytes); err != MPI_SUCCESS) return err;
  if (int err = null_buffer(call, recvbuf, mine * instance_bytes); err != MPI_SUCCESS) return err;
  // As the blocking one: each group reduces its vectors to its rank 0, the
  // two swap their groups' results, and each scatters the other group's
  // among its own members.
  auto schedule = inter_schedule(call);
  schedule->set_reduction(op, shape.basic, shape.user_layout);
  std::byte* ours = schedule->scratch(bytes);
  std::byte* theirs = schedule->scratch(bytes);
  schedule->copy(schedule->send_view(sendbuf, total, shape.layout), ours, bytes);
  schedule->on_bridge(false);
  schedule_reduce(*schedule, local, ours, total * shape.per_instance, shape.elem, op_commutative(op), 0);
  if (local.rank == 0) {
    schedule->on_bridge(true);
    schedule->next_round();
    schedule->send(ours, bytes, 0);
    schedule->recv(theirs, bytes, 0);
    schedule->on_bridge(false);
  }
  std::vector<Block> blocks;
  std::size_t offset = 0;
  for (std::size_t count : counts) {
    blocks.push_back(Block{theirs + offset, count * instance_bytes});
    offset += count * instance_bytes;
  }
  schedule_scatter(*schedule, local, schedule->recv_view(recvbuf, mine, shape.layout), blocks, 0);
  return issue(call, std::move(schedule));
}

int inter_irooted_parts(const InterCall& call, bool gather, const Part& own, const std::vector<Part>& parts,
                        int root) {
  if (int err = check_request(call); err != MPI_SUCCESS) return err;
  Role role = Role::Idle;
  if (int err = root_role(call, root, role); err != MPI_SUCCESS) return err;
  if (role == Role::Member && own.address == MPI_IN_PLACE) return in_place_refused(call);
  if (int err = null_buffer(call, own.address, own.bytes()); err != MPI_SUCCESS) return err;
  for (const Part& part : parts) {
    if (int err = null_buffer(call, part.address, part.bytes()); err != MPI_SUCCESS) return err;
  }
  auto schedule = inter_schedule(call);
  if (role == Role::Member) {
    if (gather) {
      schedule->send(schedule->send_view(own.address, own.count, own.shape.layout), own.bytes(), root);
    } else {
      schedule->recv(schedule->recv_view(own.address, own.count, own.shape.layout), own.bytes(), root);
    }
  }
  for (int r = 0; role == Role::Root && r < call.comm.remote_size; ++r) {
    const Part& part = parts[static_cast<std::size_t>(r)];
    if (gather) {
      schedule->recv(schedule->recv_view(part.address, part.count, part.shape.layout), part.bytes(), r);
    } else {
      schedule->send(schedule->send_view(part.address, part.count, part.shape.layout), part.bytes(), r);
    }
  }
  return issue(call, std::move(schedule));
}

}  // namespace tern::mpi
