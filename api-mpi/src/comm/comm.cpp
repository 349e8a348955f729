// Communicators: rank, size, duplication, splitting and creation from a group
// (each a fresh matching context agreed by every member of the parent),
// freeing (attributes copied and deleted through attr/) and comparison.
#include <algorithm>
#include <cstdio>

#include "comm/comm.hpp"
#include "comm/agreement.hpp"
#include "comm/contexts.hpp"
#include "comm/group.hpp"
#include "state.hpp"

namespace tern::mpi {

engine::Endpoint* comm_connect(Comm& comm, int rank) {
  StateGuard guard(*g_state);
  engine::Endpoint* endpoint = comm.endpoints[rank].load(std::memory_order_relaxed);
  if (endpoint != nullptr) return endpoint;
  if (g_state->job->endpoint(comm.peer_job_ranks()[static_cast<std::size_t>(rank)], endpoint) != Status::Ok) {
    return nullptr;
  }
  comm.endpoints[rank].store(endpoint, std::memory_order_release);
  return endpoint;
}

namespace {

int check_comm(const char* function, MPI_Comm handle, Comm*& comm) {
  comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, function, "invalid communicator %d", handle);
  return MPI_SUCCESS;
}

}  // namespace

int agree_context(const char* function, Comm& comm, uint16_t& context) {
  const uint64_t key = agreement_key(true, comm.context, comm.collective_sequence);
  enter_agreement(key);
  Status failed = Status::Ok;
  bool accepted = false;
  long long agreed = 0;
  while (!accepted && failed == Status::Ok) {
    uint16_t proposal = 0;
    if (!propose_context(key, proposal)) break;
    agreed = proposal;
    failed = coll_allreduce(comm, &agreed, 1, *find_type(MPI_LONG_LONG), MPI_LONG_LONG, MPI_MAX);
    if (failed != Status::Ok || agreed >= kFirstReservedContext) break;
    long long refused = accept_context(key, proposal, static_cast<uint16_t>(agreed)) ? 0 : 1;
    failed = coll_allreduce(comm, &refused, 1, *find_type(MPI_LONG_LONG), MPI_LONG_LONG, MPI_MAX);
    accepted = refused == 0;
  }
  leave_agreement(key);
  if (failed != Status::Ok) {
    return raise(&comm, error_class_of(failed), function, "agreeing on a context failed: %s", to_string(failed));
  }
  if (!accepted) {
    return raise(&comm, MPI_ERR_INTERN, function, "out of communicator contexts (%d)", int{kFirstReservedContext});
  }
  context = static_cast<uint16_t>(agreed);
  return MPI_SUCCESS;
}

int store_comm(const char* function, const Comm& parent, std::unique_ptr<Comm> comm, MPI_Comm* newcomm) {
  StateGuard guard(*g_state);
  int slot = 0;
  for (int i = MPI_COMM_SELF + 1; i < kMaxComms; ++i) {
    if (!g_state->comms[i]) {
      slot = i;
      break;
    }
  }
  if (slot == 0) return raise(&parent, MPI_ERR_INTERN, function, "too many communicators (%d)", kMaxComms);
  comm->errhandler = parent.errhandler;
  g_state->comms[slot] = std::move(comm);
  *newcomm = CommHandle::make(slot, g_state->comm_generations[slot]);
  return MPI_SUCCESS;
}

int install_comm(const char* function, const Comm& parent, std::vector<unsigned> job_ranks, int rank,
                 uint16_t context, MPI_Comm* newcomm) {
  auto comm = std::make_unique<Comm>();
  comm->context = context;
  comm->rank = rank;
  comm->size = static_cast<int>(job_ranks.size());
  comm->job_ranks = std::move(job_ranks);
  comm->endpoints.reset(new std::atomic<engine::Endpoint*>[comm->job_ranks.size()]);
  // The parent's connections by job rank (an intercommunicator's lead to its
  // remote group).
  const std::vector<unsigned>& parent_peers = parent.peer_job_ranks();
  const bool same_ranks = comm->job_ranks == parent_peers;
  for (std::size_t i = 0; i < comm->job_ranks.size(); ++i) {
    if (same_ranks) {
      comm->endpoints[i].store(parent.endpoints[i].load(std::memory_order_acquire), std::memory_order_relaxed);
      continue;
    }
    // Reuse the parent's connection where there is one.
    engine::Endpoint* endpoint = nullptr;
    for (std::size_t j = 0; j < parent_peers.size(); ++j) {
      if (parent_peers[j] == comm->job_ranks[i]) {
        endpoint = parent.endpoints[j].load(std::memory_order_acquire);
        break;
      }
    }
    comm->endpoints[i].store(endpoint, std::memory_order_relaxed);
  }
  return store_comm(function, parent, std::move(comm), newcomm);
}

