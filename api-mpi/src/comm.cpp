// Communicators: rank, size, duplication (a fresh matching context agreed by
// every member), freeing, comparison and the predefined attributes.
#include <algorithm>
#include <cstdio>

#include "state.hpp"

namespace tern::mpi {

engine::Endpoint* comm_endpoint(Comm& comm, int rank) {
  engine::Endpoint* endpoint = comm.endpoints[rank].load(std::memory_order_acquire);
  if (endpoint != nullptr) return endpoint;
  StateGuard guard(*g_state);
  endpoint = comm.endpoints[rank].load(std::memory_order_relaxed);
  if (endpoint != nullptr) return endpoint;
  if (g_state->job->endpoint(comm.job_ranks[rank], endpoint) != Status::Ok) return nullptr;
  comm.endpoints[rank].store(endpoint, std::memory_order_release);
  return endpoint;
}

namespace {

int check_comm(const char* function, MPI_Comm handle, Comm*& comm) {
  comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, function, "invalid communicator %d", handle);
  return MPI_SUCCESS;
}

// Shared by every attribute query: MPI hands out pointers to these.
int attr_tag_ub = kTagUb;
int attr_host = MPI_PROC_NULL;
int attr_io = MPI_ANY_SOURCE;
int attr_wtime_is_global = 0;
int attr_universe_size = 0;
int attr_appnum = 0;
int attr_lastusedcode = MPI_ERR_LASTCODE;

}  // namespace
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
  // Every member proposes its next free context; the largest is free everywhere.
  long long context = g_state->next_context;
  if (Status s = coll_allreduce(*comm, &context, 1, *find_type(MPI_LONG_LONG), MPI_LONG_LONG, MPI_MAX);
      s != Status::Ok) {
    return raise(comm, error_class_of(s), "MPI_Comm_dup", "agreeing on a context failed: %s", to_string(s));
  }
  if (context >= kCollectiveBit) {
    return raise(comm, MPI_ERR_INTERN, "MPI_Comm_dup", "out of communicator contexts (%d)", int{kCollectiveBit});
  }
  StateGuard guard(*g_state);
  int slot = 0;
  for (int i = MPI_COMM_SELF + 1; i < kMaxComms; ++i) {
    if (!g_state->comms[i]) {
      slot = i;
      break;
    }
  }
  if (slot == 0) return raise(comm, MPI_ERR_INTERN, "MPI_Comm_dup", "too many communicators (%d)", kMaxComms);
  auto dup = std::make_unique<Comm>();
  dup->context = static_cast<uint16_t>(context);
  dup->rank = comm->rank;
  dup->size = comm->size;
  dup->job_ranks = comm->job_ranks;
  dup->endpoints.reset(new std::atomic<engine::Endpoint*>[dup->job_ranks.size()]);
  for (int i = 0; i < dup->size; ++i) dup->endpoints[i].store(comm->endpoints[i].load());
  dup->errhandler = comm->errhandler;
  g_state->next_context = static_cast<uint16_t>(context + 1);
  g_state->comms[slot] = std::move(dup);
  *newcomm = slot;
  return MPI_SUCCESS;
}

int PMPI_Comm_free(MPI_Comm* handle) {
  if (g_state == nullptr) return not_initialized("MPI_Comm_free");
  if (handle == nullptr) return raise(nullptr, MPI_ERR_ARG, "MPI_Comm_free", "null comm argument");
  Comm* comm = nullptr;
  if (int err = check_comm("MPI_Comm_free", *handle, comm); err != MPI_SUCCESS) return err;
  if (comm->predefined) {
    return raise(comm, MPI_ERR_COMM, "MPI_Comm_free", "cannot free a predefined communicator (%d)", *handle);
  }
  StateGuard guard(*g_state);
  g_state->comms[*handle].reset();
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

int PMPI_Comm_get_attr(MPI_Comm handle, int keyval, void* attribute_val, int* flag) {
  if (g_state == nullptr) return not_initialized("MPI_Comm_get_attr");
  Comm* comm = nullptr;
  if (int err = check_comm("MPI_Comm_get_attr", handle, comm); err != MPI_SUCCESS) return err;
  if (attribute_val == nullptr || flag == nullptr) {
    return raise(comm, MPI_ERR_ARG, "MPI_Comm_get_attr", "null argument");
  }
  int* value = nullptr;
  switch (keyval) {
    case MPI_TAG_UB: value = &attr_tag_ub; break;
    case MPI_HOST: value = &attr_host; break;
    case MPI_IO: value = &attr_io; break;
    case MPI_WTIME_IS_GLOBAL: value = &attr_wtime_is_global; break;
    case MPI_UNIVERSE_SIZE:
      attr_universe_size = static_cast<int>(g_state->job->size());
      value = &attr_universe_size;
      break;
    case MPI_APPNUM: value = &attr_appnum; break;
    case MPI_LASTUSEDCODE: value = &attr_lastusedcode; break;
    default:
      // User keyvals do not exist in this subset, so no key can be set.
      return raise(comm, MPI_ERR_KEYVAL, "MPI_Comm_get_attr", "invalid attribute key %d", keyval);
  }
  *static_cast<int**>(attribute_val) = value;
  *flag = 1;
  return MPI_SUCCESS;
}

MPI_Fint PMPI_Comm_c2f(MPI_Comm comm) { return comm; }
MPI_Comm PMPI_Comm_f2c(MPI_Fint comm) { return comm; }

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
#pragma weak MPI_Comm_size = PMPI_Comm_size
#pragma weak MPI_Comm_dup = PMPI_Comm_dup
#pragma weak MPI_Comm_free = PMPI_Comm_free
#pragma weak MPI_Comm_compare = PMPI_Comm_compare
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
#pragma weak MPI_Comm_c2f = PMPI_Comm_c2f
#pragma weak MPI_Comm_f2c = PMPI_Comm_f2c

}  // extern "C"
