// Groups: ordered sets of job ranks behind int handles. MPI_GROUP_NULL (0)
// and MPI_GROUP_EMPTY (1) are predefined; the others index a table of
// their own, so groups outlive the communicators they came from.
#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "comm/group.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

using GroupHandle = GenerationalHandle<16>;
constexpr int kMaxGroups = GroupHandle::kSlotMask + 1;

struct GroupSlot {
  std::unique_ptr<std::vector<unsigned>> members;  // null: free
  uint32_t generation = 0;                         // of the handle that names it now
};
std::mutex g_groups_mutex;
std::vector<GroupSlot> g_groups;  // by GroupHandle slot; 0 and 1 stay empty
const std::vector<unsigned> g_empty_group;

int check_group(const char* function, MPI_Group handle, const std::vector<unsigned>*& members) {
  members = find_group(handle);
  if (members == nullptr) return raise(nullptr, MPI_ERR_GROUP, function, "invalid group %d", handle);
  return MPI_SUCCESS;
}

int rank_in(const std::vector<unsigned>& members, unsigned job_rank) {
  auto it = std::find(members.begin(), members.end(), job_rank);
  return it == members.end() ? MPI_UNDEFINED : static_cast<int>(it - members.begin());
}

}  // namespace

const std::vector<unsigned>* find_group(MPI_Group handle) {
  if (handle == MPI_GROUP_EMPTY) return &g_empty_group;
  std::lock_guard lock(g_groups_mutex);
  const int slot = GroupHandle::slot(handle);
  if (slot <= MPI_GROUP_EMPTY || static_cast<std::size_t>(slot) >= g_groups.size()) return nullptr;
  const GroupSlot& entry = g_groups[static_cast<std::size_t>(slot)];
  return GroupHandle::names(handle, slot, entry.generation) ? entry.members.get() : nullptr;
}

MPI_Group make_group(std::vector<unsigned> members) {
  if (members.empty()) return MPI_GROUP_EMPTY;
  std::lock_guard lock(g_groups_mutex);
  if (g_groups.size() < 2) g_groups.resize(2);
  std::size_t slot = 2;
  while (slot < g_groups.size() && g_groups[slot].members) ++slot;
  if (slot >= static_cast<std::size_t>(kMaxGroups)) return MPI_GROUP_NULL;
  if (slot == g_groups.size()) g_groups.emplace_back();
  g_groups[slot].members = std::make_unique<std::vector<unsigned>>(std::move(members));
  return GroupHandle::make(static_cast<int>(slot), g_groups[slot].generation);
}

unsigned my_job_rank() noexcept {
  const Comm& world = *g_state->comms[MPI_COMM_WORLD];
  return world.job_ranks[static_cast<std::size_t>(world.rank)];
}

}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

