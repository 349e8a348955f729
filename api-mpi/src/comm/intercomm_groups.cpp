// MPI_Intercomm_create_from_groups (MPI 4.0, the sessions model): an
// intercommunicator from two disjoint groups without a parent communicator.
// Built from the calls that have one: each group makes an intracommunicator
// of its own with MPI_Comm_create_from_group, the two leaders one of the
// pair of them, and MPI_Intercomm_create joins the groups over it. The
// string tag, extended differently for the two steps, keeps concurrent calls
// over other groups or with other tags apart, as in
// MPI_Comm_create_from_group.
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "comm/group.hpp"
#include "errors/user_errors.hpp"
#include "info/info.hpp"
#include "state.hpp"

using namespace tern;
using namespace tern::mpi;

namespace {

// Frees the helper communicators and group however the call ends.
struct Helpers {
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm leaders = MPI_COMM_NULL;
  MPI_Group pair = MPI_GROUP_NULL;
  ~Helpers() {
    if (local != MPI_COMM_NULL) (void)PMPI_Comm_free(&local);
    if (leaders != MPI_COMM_NULL) (void)PMPI_Comm_free(&leaders);
    if (pair != MPI_GROUP_NULL) (void)PMPI_Group_free(&pair);
  }
};

int position_of(const std::vector<unsigned>& members, unsigned job_rank) {
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i] == job_rank) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

extern "C" {

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                      int remote_leader, const char* stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  constexpr const char* kFunction = "MPI_Intercomm_create_from_groups";
  if (g_state == nullptr) return not_initialized(kFunction);
  const Comm* world = find_comm(MPI_COMM_WORLD);
  if (stringtag == nullptr) return raise(world, MPI_ERR_ARG, kFunction, "null stringtag argument");
  if (newintercomm == nullptr) return raise(world, MPI_ERR_ARG, kFunction, "null newintercomm argument");
  const std::vector<unsigned>* local = find_group(local_group);
  if (local == nullptr || local->empty()) {
    return raise(world, MPI_ERR_GROUP, kFunction, "invalid or empty local_group %d", local_group);
  }
  const std::vector<unsigned>* remote = find_group(remote_group);
  if (remote == nullptr || remote->empty()) {
    return raise(world, MPI_ERR_GROUP, kFunction, "invalid or empty remote_group %d", remote_group);
  }
  const int my_position = position_of(*local, my_job_rank());
  if (my_position < 0) return raise(world, MPI_ERR_GROUP, kFunction, "the caller is not in local_group");
  if (local_leader < 0 || local_leader >= static_cast<int>(local->size())) {
    return raise(world, MPI_ERR_RANK, kFunction, "invalid local_leader %d (group of size %zu)", local_leader,
                 local->size());
  }
  if (remote_leader < 0 || remote_leader >= static_cast<int>(remote->size())) {
    return raise(world, MPI_ERR_RANK, kFunction, "invalid remote_leader %d (group of size %zu)", remote_leader,
                 remote->size());
  }
  for (unsigned job_rank : *remote) {
    if (position_of(*local, job_rank) >= 0) {
      return raise(world, MPI_ERR_GROUP, kFunction, "the groups overlap (job rank %u is in both)", job_rank);
    }
  }
  InfoEntries hints;
  if (info != MPI_INFO_NULL && !info_entries(info, hints)) {
    return raise(world, MPI_ERR_INFO, kFunction, "invalid info object %d", info);
  }
  if (int err = check_comm_hints(world, kFunction, hints); err != MPI_SUCCESS) return err;
  if (errhandler == MPI_ERRHANDLER_NULL) errhandler = MPI_ERRORS_ARE_FATAL;
  if (!errhandler_accepts(errhandler, ErrhandlerKind::Comm)) {
    return raise(world, MPI_ERR_ERRHANDLER, kFunction, "invalid error handler %d", errhandler);
  }
  const unsigned local_leader_job = (*local)[static_cast<std::size_t>(local_leader)];
  const unsigned remote_leader_job = (*remote)[static_cast<std::size_t>(remote_leader)];

  Helpers helpers;
  const std::string tag(stringtag);
  int err = PMPI_Comm_create_from_group(local_group, (tag + "\x1f" "local group").c_str(), MPI_INFO_NULL,
                                        MPI_ERRORS_RETURN, &helpers.local);
  if (err != MPI_SUCCESS) return raise(world, err, kFunction, "making the local group's communicator failed");
  int remote_in_pair = 0;
  if (my_position == local_leader) {
    // The pair in job rank order, so that both leaders name the same group.
    const bool first = local_leader_job < remote_leader_job;
    helpers.pair = make_group(first ? std::vector<unsigned>{local_leader_job, remote_leader_job}
                                    : std::vector<unsigned>{remote_leader_job, local_leader_job});
    if (helpers.pair == MPI_GROUP_NULL) return raise(world, MPI_ERR_INTERN, kFunction, "too many groups");
    remote_in_pair = first ? 1 : 0;
    err = PMPI_Comm_create_from_group(helpers.pair, (tag + "\x1f" "leaders").c_str(), MPI_INFO_NULL,
                                      MPI_ERRORS_RETURN, &helpers.leaders);
    if (err != MPI_SUCCESS) return raise(world, err, kFunction, "connecting the two leaders failed");
  }
  err = PMPI_Intercomm_create(helpers.local, local_leader, helpers.leaders, remote_in_pair, 0, newintercomm);
  if (err != MPI_SUCCESS) return raise(world, err, kFunction, "joining the two groups failed");
  StateGuard guard(*g_state);
  Comm* created = find_comm(*newintercomm);
  created->errhandler = errhandler;
  created->info = std::move(hints);
  adopt_comm_hints(*created);
  return MPI_SUCCESS;
}

#pragma weak MPI_Intercomm_create_from_groups = PMPI_Intercomm_create_from_groups

}  // extern "C"
