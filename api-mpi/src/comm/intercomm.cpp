// Intercommunicators: creation from two intracommunicators whose leaders
// meet over a peer communicator, merging into one intracommunicator,
// duplication, splitting, freeing and comparison, and the remote group's
// queries.
//
// Both groups must use one matching context, so each group agrees on its
// largest free context as an intracommunicator does, the leaders swap their
// groups' proposals, and every member takes the larger of the two: free at
// every process of both groups. Each intercommunicator takes two contexts:
// its own (point-to-point in it, and with the collective bit set the
// traffic of its collectives between the groups, through `bridge`) and one
// for `local`, the hidden intracommunicator its collectives use within each
// group.
#include <algorithm>
#include <memory>
#include <vector>

#include "comm/agreement.hpp"
#include "comm/contexts.hpp"
#include "comm/comm.hpp"
#include "comm/group.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

constexpr int kContextsPerInter = 2;

// Hidden communicators report failures to the intercommunicator's code,
// which raises them on the communicator the user named.
void hide(MPI_Comm handle) { find_comm(handle)->errhandler = MPI_ERRORS_RETURN; }

// Takes `count` contexts from `proposal` on (the largest free one of both
// groups) and moves this process past them. The last context below the
// collective bit stays out of reach, as agree_context keeps it.
int take_contexts(const char* function, const Comm& comm, long long proposal, int count, uint16_t& first) {
  if (proposal + count > kCollectiveBit - 1) {
    return raise(&comm, MPI_ERR_INTERN, function, "out of communicator contexts (%d)", int{kCollectiveBit - 1});
  }
  first = static_cast<uint16_t>(proposal);
  take_contexts_from(first, count);
  return MPI_SUCCESS;
}

// This group's largest next free context, agreed over the intracommunicator
// `group` as for an intracommunicator of its own (which moves this process
// past it: harmless, the larger agreement of both groups follows).
int group_proposal(const char* function, Comm& group, long long& proposal) {
  settle_agreements();
  uint16_t context = 0;
  if (int err = agree_context(function, group, context); err != MPI_SUCCESS) return err;
  proposal = context;
  return MPI_SUCCESS;
}

// Local rank 0 of each group swaps `mine` (mine_count values) for the other
// group's `theirs` (their_count) over the bridge; every member of the group
// then holds `theirs`.
int swap_with_remote(const char* function, Comm& inter, const void* mine, int mine_count, void* theirs,
                     int their_count, MPI_Datatype type) {
  const int tag = static_cast<int>(next_tag_base(inter));
  int err = MPI_SUCCESS;
  if (inter.rank == 0) {
    err = PMPI_Sendrecv(mine, mine_count, type, 0, tag, theirs, their_count, type, 0, tag, inter.bridge,
                        MPI_STATUS_IGNORE);
  }
  if (err == MPI_SUCCESS) err = PMPI_Bcast(theirs, their_count, type, 0, inter.local);
  if (err != MPI_SUCCESS) return raise(&inter, err, function, "exchanging with the remote group failed");
  return MPI_SUCCESS;
}

// Contexts for a communicator made from the intercommunicator `inter`, free
// in both groups; `extra` travels to the other group beside the proposal.
int agree_over(const char* function, Comm& inter, int count, long long extra, long long& remote_extra,
               uint16_t& first) {
  long long mine[2] = {0, extra};
  if (int err = group_proposal(function, *find_comm(inter.local), mine[0]); err != MPI_SUCCESS) return err;
  long long theirs[2] = {0, 0};
  if (int err = swap_with_remote(function, inter, mine, 2, theirs, 2, MPI_LONG_LONG); err != MPI_SUCCESS) return err;
  remote_extra = theirs[1];
  return take_contexts(function, inter, std::max(mine[0], theirs[0]), count, first);
}