void drop_comm(MPI_Comm handle) {
  StateGuard guard(*g_state);
  const int slot = CommHandle::slot(handle);
  g_state->comm_generations[slot] = CommHandle::next(g_state->comm_generations[slot]);
  g_state->comms[slot].reset();
}

}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Comm_rank(MPI_Comm handle, int* rank) {
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized("MPI_Comm_rank");
  Comm* comm = nullptr;
  if (int err = check_comm("MPI_Comm_rank", handle, comm); err != MPI_SUCCESS) return err;
  if (rank == nullptr) return raise(comm, MPI_ERR_ARG, "MPI_Comm_rank", "null rank argument");
  *rank = comm->rank;
  return MPI_SUCCESS;
}

int PMPI_Comm_size(MPI_Comm handle, int* size) {
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized("MPI_Comm_size");
  Comm* comm = nullptr;
  if (int err = check_comm("MPI_Comm_size", handle, comm); err != MPI_SUCCESS) return err;
  if (size == nullptr) return raise(comm, MPI_ERR_ARG, "MPI_Comm_size", "null size argument");
  *size = comm->size;
  return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm handle, MPI_Comm* newcomm) {
  if (g_state == nullptr) return not_initialized("MPI_Comm_dup");
  Comm* comm = nullptr;
  if (int err = check_comm("MPI_Comm_dup", handle, comm); err != MPI_SUCCESS) return err;
  if (newcomm == nullptr) return raise(comm, MPI_ERR_ARG, "MPI_Comm_dup", "null newcomm argument");
  if (comm->inter) {
    if (int err = inter_dup("MPI_Comm_dup", *comm, newcomm); err != MPI_SUCCESS) return err;
  } else {
    uint16_t context = 0;
    if (int err = agree_context("MPI_Comm_dup", *comm, context); err != MPI_SUCCESS) return err;
    if (int err = install_comm("MPI_Comm_dup", *comm, comm->job_ranks, comm->rank, context, newcomm);
        err != MPI_SUCCESS) {
      return err;
    }
  }
  // A duplicate keeps the topology and the hints (not the name).
  return fill_duplicate("MPI_Comm_dup", handle, *comm, nullptr, newcomm);
}

int PMPI_Comm_split(MPI_Comm handle, int color, int key, MPI_Comm* newcomm) {
  constexpr const char* kFunction = "MPI_Comm_split";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  if (int err = check_comm(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (newcomm == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null newcomm argument");
  if (color < 0 && color != MPI_UNDEFINED) return raise(comm, MPI_ERR_ARG, kFunction, "invalid color %d", color);
  if (comm->inter) return inter_split(kFunction, *comm, color, key, newcomm);
  // Every member learns every (color, key); the context is agreed over the
  // whole parent, so the new communicators' contexts are free everywhere.
  std::vector<int> all(2 * static_cast<std::size_t>(comm->size));
  const int mine[2] = {color, key};
  if (int err = PMPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, handle); err != MPI_SUCCESS) return err;
  uint16_t context = 0;
  if (int err = agree_context(kFunction, *comm, context); err != MPI_SUCCESS) return err;
  if (color == MPI_UNDEFINED) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  std::vector<int> members;  // parent ranks of my color, by (key, parent rank)
  for (int r = 0; r < comm->size; ++r) {
    if (all[2 * static_cast<std::size_t>(r)] == color) members.push_back(r);
  }
  std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
    return all[2 * static_cast<std::size_t>(a) + 1] < all[2 * static_cast<std::size_t>(b) + 1];
  });
  std::vector<unsigned> job_ranks;
  int my_rank = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i] == comm->rank) my_rank = static_cast<int>(i);
    job_ranks.push_back(comm->job_ranks[static_cast<std::size_t>(members[i])]);
  }
  return install_comm(kFunction, *comm, std::move(job_ranks), my_rank, context, newcomm);
}

