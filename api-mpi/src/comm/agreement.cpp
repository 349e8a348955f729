// MPI_Comm_idup(_with_info), MPI_Comm_create_group and (MPI 4 sessions)
// MPI_Comm_create_from_group: the communicator constructors whose context
// agreement is not comm.cpp's blocking allreduce over the whole parent.
// Every agreement follows comm/contexts.cpp's rule: attempts until all
// members accept, only the first pending agreement of a process active.
//
// MPI_Comm_idup installs the new communicator at once with the parent's
// ranks and runs the attempts as a non-blocking schedule over the parent
// (decision steps send it back to the first attempt's round), whose last
// step writes the result into the new communicator: it is usable when the
// request completes, and the program may use its handle only then.
//
// MPI_Comm_create_group and MPI_Comm_create_from_group agree among the
// group's members alone: the others of the parent may be elsewhere. Their
// messages go by job rank in a context of their own with the program's tag,
// so calls of one process over different groups (or tags) never take each
// other's messages.
#include <algorithm>
#include <memory>
#include <vector>

#include "coll/schedule.hpp"
#include "comm/agreement.hpp"
#include "comm/comm.hpp"
#include "comm/contexts.hpp"
#include "comm/group.hpp"
#include "errors/user_errors.hpp"
#include "info/info.hpp"