namespace {

int new_group(const char* function, std::vector<unsigned> members, MPI_Group* out) {
  const MPI_Group handle = make_group(std::move(members));
  if (handle == MPI_GROUP_NULL) return raise(nullptr, MPI_ERR_INTERN, function, "too many groups");
  *out = handle;
  return MPI_SUCCESS;
}

// Ranks of `group` named by `ranks` (n of them, valid and distinct); `keep`
// tells which were named.
int pick_ranks(const char* function, const std::vector<unsigned>& members, int n, const int ranks[],
               std::vector<bool>& named, std::vector<unsigned>& picked) {
  const int size = static_cast<int>(members.size());
  if (n < 0 || n > size) return raise(nullptr, MPI_ERR_ARG, function, "invalid n %d (group of size %d)", n, size);
  if (n > 0 && ranks == nullptr) return raise(nullptr, MPI_ERR_ARG, function, "null ranks argument");
  named.assign(members.size(), false);
  for (int i = 0; i < n; ++i) {
    const int r = ranks[i];
    if (r < 0 || r >= size) {
      return raise(nullptr, MPI_ERR_RANK, function, "invalid rank %d at index %d (group of size %d)", r, i, size);
    }
    if (named[static_cast<std::size_t>(r)]) {
      return raise(nullptr, MPI_ERR_RANK, function, "rank %d named twice", r);
    }
    named[static_cast<std::size_t>(r)] = true;
    picked.push_back(members[static_cast<std::size_t>(r)]);
  }
  return MPI_SUCCESS;
}

// The ranks `n` (first, last, stride) triplets name, in order; each must
// name ranks of the group, at least one, none twice.
int expand_ranges(const char* function, int size, int n, const int ranges[][3], std::vector<int>& ranks) {
  if (n < 0) return raise(nullptr, MPI_ERR_ARG, function, "invalid n %d", n);
  if (n > 0 && ranges == nullptr) return raise(nullptr, MPI_ERR_ARG, function, "null ranges argument");
  std::vector<bool> named(static_cast<std::size_t>(size), false);
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (first < 0 || first >= size || last < 0 || last >= size) {
      return raise(nullptr, MPI_ERR_RANK, function, "range %d (%d, %d, %d) leaves the group of size %d", i, first,
                   last, stride, size);
    }
    if (stride == 0) return raise(nullptr, MPI_ERR_ARG, function, "range %d has stride 0", i);
    if ((stride > 0 && first > last) || (stride < 0 && first < last)) {
      return raise(nullptr, MPI_ERR_ARG, function, "range %d (%d, %d, %d): the stride leads away from last", i,
                   first, last, stride);
    }
    for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (named[static_cast<std::size_t>(r)]) {
        return raise(nullptr, MPI_ERR_RANK, function, "rank %lld named twice (range %d overlaps)", r, i);
      }
      named[static_cast<std::size_t>(r)] = true;
      ranks.push_back(static_cast<int>(r));
    }
  }
  return MPI_SUCCESS;
}

bool contains(const std::vector<unsigned>& members, unsigned job_rank) {
  return std::find(members.begin(), members.end(), job_rank) != members.end();
}

// The checks every two-group set operation starts with.
int check_pair(const char* function, MPI_Group handle1, MPI_Group handle2, MPI_Group* newgroup,
               const std::vector<unsigned>*& a, const std::vector<unsigned>*& b) {
  if (g_state == nullptr) return not_initialized(function);
  if (int err = check_group(function, handle1, a); err != MPI_SUCCESS) return err;
  if (int err = check_group(function, handle2, b); err != MPI_SUCCESS) return err;
  if (newgroup == nullptr) return raise(nullptr, MPI_ERR_ARG, function, "null newgroup argument");
  return MPI_SUCCESS;
}

// The range calls' arguments: `handle`'s members and the ranks the ranges name.
int check_ranges(const char* function, MPI_Group handle, int n, int ranges[][3], MPI_Group* newgroup,
                 const std::vector<unsigned>*& members, std::vector<int>& ranks) {
  if (g_state == nullptr) return not_initialized(function);
  if (int err = check_group(function, handle, members); err != MPI_SUCCESS) return err;
  if (newgroup == nullptr) return raise(nullptr, MPI_ERR_ARG, function, "null newgroup argument");
  return expand_ranges(function, static_cast<int>(members->size()), n, ranges, ranks);
}

}  // namespace