int PMPI_Comm_split_type(MPI_Comm handle, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  constexpr const char* kFunction = "MPI_Comm_split_type";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  if (int err = check_comm(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (newcomm == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null newcomm argument");
  if (comm->inter) return unsupported(comm, kFunction, "this call on an intercommunicator");
  (void)info;  // hints for the implementation's own split types; SHARED has none
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED) {
    return raise(comm, MPI_ERR_ARG, kFunction,
                 "split_type %d is neither MPI_COMM_TYPE_SHARED nor MPI_UNDEFINED", split_type);
  }
  // The ranks of one host share a color: its first rank in the communicator
  // (the host's leader of the node-aware collectives), the same view on
  // every rank.
  const int color = split_type == MPI_UNDEFINED ? MPI_UNDEFINED : node_layout(*comm).leader_of[comm->rank];
  return PMPI_Comm_split(handle, color, key, newcomm);
}

int PMPI_Comm_create(MPI_Comm handle, MPI_Group group, MPI_Comm* newcomm) {
  constexpr const char* kFunction = "MPI_Comm_create";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  if (int err = check_comm(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (newcomm == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null newcomm argument");
  if (comm->inter) return unsupported(comm, kFunction, "this call on an intercommunicator");
  const std::vector<unsigned>* members = find_group(group);
  if (members == nullptr) return raise(comm, MPI_ERR_GROUP, kFunction, "invalid group %d", group);
  for (unsigned job_rank : *members) {
    if (std::find(comm->job_ranks.begin(), comm->job_ranks.end(), job_rank) == comm->job_ranks.end()) {
      return raise(comm, MPI_ERR_GROUP, kFunction, "group member (job rank %u) is not in communicator %d",
                   job_rank, handle);
    }
  }
  std::vector<unsigned> job_ranks = *members;
  uint16_t context = 0;
  if (int err = agree_context(kFunction, *comm, context); err != MPI_SUCCESS) return err;
  const unsigned me = comm->job_ranks[static_cast<std::size_t>(comm->rank)];
  auto it = std::find(job_ranks.begin(), job_ranks.end(), me);
  if (it == job_ranks.end()) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  const int my_rank = static_cast<int>(it - job_ranks.begin());
  return install_comm(kFunction, *comm, std::move(job_ranks), my_rank, context, newcomm);
}

int PMPI_Comm_free(MPI_Comm* handle) {
  if (g_state == nullptr) return not_initialized("MPI_Comm_free");
  if (handle == nullptr) return raise(nullptr, MPI_ERR_ARG, "MPI_Comm_free", "null comm argument");
  Comm* comm = nullptr;
  if (int err = check_comm("MPI_Comm_free", *handle, comm); err != MPI_SUCCESS) return err;
  if (comm->predefined) {
    return raise(comm, MPI_ERR_COMM, "MPI_Comm_free", "cannot free a predefined communicator (%d)", *handle);
  }
  // The attributes go first; a delete callback that fails keeps the
  // communicator (and the attributes not yet deleted).
  if (int err = attr_delete_all(AttrObject::Comm, *handle, comm->attributes); err != MPI_SUCCESS) {
    return raise(comm, err, "MPI_Comm_free", "an attribute delete callback returned error %d", err);
  }
  if (comm->inter) inter_free(*comm);
  drop_comm(*handle);
  *handle = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int PMPI_Comm_compare(MPI_Comm handle1, MPI_Comm handle2, int* result) {
  if (g_state == nullptr) return not_initialized("MPI_Comm_compare");
  Comm* a = nullptr;
  Comm* b = nullptr;
  if (int err = check_comm("MPI_Comm_compare", handle1, a); err != MPI_SUCCESS) return err;
  if (int err = check_comm("MPI_Comm_compare", handle2, b); err != MPI_SUCCESS) return err;
  if (result == nullptr) return raise(a, MPI_ERR_ARG, "MPI_Comm_compare", "null result argument");
  if (handle1 == handle2) {
    *result = MPI_IDENT;
  } else if (a->inter || b->inter) {
    *result = inter_compare(*a, *b);
  } else if (a->job_ranks == b->job_ranks) {
    *result = MPI_CONGRUENT;
  } else {
    std::vector<unsigned> x = a->job_ranks, y = b->job_ranks;
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    *result = x == y ? MPI_SIMILAR : MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}

MPI_Fint PMPI_Comm_c2f(MPI_Comm comm) { return comm; }
MPI_Comm PMPI_Comm_f2c(MPI_Fint comm) { return comm; }

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
#pragma weak MPI_Comm_size = PMPI_Comm_size
#pragma weak MPI_Comm_dup = PMPI_Comm_dup
#pragma weak MPI_Comm_split = PMPI_Comm_split
#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
#pragma weak MPI_Comm_create = PMPI_Comm_create
#pragma weak MPI_Comm_free = PMPI_Comm_free
#pragma weak MPI_Comm_compare = PMPI_Comm_compare
#pragma weak MPI_Comm_c2f = PMPI_Comm_c2f
#pragma weak MPI_Comm_f2c = PMPI_Comm_f2c

}  // extern "C"