namespace tern::mpi {
namespace {

std::vector<std::shared_ptr<Schedule>>& pending() {
  static std::vector<std::shared_ptr<Schedule>> list;
  return list;
}

// An idup's attempts, in its schedule's scratch.
struct IdupAttempts {
  uint64_t key;
  std::size_t first_round;
  uint16_t proposal;  // this process's in the current attempt
  uint16_t agreed;    // in: the proposal; out: the largest of the members'
  uint16_t refused;   // in: this process's; out: whether any member refused
};

long accept_agreed(void* argument) {
  auto* attempts = static_cast<IdupAttempts*>(argument);
  if (attempts->agreed >= kFirstReservedContext) {  // every member sees the same value
    leave_agreement(attempts->key);
    return Schedule::kFail;
  }
  attempts->refused = accept_context(attempts->key, attempts->proposal, attempts->agreed) ? 0 : 1;
  return Schedule::kGoOn;
}

long retry_if_refused(void* argument) {
  auto* attempts = static_cast<IdupAttempts*>(argument);
  if (attempts->refused == 0) {
    leave_agreement(attempts->key);
    return Schedule::kGoOn;
  }
  if (!propose_context(attempts->key, attempts->proposal)) {
    leave_agreement(attempts->key);
    return Schedule::kFail;
  }
  attempts->agreed = attempts->proposal;
  return static_cast<long>(attempts->first_round);
}


// The job's ranks, by job rank, in the reserved context.
Comm& agreement_comm() {
  static std::unique_ptr<Comm> comm;
  StateGuard guard(*g_state);
  if (!comm) {
    const Comm& world = *find_comm(MPI_COMM_WORLD);
    comm = std::make_unique<Comm>();
    comm->context = kGroupAgreementContext;
    comm->rank = static_cast<int>(my_job_rank());
    comm->size = static_cast<int>(g_state->job->size());
    for (int r = 0; r < comm->size; ++r) comm->job_ranks.push_back(static_cast<unsigned>(r));
    comm->endpoints.reset(new std::atomic<engine::Endpoint*>[static_cast<std::size_t>(comm->size)]);
    // MPI_COMM_WORLD's ranks are the job's (a launcher never reorders them).
    for (int r = 0; r < comm->size; ++r) {
      comm->endpoints[r].store(world.endpoints[r].load(std::memory_order_acquire), std::memory_order_relaxed);
    }
  }
  return *comm;
}

// The largest of the members' proposals (`members`: job ranks, the first
// collects), `proposal` in and the result out.
Status agree_among(const std::vector<unsigned>& members, unsigned tag, uint16_t& proposal) {
  Comm& comm = agreement_comm();
  const int leader = static_cast<int>(members.front());
  if (comm.rank != leader) {
    if (Status s = coll_send(comm, &proposal, sizeof(proposal), leader, tag); s != Status::Ok) return s;
    return coll_recv(comm, &proposal, sizeof(proposal), leader, tag);
  }
  for (std::size_t i = 1; i < members.size(); ++i) {
    uint16_t other = 0;
    if (Status s = coll_recv(comm, &other, sizeof(other), static_cast<int>(members[i]), tag); s != Status::Ok) {
      return s;
    }
    proposal = std::max(proposal, other);
  }
  for (std::size_t i = 1; i < members.size(); ++i) {
    if (Status s = coll_send(comm, &proposal, sizeof(proposal), static_cast<int>(members[i]), tag);
        s != Status::Ok) {
      return s;
    }
  }
  return Status::Ok;
}

// A communicator of `members` (job ranks, in their order) agreed among
// them alone, with `parent`'s connections and error handler; MPI_COMM_NULL
// on a process outside.
int create_among(const char* function, const Comm& parent, const std::vector<unsigned>& members, unsigned tag,
                 MPI_Comm* newcomm) {
  std::vector<unsigned> job_ranks = members;
  const auto me = std::find(job_ranks.begin(), job_ranks.end(), my_job_rank());
  if (me == job_ranks.end()) {
    // Only members call; a process outside the group learns nothing new.
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  const int my_rank = static_cast<int>(me - job_ranks.begin());
  uint16_t context = 0;
  const uint64_t key = agreement_key(true, kGroupAgreementContext, tag);
  enter_agreement(key);
  Status failed = Status::Ok;
  bool accepted = false;
  while (!accepted && failed == Status::Ok) {
    uint16_t proposal = 0;
    if (!propose_context(key, proposal)) break;
    context = proposal;
    failed = agree_among(job_ranks, tag, context);
    if (failed != Status::Ok || context >= kFirstReservedContext) break;
    uint16_t refused = accept_context(key, proposal, context) ? 0 : 1;
    failed = agree_among(job_ranks, tag, refused);
    accepted = refused == 0;
  }
  leave_agreement(key);
  if (failed != Status::Ok) {
    return raise(&parent, error_class_of(failed), function, "agreeing on a context failed: %s", to_string(failed));
  }
  if (!accepted) {
    return raise(&parent, MPI_ERR_INTERN, function, "out of communicator contexts (%d)", int{kFirstReservedContext});
  }
  return install_comm(function, parent, std::move(job_ranks), my_rank, context, newcomm);
}

int idup(const char* function, MPI_Comm handle, const InfoEntries* info, MPI_Comm* newcomm, MPI_Request* request) {
  Comm* comm = nullptr;
  if (int err = find_comm_checked(function, handle, comm); err != MPI_SUCCESS) return err;
  if (newcomm == nullptr || request == nullptr) {
    return raise(comm, MPI_ERR_ARG, function, "null newcomm or request argument");
  }
  if (comm->inter) return unsupported(comm, function, "this call on an intercommunicator");
  if (info != nullptr) {
    if (int err = check_comm_hints(comm, function, *info); err != MPI_SUCCESS) return err;
  }
  const uint64_t key = agreement_key(false, comm->context, comm->collective_sequence);
  enter_agreement(key);
  uint16_t proposal = 0;
  if (!propose_context(key, proposal)) {
    leave_agreement(key);
    return raise(comm, MPI_ERR_INTERN, function, "out of communicator contexts (%d)", int{kFirstReservedContext});
  }
  // The context stays this placeholder until the agreement ends: the
  // program may not use the handle before.
  if (int err = install_comm(function, *comm, comm->job_ranks, comm->rank, kFirstReservedContext, newcomm);
      err != MPI_SUCCESS) {
    leave_agreement(key);
    return err;
  }
  // Attributes are copied now, as MPI_Comm_dup copies them: the callbacks
  // see only the parent, which the program may change once this returns.
  if (int err = fill_duplicate(function, handle, *comm, info, newcomm); err != MPI_SUCCESS) {
    leave_agreement(key);
    return err;
  }
  Comm* copy = nullptr;
  {
    StateGuard guard(*g_state);
    copy = find_comm(*newcomm);
  }
  auto schedule = std::make_shared<Schedule>(*comm, false);
  auto* attempts = reinterpret_cast<IdupAttempts*>(schedule->scratch(sizeof(IdupAttempts)));
  *attempts = IdupAttempts{key, 0, proposal, proposal, 0};
  schedule->set_reduction(MPI_MAX, MPI_UNSIGNED_SHORT);
  attempts->first_round = schedule->open_round();
  schedule_allreduce(*schedule, *comm, &attempts->agreed, 1, sizeof(uint16_t), true);
  schedule->decide(accept_agreed, attempts);
  schedule_allreduce(*schedule, *comm, &attempts->refused, 1, sizeof(uint16_t), true);
  schedule->decide(retry_if_refused, attempts);
  schedule->copy(&attempts->agreed, &copy->context, sizeof(uint16_t));
  std::shared_ptr<Schedule> kept = schedule;
  if (int err = issue_schedule(function, *comm, handle, std::move(schedule), false, request); err != MPI_SUCCESS) {
    leave_agreement(key);
    drop_comm(*newcomm);
    *newcomm = MPI_COMM_NULL;
    return err;
  }
  StateGuard guard(*g_state);
  pending().push_back(std::move(kept));
  return MPI_SUCCESS;
}

}  // namespace

int fill_duplicate(const char* function, MPI_Comm parent_handle, const Comm& parent, const InfoEntries* info,
                   MPI_Comm* newcomm) {
  Comm* copy = nullptr;
  {
    StateGuard guard(*g_state);
    copy = find_comm(*newcomm);
    copy->cart = parent.cart;
    copy->graph = parent.graph;
    copy->info = info != nullptr ? *info : parent.info;
    adopt_comm_hints(*copy);
  }
  // Outside the state's lock: callbacks may communicate.
  if (int err = attr_copy(AttrObject::Comm, parent_handle, parent.attributes, copy->attributes); err != MPI_SUCCESS) {
    (void)attr_delete_all(AttrObject::Comm, *newcomm, copy->attributes);
    drop_comm(*newcomm);
    *newcomm = MPI_COMM_NULL;
    return raise(&parent, err, function, "an attribute copy callback returned error %d", err);
  }
  return MPI_SUCCESS;
}

void settle_agreements() {
  for (;;) {
    std::shared_ptr<Schedule> wait_for;
    {
      StateGuard guard(*g_state);
      auto& list = pending();
      std::erase_if(list, [](const std::shared_ptr<Schedule>& schedule) { return schedule->done(); });
      if (!list.empty()) wait_for = list.front();
    }
    if (!wait_for) return;
    progress_until([&] { return wait_for->done(); });
  }
}

}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  return idup("MPI_Comm_idup", comm, nullptr, newcomm, request);
}