std::unique_ptr<Comm> inter_part(uint16_t context, int rank, const std::vector<unsigned>& local,
                                 const std::vector<unsigned>& remote) {
  auto comm = std::make_unique<Comm>();
  comm->context = context;
  comm->rank = rank;
  comm->size = static_cast<int>(local.size());
  comm->job_ranks = local;
  comm->inter = true;
  comm->remote_size = static_cast<int>(remote.size());
  comm->remote_job_ranks = remote;
  comm->endpoints.reset(new std::atomic<engine::Endpoint*>[remote.size()]);
  for (std::size_t i = 0; i < remote.size(); ++i) comm->endpoints[i].store(nullptr, std::memory_order_relaxed);
  return comm;
}

// A new intercommunicator of the groups `local` (this process at `rank`) and
// `remote` in contexts `first` and `first + 1`; `group_parent` is an
// intracommunicator over (at least) the local group, whose connections its
// hidden `local` reuses, `parent` the communicator whose error handler it
// inherits.
int build_inter(const char* function, const Comm& parent, const Comm& group_parent,
                const std::vector<unsigned>& local, int rank, const std::vector<unsigned>& remote, uint16_t first,
                MPI_Comm* newcomm) {
  MPI_Comm local_handle = MPI_COMM_NULL;
  if (int err = install_comm(function, group_parent, local, rank, static_cast<uint16_t>(first + 1), &local_handle);
      err != MPI_SUCCESS) {
    return err;
  }
  hide(local_handle);
  MPI_Comm bridge_handle = MPI_COMM_NULL;
  if (int err = store_comm(function, parent,
                           inter_part(static_cast<uint16_t>(first | kCollectiveBit), rank, local, remote),
                           &bridge_handle);
      err != MPI_SUCCESS) {
    drop_comm(local_handle);
    return err;
  }
  hide(bridge_handle);
  auto comm = inter_part(first, rank, local, remote);
  comm->local = local_handle;
  comm->bridge = bridge_handle;
  if (int err = store_comm(function, parent, std::move(comm), newcomm); err != MPI_SUCCESS) {
    drop_comm(local_handle);
    drop_comm(bridge_handle);
    return err;
  }
  return MPI_SUCCESS;
}

int relation(const std::vector<unsigned>& a, const std::vector<unsigned>& b) {
  if (a == b) return MPI_IDENT;
  std::vector<unsigned> x = a, y = b;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y ? MPI_SIMILAR : MPI_UNEQUAL;
}

int check_inter(const char* function, MPI_Comm handle, Comm*& comm) {
  if (int err = find_comm_checked(function, handle, comm); err != MPI_SUCCESS) return err;
  if (!comm->inter) return raise(comm, MPI_ERR_COMM, function, "communicator %d is not an intercommunicator", handle);
  return MPI_SUCCESS;
}

// Members of `colors_keys` (color, key pairs by rank) of `color`, as job
// ranks ordered by key, then rank.
std::vector<unsigned> members_of(const std::vector<int>& colors_keys, const std::vector<unsigned>& job_ranks,
                                 int color) {
  std::vector<int> ranks;
  for (std::size_t r = 0; r < job_ranks.size(); ++r) {
    if (colors_keys[2 * r] == color) ranks.push_back(static_cast<int>(r));
  }
  std::stable_sort(ranks.begin(), ranks.end(), [&](int a, int b) {
    return colors_keys[2 * static_cast<std::size_t>(a) + 1] < colors_keys[2 * static_cast<std::size_t>(b) + 1];
  });
  std::vector<unsigned> members;
  for (int r : ranks) members.push_back(job_ranks[static_cast<std::size_t>(r)]);
  return members;
}

}  // namespace

int inter_dup(const char* function, Comm& comm, MPI_Comm* newcomm) {
  uint16_t first = 0;
  long long ignored = 0;
  if (int err = agree_over(function, comm, kContextsPerInter, 0, ignored, first); err != MPI_SUCCESS) return err;
  return build_inter(function, comm, *find_comm(comm.local), comm.job_ranks, comm.rank, comm.remote_job_ranks, first,
                     newcomm);
}

