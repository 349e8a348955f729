// MPI_Comm_idup(_with_info), MPI_Comm_create_group and (MPI 4 sessions)
// MPI_Comm_create_from_group: the communicator constructors whose context
// agreement is not comm.cpp's blocking allreduce over the whole parent.
//
// MPI_Comm_idup installs the new communicator at once with the parent's
// ranks and a context this process proposes, and starts a non-blocking
// allreduce (MAX) of the proposals over the parent whose last step writes
// the result into the new communicator: it is usable when the request
// completes, and the program may use its handle only then. Each proposal is
// this process's next free context, and the next free one moves past it at
// once, so further idups of the same parent propose more on every member
// and end with larger results. Agreements of two parents pending together
// could end on one value (their members' proposals differ), so an
// agreement on another communicator (an idup of another parent, a blocking
// constructor, MPI_Comm_create_group) first waits for the pending ones; a
// program that starts idups of two parents in opposite orders on two ranks
// would wait there forever (the standard allows it; MPICH needs extra
// rounds for it).
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
#include "comm/group.hpp"
#include "errors/user_errors.hpp"
#include "info/info.hpp"

namespace tern::mpi {
namespace {

struct PendingAgreement {
  MPI_Comm parent;
  std::shared_ptr<Schedule> schedule;
  const uint16_t* result;  // the agreed context once done (the schedule's scratch)
};

std::vector<PendingAgreement>& pending() {
  static std::vector<PendingAgreement> list;
  return list;
}

// Proposes this process's next free context and moves past it.
int reserve_context(const char* function, const Comm& comm, uint16_t& context) {
  StateGuard guard(*g_state);
  if (g_state->next_context >= kFirstReservedContext) {
    return raise(&comm, MPI_ERR_INTERN, function, "out of communicator contexts (%d)", int{kFirstReservedContext});
  }
  context = g_state->next_context++;
  return MPI_SUCCESS;
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
  settle_agreements(MPI_COMM_NULL);
  uint16_t context = 0;
  {
    StateGuard guard(*g_state);
    context = g_state->next_context;
  }
  if (Status s = agree_among(job_ranks, tag, context); s != Status::Ok) {
    return raise(&parent, error_class_of(s), function, "agreeing on a context failed: %s", to_string(s));
  }
  if (context >= kFirstReservedContext) {
    return raise(&parent, MPI_ERR_INTERN, function, "out of communicator contexts (%d)", int{kFirstReservedContext});
  }
  {
    StateGuard guard(*g_state);
    g_state->next_context = std::max<uint16_t>(g_state->next_context, static_cast<uint16_t>(context + 1));
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
  settle_agreements(handle);
  uint16_t proposal = 0;
  if (int err = reserve_context(function, *comm, proposal); err != MPI_SUCCESS) return err;
  if (int err = install_comm(function, *comm, comm->job_ranks, comm->rank, proposal, newcomm); err != MPI_SUCCESS) {
    return err;
  }
  // Attributes are copied now, as MPI_Comm_dup copies them: the callbacks
  // see only the parent, which the program may change once this returns.
  if (int err = fill_duplicate(function, handle, *comm, info, newcomm); err != MPI_SUCCESS) return err;
  Comm* copy = nullptr;
  {
    StateGuard guard(*g_state);
    copy = find_comm(*newcomm);
  }
  auto schedule = std::make_shared<Schedule>(*comm, false);
  auto* value = reinterpret_cast<uint16_t*>(schedule->scratch(sizeof(uint16_t)));
  *value = proposal;
  schedule->set_reduction(MPI_MAX, MPI_UNSIGNED_SHORT);
  schedule_allreduce(*schedule, *comm, value, 1, sizeof(uint16_t), true);
  schedule->next_round();
  schedule->copy(value, &copy->context, sizeof(uint16_t));
  std::shared_ptr<Schedule> kept = schedule;
  if (int err = issue_schedule(function, *comm, handle, std::move(schedule), false, request); err != MPI_SUCCESS) {
    drop_comm(*newcomm);
    *newcomm = MPI_COMM_NULL;
    return err;
  }
  StateGuard guard(*g_state);
  pending().push_back(PendingAgreement{handle, std::move(kept), value});
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

void settle_agreements(MPI_Comm keep) {
  for (;;) {
    std::shared_ptr<Schedule> wait_for;
    {
      StateGuard guard(*g_state);
      auto& list = pending();
      // Ended ones first: their results bound this process's next context.
      std::erase_if(list, [](const PendingAgreement& p) {
        if (!p.schedule->done()) return false;
        if (p.schedule->error_class() == MPI_SUCCESS) {
          g_state->next_context = std::max<uint16_t>(g_state->next_context, static_cast<uint16_t>(*p.result + 1));
        }
        return true;
      });
      for (const PendingAgreement& p : list) {
        if (p.parent != keep || keep == MPI_COMM_NULL) {
          wait_for = p.schedule;
          break;
        }
      }
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