// A duplicate with `info`'s hints instead of the parent's, as
// MPI_Comm_dup_with_info (MPI_INFO_NULL: none).
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
  constexpr const char* kFunction = "MPI_Comm_idup_with_info";
  Comm* parent = nullptr;
  if (int err = find_comm_checked(kFunction, comm, parent); err != MPI_SUCCESS) return err;
  InfoEntries entries;
  if (info != MPI_INFO_NULL && !info_entries(info, entries)) {
    return raise(parent, MPI_ERR_INFO, kFunction, "invalid info object %d", info);
  }
  return idup(kFunction, comm, &entries, newcomm, request);
}

int PMPI_Comm_create_group(MPI_Comm handle, MPI_Group group, int tag, MPI_Comm* newcomm) {
  constexpr const char* kFunction = "MPI_Comm_create_group";
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (newcomm == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null newcomm argument");
  if (comm->inter) return raise(comm, MPI_ERR_COMM, kFunction, "an intercommunicator (%d)", handle);
  if (tag < 0 || tag > kTagUb) return raise(comm, MPI_ERR_TAG, kFunction, "invalid tag %d", tag);
  const std::vector<unsigned>* members = find_group(group);
  if (members == nullptr) return raise(comm, MPI_ERR_GROUP, kFunction, "invalid group %d", group);
  for (unsigned job_rank : *members) {
    if (std::find(comm->job_ranks.begin(), comm->job_ranks.end(), job_rank) == comm->job_ranks.end()) {
      return raise(comm, MPI_ERR_GROUP, kFunction, "group member (job rank %u) is not in communicator %d", job_rank,
                   handle);
    }
  }
  return create_among(kFunction, *comm, *members, static_cast<unsigned>(tag), newcomm);
}

// The string tag becomes a message tag by a hash (FNV-1a) with
// kStringTagBit set: two tags that meet in it matter only to calls over
// overlapping groups made in opposite orders, which the tag exists to tell
// apart.
int PMPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info, MPI_Errhandler errhandler,
                                MPI_Comm* newcomm) {
  constexpr const char* kFunction = "MPI_Comm_create_from_group";
  if (g_state == nullptr) return not_initialized(kFunction);
  const Comm* world = find_comm(MPI_COMM_WORLD);
  if (stringtag == nullptr || newcomm == nullptr) return raise(world, MPI_ERR_ARG, kFunction, "null argument");
  const std::vector<unsigned>* members = find_group(group);
  if (members == nullptr) return raise(world, MPI_ERR_GROUP, kFunction, "invalid group %d", group);
  InfoEntries hints;
  if (info != MPI_INFO_NULL && !info_entries(info, hints)) {
    return raise(world, MPI_ERR_INFO, kFunction, "invalid info object %d", info);
  }
  if (int err = check_comm_hints(world, kFunction, hints); err != MPI_SUCCESS) return err;
  if (errhandler == MPI_ERRHANDLER_NULL) errhandler = MPI_ERRORS_ARE_FATAL;
  if (!errhandler_accepts(errhandler, ErrhandlerKind::Comm)) {
    return raise(world, MPI_ERR_ERRHANDLER, kFunction, "invalid error handler %d", errhandler);
  }
  uint32_t hash = 2166136261u;
  for (const char* c = stringtag; *c != '\0'; ++c) hash = (hash ^ static_cast<unsigned char>(*c)) * 16777619u;
  const unsigned tag = (hash & static_cast<unsigned>(kTagUb)) | kStringTagBit;
  if (int err = create_among(kFunction, *world, *members, tag, newcomm);
      err != MPI_SUCCESS || *newcomm == MPI_COMM_NULL) {
    return err;
  }
  StateGuard guard(*g_state);
  Comm* created = find_comm(*newcomm);
  created->errhandler = errhandler;
  created->info = std::move(hints);
  adopt_comm_hints(*created);
  return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_from_group = PMPI_Comm_create_from_group
#pragma weak MPI_Comm_idup = PMPI_Comm_idup
#pragma weak MPI_Comm_idup_with_info = PMPI_Comm_idup_with_info
#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group

}  // extern "C"