int inter_split(const char* function, Comm& comm, int color, int key, MPI_Comm* newcomm) {
  const auto local_n = static_cast<std::size_t>(comm.size);
  const auto remote_n = static_cast<std::size_t>(comm.remote_size);
  std::vector<int> local(2 * local_n), remote(2 * remote_n);
  const int mine[2] = {color, key};
  if (int err = PMPI_Allgather(mine, 2, MPI_INT, local.data(), 2, MPI_INT, comm.local); err != MPI_SUCCESS) {
    return raise(&comm, err, function, "gathering the colors failed");
  }
  if (int err = swap_with_remote(function, comm, local.data(), static_cast<int>(2 * local_n), remote.data(),
                                 static_cast<int>(2 * remote_n), MPI_INT);
      err != MPI_SUCCESS) {
    return err;
  }
  // One pair of contexts serves every color: their communicators share no
  // process.
  uint16_t first = 0;
  long long ignored = 0;
  if (int err = agree_over(function, comm, kContextsPerInter, 0, ignored, first); err != MPI_SUCCESS) return err;
  *newcomm = MPI_COMM_NULL;
  if (color == MPI_UNDEFINED) return MPI_SUCCESS;
  const std::vector<unsigned> local_members = members_of(local, comm.job_ranks, color);
  const std::vector<unsigned> remote_members = members_of(remote, comm.remote_job_ranks, color);
  if (remote_members.empty()) return MPI_SUCCESS;
  const unsigned me = comm.job_ranks[static_cast<std::size_t>(comm.rank)];
  const int rank = static_cast<int>(std::find(local_members.begin(), local_members.end(), me) - local_members.begin());
  return build_inter(function, comm, *find_comm(comm.local), local_members, rank, remote_members, first, newcomm);
}

int inter_compare(const Comm& a, const Comm& b) {
  if (!a.inter || !b.inter) return MPI_UNEQUAL;
  const int local = relation(a.job_ranks, b.job_ranks);
  const int remote = relation(a.remote_job_ranks, b.remote_job_ranks);
  if (local == MPI_IDENT && remote == MPI_IDENT) return MPI_CONGRUENT;
  if (local != MPI_UNEQUAL && remote != MPI_UNEQUAL) return MPI_SIMILAR;
  return MPI_UNEQUAL;
}