extern "C" {

int PMPI_Comm_group(MPI_Comm handle, MPI_Group* group) {
  constexpr const char* kFunction = "MPI_Comm_group";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = find_comm(handle);
  if (comm == nullptr) return raise(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", handle);
  if (group == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null group argument");
  return new_group(kFunction, comm->job_ranks, group);
}

int PMPI_Group_size(MPI_Group handle, int* size) {
  constexpr const char* kFunction = "MPI_Group_size";
  if (g_state == nullptr) return not_initialized(kFunction);
  const std::vector<unsigned>* members = nullptr;
  if (int err = check_group(kFunction, handle, members); err != MPI_SUCCESS) return err;
  if (size == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null size argument");
  *size = static_cast<int>(members->size());
  return MPI_SUCCESS;
}

int PMPI_Group_rank(MPI_Group handle, int* rank) {
  constexpr const char* kFunction = "MPI_Group_rank";
  if (g_state == nullptr) return not_initialized(kFunction);
  const std::vector<unsigned>* members = nullptr;
  if (int err = check_group(kFunction, handle, members); err != MPI_SUCCESS) return err;
  if (rank == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null rank argument");
  *rank = rank_in(*members, my_job_rank());
  return MPI_SUCCESS;
}

int PMPI_Group_incl(MPI_Group handle, int n, const int ranks[], MPI_Group* newgroup) {
  constexpr const char* kFunction = "MPI_Group_incl";
  if (g_state == nullptr) return not_initialized(kFunction);
  const std::vector<unsigned>* members = nullptr;
  if (int err = check_group(kFunction, handle, members); err != MPI_SUCCESS) return err;
  if (newgroup == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null newgroup argument");
  std::vector<bool> named;
  std::vector<unsigned> picked;
  if (int err = pick_ranks(kFunction, *members, n, ranks, named, picked); err != MPI_SUCCESS) return err;
  return new_group(kFunction, std::move(picked), newgroup);
}

int PMPI_Group_excl(MPI_Group handle, int n, const int ranks[], MPI_Group* newgroup) {
  constexpr const char* kFunction = "MPI_Group_excl";
  if (g_state == nullptr) return not_initialized(kFunction);
  const std::vector<unsigned>* members = nullptr;
  if (int err = check_group(kFunction, handle, members); err != MPI_SUCCESS) return err;
  if (newgroup == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null newgroup argument");
  std::vector<bool> named;
  std::vector<unsigned> picked;
  if (int err = pick_ranks(kFunction, *members, n, ranks, named, picked); err != MPI_SUCCESS) return err;
  std::vector<unsigned> kept;
  for (std::size_t i = 0; i < members->size(); ++i) {
    if (!named[i]) kept.push_back((*members)[i]);
  }
  return new_group(kFunction, std::move(kept), newgroup);
}

int PMPI_Group_free(MPI_Group* handle) {
  constexpr const char* kFunction = "MPI_Group_free";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (handle == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null group argument");
  const std::vector<unsigned>* members = nullptr;
  if (int err = check_group(kFunction, *handle, members); err != MPI_SUCCESS) return err;
  if (*handle != MPI_GROUP_EMPTY) {
    std::lock_guard lock(g_groups_mutex);
    GroupSlot& entry = g_groups[static_cast<std::size_t>(GroupHandle::slot(*handle))];
    entry.members.reset();
    entry.generation = GroupHandle::next(entry.generation);
  }
  *handle = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

int PMPI_Group_translate_ranks(MPI_Group handle1, int n, const int ranks1[], MPI_Group handle2, int ranks2[]) {
  constexpr const char* kFunction = "MPI_Group_translate_ranks";
  if (g_state == nullptr) return not_initialized(kFunction);
  const std::vector<unsigned>* a = nullptr;
  const std::vector<unsigned>* b = nullptr;
  if (int err = check_group(kFunction, handle1, a); err != MPI_SUCCESS) return err;
  if (int err = check_group(kFunction, handle2, b); err != MPI_SUCCESS) return err;
  if (n < 0) return raise(nullptr, MPI_ERR_ARG, kFunction, "invalid n %d", n);
  if (n > 0 && (ranks1 == nullptr || ranks2 == nullptr)) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null ranks argument");
  }
  const int size = static_cast<int>(a->size());
  for (int i = 0; i < n; ++i) {
    const int r = ranks1[i];
    if (r == MPI_PROC_NULL) continue;
    if (r < 0 || r >= size) {
      return raise(nullptr, MPI_ERR_RANK, kFunction, "invalid rank %d at index %d (group of size %d)", r, i, size);
    }
  }
  for (int i = 0; i < n; ++i) {
    const int r = ranks1[i];
    ranks2[i] = r == MPI_PROC_NULL ? MPI_PROC_NULL : rank_in(*b, (*a)[static_cast<std::size_t>(r)]);
  }
  return MPI_SUCCESS;
}

int PMPI_Group_compare(MPI_Group handle1, MPI_Group handle2, int* result) {
  constexpr const char* kFunction = "MPI_Group_compare";
  if (g_state == nullptr) return not_initialized(kFunction);
  const std::vector<unsigned>* a = nullptr;
  const std::vector<unsigned>* b = nullptr;
  if (int err = check_group(kFunction, handle1, a); err != MPI_SUCCESS) return err;
  if (int err = check_group(kFunction, handle2, b); err != MPI_SUCCESS) return err;
  if (result == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null result argument");
  if (*a == *b) {
    *result = MPI_IDENT;
  } else {
    std::vector<unsigned> x = *a, y = *b;
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    *result = x == y ? MPI_SIMILAR : MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}

// The set operations keep the standard's order: group1's members first (in
// group1's order), then, for the union, group2's others in group2's order.
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  constexpr const char* kFunction = "MPI_Group_union";
  const std::vector<unsigned>* a = nullptr;
  const std::vector<unsigned>* b = nullptr;
  if (int err = check_pair(kFunction, group1, group2, newgroup, a, b); err != MPI_SUCCESS) return err;
  std::vector<unsigned> members = *a;
  for (unsigned job_rank : *b) {
    if (!contains(*a, job_rank)) members.push_back(job_rank);
  }
  return new_group(kFunction, std::move(members), newgroup);
}

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  constexpr const char* kFunction = "MPI_Group_intersection";
  const std::vector<unsigned>* a = nullptr;
  const std::vector<unsigned>* b = nullptr;
  if (int err = check_pair(kFunction, group1, group2, newgroup, a, b); err != MPI_SUCCESS) return err;
  std::vector<unsigned> members;
  for (unsigned job_rank : *a) {
    if (contains(*b, job_rank)) members.push_back(job_rank);
  }
  return new_group(kFunction, std::move(members), newgroup);
}

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  constexpr const char* kFunction = "MPI_Group_difference";
  const std::vector<unsigned>* a = nullptr;
  const std::vector<unsigned>* b = nullptr;
  if (int err = check_pair(kFunction, group1, group2, newgroup, a, b); err != MPI_SUCCESS) return err;
  std::vector<unsigned> members;
  for (unsigned job_rank : *a) {
    if (!contains(*b, job_rank)) members.push_back(job_rank);
  }
  return new_group(kFunction, std::move(members), newgroup);
}

int PMPI_Group_range_incl(MPI_Group handle, int n, int ranges[][3], MPI_Group* newgroup) {
  constexpr const char* kFunction = "MPI_Group_range_incl";
  const std::vector<unsigned>* members = nullptr;
  std::vector<int> ranks;
  if (int err = check_ranges(kFunction, handle, n, ranges, newgroup, members, ranks); err != MPI_SUCCESS) return err;
  std::vector<unsigned> picked;
  picked.reserve(ranks.size());
  for (int r : ranks) picked.push_back((*members)[static_cast<std::size_t>(r)]);
  return new_group(kFunction, std::move(picked), newgroup);
}

int PMPI_Group_range_excl(MPI_Group handle, int n, int ranges[][3], MPI_Group* newgroup) {
  constexpr const char* kFunction = "MPI_Group_range_excl";
  const std::vector<unsigned>* members = nullptr;
  std::vector<int> ranks;
  if (int err = check_ranges(kFunction, handle, n, ranges, newgroup, members, ranks); err != MPI_SUCCESS) return err;
  std::vector<bool> excluded(members->size(), false);
  for (int r : ranks) excluded[static_cast<std::size_t>(r)] = true;
  std::vector<unsigned> kept;
  for (std::size_t i = 0; i < members->size(); ++i) {
    if (!excluded[i]) kept.push_back((*members)[i]);
  }
  return new_group(kFunction, std::move(kept), newgroup);
}

MPI_Fint PMPI_Group_c2f(MPI_Group group) { return group; }
MPI_Group PMPI_Group_f2c(MPI_Fint group) { return group; }

#pragma weak MPI_Comm_group = PMPI_Comm_group
#pragma weak MPI_Group_size = PMPI_Group_size
#pragma weak MPI_Group_rank = PMPI_Group_rank
#pragma weak MPI_Group_incl = PMPI_Group_incl
#pragma weak MPI_Group_excl = PMPI_Group_excl
#pragma weak MPI_Group_free = PMPI_Group_free
#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
#pragma weak MPI_Group_compare = PMPI_Group_compare
#pragma weak MPI_Group_union = PMPI_Group_union
#pragma weak MPI_Group_intersection = PMPI_Group_intersection
#pragma weak MPI_Group_difference = PMPI_Group_difference
#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
#pragma weak MPI_Group_c2f = PMPI_Group_c2f
#pragma weak MPI_Group_f2c = PMPI_Group_f2c

}  // extern "C"