void inter_free(Comm& comm) {
  drop_comm(comm.local);
  drop_comm(comm.bridge);
  comm.local = MPI_COMM_NULL;
  comm.bridge = MPI_COMM_NULL;
}

}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm* newintercomm) {
  constexpr const char* kFunction = "MPI_Intercomm_create";
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, local_comm, comm); err != MPI_SUCCESS) return err;
  if (comm->inter) return raise(comm, MPI_ERR_COMM, kFunction, "local_comm %d is an intercommunicator", local_comm);
  if (newintercomm == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null newintercomm argument");
  if (local_leader < 0 || local_leader >= comm->size) {
    return raise(comm, MPI_ERR_RANK, kFunction, "invalid local_leader %d (communicator of size %d)", local_leader,
                 comm->size);
  }
  long long proposal = 0;
  if (int err = group_proposal(kFunction, *comm, proposal); err != MPI_SUCCESS) return err;
  // The leader learns the other group and its proposal, then tells its own
  // group: {error class, the larger proposal, the remote group's size}, and
  // the remote group's job ranks.
  long long header[3] = {MPI_SUCCESS, proposal, 0};
  std::vector<unsigned> remote;
  if (comm->rank == local_leader) {
    Comm* peer = nullptr;
    int err = find_comm_checked(kFunction, peer_comm, peer);
    if (err == MPI_SUCCESS && (remote_leader < 0 || remote_leader >= peer->peer_count())) {
      err = raise(comm, MPI_ERR_RANK, kFunction, "invalid remote_leader %d (peer communicator of size %d)",
                  remote_leader, peer->peer_count());
    }
    long long mine[2] = {proposal, comm->size};
    long long theirs[2] = {0, 0};
    if (err == MPI_SUCCESS) {
      err = PMPI_Sendrecv(mine, 2, MPI_LONG_LONG, remote_leader, tag, theirs, 2, MPI_LONG_LONG, remote_leader, tag,
                          peer_comm, MPI_STATUS_IGNORE);
    }
    if (err == MPI_SUCCESS) {
      remote.resize(static_cast<std::size_t>(theirs[1]));
      err = PMPI_Sendrecv(comm->job_ranks.data(), comm->size, MPI_UNSIGNED, remote_leader, tag, remote.data(),
                          static_cast<int>(theirs[1]), MPI_UNSIGNED, remote_leader, tag, peer_comm,
                          MPI_STATUS_IGNORE);
    }
    header[0] = err;
    header[1] = std::max(proposal, theirs[0]);
    header[2] = theirs[1];
  }
  if (Status s = coll_bcast(*comm, header, sizeof header, local_leader); s != Status::Ok) {
    return raise(comm, error_class_of(s), kFunction, "broadcasting the remote group failed: %s", to_string(s));
  }
  if (header[0] != MPI_SUCCESS) {
    return raise(comm, static_cast<int>(header[0]), kFunction, "the leaders could not exchange their groups");
  }
  remote.resize(static_cast<std::size_t>(header[2]));
  if (Status s = coll_bcast(*comm, remote.data(), remote.size() * sizeof(unsigned), local_leader); s != Status::Ok) {
    return raise(comm, error_class_of(s), kFunction, "broadcasting the remote group failed: %s", to_string(s));
  }
  for (unsigned job_rank : remote) {
    if (std::find(comm->job_ranks.begin(), comm->job_ranks.end(), job_rank) != comm->job_ranks.end()) {
      return raise(comm, MPI_ERR_ARG, kFunction, "the groups overlap (job rank %u is in both)", job_rank);
    }
  }
  uint16_t first = 0;
  if (int err = take_contexts(kFunction, *comm, header[1], kContextsPerInter, first); err != MPI_SUCCESS) return err;
  return build_inter(kFunction, *comm, *comm, comm->job_ranks, comm->rank, remote, first, newintercomm);
}

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  constexpr const char* kFunction = "MPI_Intercomm_merge";
  Comm* comm = nullptr;
  if (int err = check_inter(kFunction, intercomm, comm); err != MPI_SUCCESS) return err;
  if (newintracomm == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null newintracomm argument");
  const long long mine_high = high != 0 ? 1 : 0;
  long long remote_high = 0;
  uint16_t context = 0;
  if (int err = agree_over(kFunction, *comm, 1, mine_high, remote_high, context); err != MPI_SUCCESS) return err;
  // Groups that asked alike are ordered by their lowest job rank: the same
  // answer on both sides, without another exchange.
  const bool first = mine_high != remote_high
                         ? mine_high == 0
                         : *std::min_element(comm->job_ranks.begin(), comm->job_ranks.end()) <
                               *std::min_element(comm->remote_job_ranks.begin(), comm->remote_job_ranks.end());
  std::vector<unsigned> job_ranks = first ? comm->job_ranks : comm->remote_job_ranks;
  const std::vector<unsigned>& second = first ? comm->remote_job_ranks : comm->job_ranks;
  job_ranks.insert(job_ranks.end(), second.begin(), second.end());
  const int rank = first ? comm->rank : comm->remote_size + comm->rank;
  return install_comm(kFunction, *comm, std::move(job_ranks), rank, context, newintracomm);
}

int PMPI_Comm_remote_size(MPI_Comm handle, int* size) {
  constexpr const char* kFunction = "MPI_Comm_remote_size";
  Comm* comm = nullptr;
  if (int err = check_inter(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (size == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null size argument");
  *size = comm->remote_size;
  return MPI_SUCCESS;
}

int PMPI_Comm_remote_group(MPI_Comm handle, MPI_Group* group) {
  constexpr const char* kFunction = "MPI_Comm_remote_group";
  Comm* comm = nullptr;
  if (int err = check_inter(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (group == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null group argument");
  const MPI_Group made = make_group(comm->remote_job_ranks);
  if (made == MPI_GROUP_NULL) return raise(comm, MPI_ERR_INTERN, kFunction, "too many groups");
  *group = made;
  return MPI_SUCCESS;
}

#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create
#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge
#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size
#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group

}  // extern "C"
