// Window construction and properties: MPI_Win_create, MPI_Win_allocate,
// MPI_Win_allocate_shared (MPI_Win_shared_query, contiguous parts, the
// MPI_PROC_NULL query), MPI_Win_create_dynamic with attached regions, the
// window attributes, group, name and info, size 0 windows, displacement
// units other than 1, and MPI_Win_free setting MPI_WIN_NULL.
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

int right() { return (rank + 1) % size; }
int left() { return (rank - 1 + size) % size; }

struct Attributes {
  void* base = nullptr;
  MPI_Aint size = -1;
  int disp_unit = -1;
  int flavor = -1;
  int model = -1;
  bool all_set = false;
};

// The attribute values are pointers (MPI_WIN_BASE: the base itself).
Attributes attributes(MPI_Win win) {
  Attributes result;
  int flags[5] = {0, 0, 0, 0, 0};
  MPI_Aint* size_value = nullptr;
  int* disp_value = nullptr;
  int* flavor_value = nullptr;
  int* model_value = nullptr;
  CHECK(MPI_Win_get_attr(win, MPI_WIN_BASE, &result.base, &flags[0]) == MPI_SUCCESS);
  CHECK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &size_value, &flags[1]) == MPI_SUCCESS);
  CHECK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &disp_value, &flags[2]) == MPI_SUCCESS);
  CHECK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor_value, &flags[3]) == MPI_SUCCESS);
  CHECK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model_value, &flags[4]) == MPI_SUCCESS);
  result.all_set = flags[0] && flags[1] && flags[2] && flags[3] && flags[4];
  if (!result.all_set) return result;
  result.size = *size_value;
  result.disp_unit = *disp_value;
  result.flavor = *flavor_value;
  result.model = *model_value;
  return result;
}

void check_group_is(MPI_Win win, MPI_Comm comm) {
  MPI_Group win_group = MPI_GROUP_NULL, comm_group = MPI_GROUP_NULL;
  CHECK(MPI_Win_get_group(win, &win_group) == MPI_SUCCESS);
  MPI_Comm_group(comm, &comm_group);
  int result = MPI_UNEQUAL;
  CHECK(MPI_Group_compare(win_group, comm_group, &result) == MPI_SUCCESS && result == MPI_IDENT);
  MPI_Group_free(&win_group);
  MPI_Group_free(&comm_group);
}

void free_window(MPI_Win& win) {
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
  CHECK(win == MPI_WIN_NULL);
}

// MPI_Win_create over a user array: attributes, then a put to the right and
// a get from the left in one fence epoch.
void test_create() {
  constexpr int kCount = 10;
  std::vector<int> memory(kCount);
  for (int i = 0; i < kCount; ++i) memory[static_cast<std::size_t>(i)] = rank * 100 + i;
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_create(memory.data(), kCount * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
        MPI_SUCCESS);
  CHECK(win != MPI_WIN_NULL);
  const Attributes attr = attributes(win);
  CHECK(attr.all_set);
  CHECK(attr.base == memory.data());
  CHECK(attr.size == static_cast<MPI_Aint>(kCount * sizeof(int)));
  CHECK(attr.disp_unit == static_cast<int>(sizeof(int)));
  CHECK(attr.flavor == MPI_WIN_FLAVOR_CREATE);
  CHECK(attr.model == MPI_WIN_UNIFIED || attr.model == MPI_WIN_SEPARATE);
  check_group_is(win, MPI_COMM_WORLD);

  const int value = 7000 + rank;
  int fetched = -1;
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  // Element 0 changes at the right neighbour; element 5 is only read.
  CHECK(MPI_Put(&value, 1, MPI_INT, right(), 0, 1, MPI_INT, win) == MPI_SUCCESS);
  CHECK(MPI_Get(&fetched, 1, MPI_INT, left(), 5, 1, MPI_INT, win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  CHECK(memory[0] == 7000 + left());
  CHECK(fetched == left() * 100 + 5);
  for (int i = 1; i < kCount; ++i) CHECK(memory[static_cast<std::size_t>(i)] == rank * 100 + i);
  free_window(win);
}

// Displacement units other than 1: doubles addressed by element, and a
// 12-byte record unit, and byte displacements into an int array.
void test_disp_units() {
  struct Record {
    int a, b, c;
  };
  static_assert(sizeof(Record) == 12);
  std::vector<Record> records(4, Record{-1, -1, -1});
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_create(records.data(), 4 * sizeof(Record), sizeof(Record), MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
        MPI_SUCCESS);
  CHECK(attributes(win).disp_unit == 12);
  const int triple[3] = {rank, rank + 1, rank + 2};
  CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
  // Record 2 of the right neighbour, as three ints.
  CHECK(MPI_Put(triple, 3, MPI_INT, right(), 2, 3, MPI_INT, win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS);
  CHECK(records[2].a == left() && records[2].b == left() + 1 && records[2].c == left() + 2);
  CHECK(records[0].a == -1 && records[1].c == -1 && records[3].a == -1);
  free_window(win);

  std::vector<double> doubles(6, 0.5);
  CHECK(MPI_Win_create(doubles.data(), 6 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
        MPI_SUCCESS);
  const double value = 2.25 + rank;
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  CHECK(MPI_Put(&value, 1, MPI_DOUBLE, right(), 5, 1, MPI_DOUBLE, win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  CHECK(doubles[5] == 2.25 + left() && doubles[4] == 0.5);
  free_window(win);

  std::vector<int> ints(8, -3);
  CHECK(MPI_Win_create(ints.data(), 8 * sizeof(int), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
  CHECK(attributes(win).disp_unit == 1);
  const int pair[2] = {rank * 3, rank * 3 + 1};
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  CHECK(MPI_Put(pair, 2, MPI_INT, right(), 3 * sizeof(int), 2, MPI_INT, win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  CHECK(ints[2] == -3 && ints[3] == left() * 3 && ints[4] == left() * 3 + 1 && ints[5] == -3);
  free_window(win);
}

// Windows of size 0 everywhere, and on every other rank only: the others
// are still reachable, and a 0-count access to an empty part is fine.
void test_size_zero() {
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_create(nullptr, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
  CHECK(attributes(win).size == 0);
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  CHECK(MPI_Put(&rank, 0, MPI_INT, right(), 0, 0, MPI_INT, win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  free_window(win);

  void* base = nullptr;
  CHECK(MPI_Win_allocate(0, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) == MPI_SUCCESS);
  const Attributes attr = attributes(win);
  CHECK(attr.size == 0 && attr.flavor == MPI_WIN_FLAVOR_ALLOCATE && attr.disp_unit == 4);
  free_window(win);

  // Odd ranks expose nothing; even ranks expose 4 ints.
  const bool exposes = rank % 2 == 0;
  std::vector<int> memory(4, -1);
  CHECK(MPI_Win_create(exposes ? memory.data() : nullptr, exposes ? 4 * sizeof(int) : 0, sizeof(int), MPI_INFO_NULL,
                       MPI_COMM_WORLD, &win) == MPI_SUCCESS);
  CHECK(attributes(win).size == (exposes ? static_cast<MPI_Aint>(4 * sizeof(int)) : 0));
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  // Rank r writes r + 10 into slot r % 2 of the even rank r - r % 2.
  const int value = rank + 10;
  CHECK(MPI_Put(&value, 1, MPI_INT, rank - rank % 2, rank % 2, 1, MPI_INT, win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  if (exposes) {
    CHECK(memory[0] == rank + 10);
    CHECK(memory[1] == (rank + 1 < size ? rank + 11 : -1));
    CHECK(memory[2] == -1 && memory[3] == -1);
  }
  free_window(win);
}

// MPI_Win_allocate: the returned base is the window's base, usable memory.
void test_allocate() {
  constexpr int kCount = 16;
  long long* base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_allocate(kCount * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) ==
        MPI_SUCCESS);
  CHECK(base != nullptr);
  const Attributes attr = attributes(win);
  CHECK(attr.base == base && attr.size == static_cast<MPI_Aint>(kCount * sizeof(long long)));
  CHECK(attr.disp_unit == static_cast<int>(sizeof(long long)) && attr.flavor == MPI_WIN_FLAVOR_ALLOCATE);
  CHECK(attr.model == MPI_WIN_UNIFIED || attr.model == MPI_WIN_SEPARATE);
  check_group_is(win, MPI_COMM_WORLD);
  CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
  for (int i = 0; i < kCount; ++i) base[i] = (1LL << 40) * (rank + 1) + i;
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  std::vector<long long> fetched(kCount, 0);
  CHECK(MPI_Get(fetched.data(), kCount, MPI_LONG_LONG, left(), 0, kCount, MPI_LONG_LONG, win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS);
  for (int i = 0; i < kCount; ++i) CHECK(fetched[static_cast<std::size_t>(i)] == (1LL << 40) * (left() + 1) + i);
  free_window(win);
}

// MPI_Win_allocate_shared on the ranks that share memory: each part is
// found by MPI_Win_shared_query, parts are contiguous in rank order, loads
// and stores reach the others' parts, and MPI_PROC_NULL names the first
// part that is not empty.
void test_allocate_shared() {
  MPI_Comm shm = MPI_COMM_NULL;
  CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm) == MPI_SUCCESS);
  int shm_rank = 0, shm_size = 0;
  MPI_Comm_rank(shm, &shm_rank);
  MPI_Comm_size(shm, &shm_size);
  // Rank 0 gives nothing when there are others; rank r gives r + 1 ints
  // padded to 16 bytes; even ranks count in ints, odd ones in bytes.
  auto bytes_of = [&](int r) -> MPI_Aint {
    if (r == 0 && shm_size > 1) return 0;
    return static_cast<MPI_Aint>(((r + 1) * sizeof(int) + 15) / 16 * 16);
  };
  auto unit_of = [](int r) { return r % 2 == 0 ? static_cast<int>(sizeof(int)) : 1; };
  int* mine = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_allocate_shared(bytes_of(shm_rank), unit_of(shm_rank), MPI_INFO_NULL, shm, &mine, &win) ==
        MPI_SUCCESS);
  const Attributes attr = attributes(win);
  CHECK(attr.flavor == MPI_WIN_FLAVOR_SHARED && attr.size == bytes_of(shm_rank));
  CHECK(attr.disp_unit == unit_of(shm_rank));
  CHECK(attr.model == MPI_WIN_UNIFIED || attr.model == MPI_WIN_SEPARATE);
  if (bytes_of(shm_rank) > 0) CHECK(attr.base == mine);
  check_group_is(win, shm);

  std::vector<int*> parts(static_cast<std::size_t>(shm_size), nullptr);
  char* previous_end = nullptr;
  for (int r = 0; r < shm_size; ++r) {
    MPI_Aint part_size = -1;
    int unit = -1;
    int* part = nullptr;
    CHECK(MPI_Win_shared_query(win, r, &part_size, &unit, &part) == MPI_SUCCESS);
    CHECK(part_size == bytes_of(r) && unit == unit_of(r));
    if (r == shm_rank && part_size > 0) CHECK(part == mine);
    if (part_size == 0) continue;
    CHECK(part != nullptr);
    if (previous_end != nullptr) CHECK(reinterpret_cast<char*>(part) == previous_end);
    previous_end = reinterpret_cast<char*>(part) + part_size;
    parts[static_cast<std::size_t>(r)] = part;
  }
  MPI_Aint first_size = -1;
  int first_unit = -1;
  int* first = nullptr;
  CHECK(MPI_Win_shared_query(win, MPI_PROC_NULL, &first_size, &first_unit, &first) == MPI_SUCCESS);
  const int first_rank = shm_size > 1 ? 1 : 0;
  CHECK(first_size == bytes_of(first_rank) && first_unit == unit_of(first_rank));
  CHECK(first == parts[static_cast<std::size_t>(first_rank)]);

  // Stores into the own part, loads from every part.
  CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
  if (mine != nullptr && bytes_of(shm_rank) > 0) {
    for (int i = 0; i <= shm_rank; ++i) mine[i] = shm_rank * 1000 + i;
  }
  CHECK(MPI_Win_sync(win) == MPI_SUCCESS);
  MPI_Barrier(shm);
  CHECK(MPI_Win_sync(win) == MPI_SUCCESS);
  for (int r = 0; r < shm_size; ++r) {
    const int* part = parts[static_cast<std::size_t>(r)];
    if (part == nullptr) continue;
    for (int i = 0; i <= r; ++i) CHECK(part[i] == r * 1000 + i);
  }
  MPI_Barrier(shm);
  // A put through the window, in the target's unit, seen by a load.
  const int target = (shm_rank + 1) % shm_size;
  const int value = -5 - shm_rank;
  if (bytes_of(target) > 0) {
    const MPI_Aint disp = unit_of(target) == 1 ? static_cast<MPI_Aint>(target * sizeof(int)) : target;
    CHECK(MPI_Put(&value, 1, MPI_INT, target, disp, 1, MPI_INT, win) == MPI_SUCCESS);
  }
  CHECK(MPI_Win_flush_all(win) == MPI_SUCCESS);
  MPI_Barrier(shm);
  CHECK(MPI_Win_sync(win) == MPI_SUCCESS);
  if (bytes_of(shm_rank) > 0) {
    const int writer = (shm_rank - 1 + shm_size) % shm_size;
    CHECK(mine[shm_rank] == -5 - writer);
  }
  CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
  free_window(win);
  MPI_Comm_free(&shm);
}

// MPI_Win_create_dynamic: no memory at first; regions attached later are
// addressed by their MPI_Get_address values; detached ones are gone.
void test_dynamic() {
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
  const Attributes attr = attributes(win);
  CHECK(attr.flavor == MPI_WIN_FLAVOR_DYNAMIC && attr.size == 0 && attr.base == MPI_BOTTOM);
  CHECK(attr.disp_unit == 1);
  check_group_is(win, MPI_COMM_WORLD);

  std::vector<long long> first(8, -1), second(3, -2);
  CHECK(MPI_Win_attach(win, first.data(), 8 * sizeof(long long)) == MPI_SUCCESS);
  CHECK(MPI_Win_attach(win, second.data(), 3 * sizeof(long long)) == MPI_SUCCESS);
  MPI_Aint mine[2] = {0, 0};
  CHECK(MPI_Get_address(first.data(), &mine[0]) == MPI_SUCCESS);
  CHECK(MPI_Get_address(second.data(), &mine[1]) == MPI_SUCCESS);
  std::vector<MPI_Aint> addresses(static_cast<std::size_t>(2 * size));
  MPI_Allgather(mine, 2, MPI_AINT, addresses.data(), 2, MPI_AINT, MPI_COMM_WORLD);
  const MPI_Aint right_first = addresses[static_cast<std::size_t>(2 * right())];
  const MPI_Aint right_second = addresses[static_cast<std::size_t>(2 * right() + 1)];

  const long long values[2] = {100LL + rank, 200LL + rank};
  long long fetched = 0;
  CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right(), 0, win) == MPI_SUCCESS);
  CHECK(MPI_Put(&values[0], 1, MPI_LONG_LONG, right(), MPI_Aint_add(right_first, 2 * sizeof(long long)), 1,
                MPI_LONG_LONG, win) == MPI_SUCCESS);
  CHECK(MPI_Put(&values[1], 1, MPI_LONG_LONG, right(), MPI_Aint_add(right_second, 2 * sizeof(long long)), 1,
                MPI_LONG_LONG, win) == MPI_SUCCESS);
  CHECK(MPI_Win_unlock(right(), win) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right(), 0, win) == MPI_SUCCESS);
  CHECK(MPI_Get(&fetched, 1, MPI_LONG_LONG, right(), MPI_Aint_add(right_first, 2 * sizeof(long long)), 1,
                MPI_LONG_LONG, win) == MPI_SUCCESS);
  CHECK(MPI_Win_unlock(right(), win) == MPI_SUCCESS);
  CHECK(fetched == 100LL + rank);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win) == MPI_SUCCESS);
  CHECK(first[2] == 100LL + left() && second[2] == 200LL + left());
  CHECK(first[1] == -1 && first[3] == -1 && second[0] == -2 && second[1] == -2);
  CHECK(MPI_Win_unlock(rank, win) == MPI_SUCCESS);

  // The first region goes; the second stays and is still reachable, by
  // fence epochs too.
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_Win_detach(win, first.data()) == MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  const long long third = 300LL + rank;
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  CHECK(MPI_Put(&third, 1, MPI_LONG_LONG, right(), right_second, 1, MPI_LONG_LONG, win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  CHECK(second[0] == 300LL + left() && second[2] == 200LL + left());
  CHECK(MPI_Win_detach(win, second.data()) == MPI_SUCCESS);
  free_window(win);
}

// Names, info and the group of a window.
void test_name_and_info() {
  std::vector<int> cell(1, 0);
  int& memory = cell[0];
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, "no_locks", "true");
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_create(&memory, sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
  MPI_Info_free(&info);

  char name[MPI_MAX_OBJECT_NAME];
  int length = -1;
  CHECK(MPI_Win_get_name(win, name, &length) == MPI_SUCCESS);
  CHECK(length == 0 && name[0] == '\0');
  CHECK(MPI_Win_set_name(win, "tern rma window") == MPI_SUCCESS);
  std::memset(name, 'x', sizeof(name));
  CHECK(MPI_Win_get_name(win, name, &length) == MPI_SUCCESS);
  CHECK(length == 15 && std::strcmp(name, "tern rma window") == 0);
  CHECK(MPI_Win_set_name(win, "second") == MPI_SUCCESS);
  CHECK(MPI_Win_get_name(win, name, &length) == MPI_SUCCESS);
  CHECK(length == 6 && std::strcmp(name, "second") == 0);

  // The info in use is a new object the caller frees; hints the
  // implementation ignores may be missing from it.
  MPI_Info used = MPI_INFO_NULL;
  CHECK(MPI_Win_get_info(win, &used) == MPI_SUCCESS);
  CHECK(used != MPI_INFO_NULL);
  int keys = -1;
  CHECK(MPI_Info_get_nkeys(used, &keys) == MPI_SUCCESS && keys >= 0);
  CHECK(MPI_Info_free(&used) == MPI_SUCCESS);
  MPI_Info_create(&info);
  MPI_Info_set(info, "accumulate_ops", "same_op_no_op");
  CHECK(MPI_Win_set_info(win, info) == MPI_SUCCESS);
  MPI_Info_free(&info);
  CHECK(MPI_Win_get_info(win, &used) == MPI_SUCCESS && used != MPI_INFO_NULL);
  CHECK(MPI_Info_free(&used) == MPI_SUCCESS);

  // The window still works after the hints changed.
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  const int value = rank + 1;
  CHECK(MPI_Accumulate(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
  if (rank == 0) CHECK(memory == size * (size + 1) / 2);
  free_window(win);
}

// Several windows alive at once over one communicator and over a split
// one, freed in another order than created.
void test_many_windows() {
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int half_rank = 0, half_size = 0;
  MPI_Comm_rank(half, &half_rank);
  MPI_Comm_size(half, &half_size);
  std::vector<int> ma(16, -1), mb(16, -1), mc(16, -1);
  int& a = ma[0];
  int& b = mb[0];
  int& c = mc[0];
  MPI_Win wa = MPI_WIN_NULL, wb = MPI_WIN_NULL, wc = MPI_WIN_NULL;
  CHECK(MPI_Win_create(&a, sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wa) == MPI_SUCCESS);
  CHECK(MPI_Win_create(&b, sizeof(int), sizeof(int), MPI_INFO_NULL, half, &wb) == MPI_SUCCESS);
  CHECK(MPI_Win_create(&c, sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wc) == MPI_SUCCESS);
  CHECK(wa != wb && wb != wc && wa != wc);
  check_group_is(wb, half);
  CHECK(MPI_Win_fence(0, wa) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(0, wb) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(0, wc) == MPI_SUCCESS);
  const int va = 10 + rank, vb = 20 + half_rank, vc = 30 + rank;
  CHECK(MPI_Put(&va, 1, MPI_INT, right(), 0, 1, MPI_INT, wa) == MPI_SUCCESS);
  CHECK(MPI_Put(&vb, 1, MPI_INT, (half_rank + 1) % half_size, 0, 1, MPI_INT, wb) == MPI_SUCCESS);
  CHECK(MPI_Put(&vc, 1, MPI_INT, left(), 0, 1, MPI_INT, wc) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(0, wc) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(0, wb) == MPI_SUCCESS);
  CHECK(MPI_Win_fence(0, wa) == MPI_SUCCESS);
  CHECK(a == 10 + left() && b == 20 + (half_rank - 1 + half_size) % half_size && c == 30 + right());
  free_window(wb);
  free_window(wa);
  free_window(wc);
  MPI_Comm_free(&half);
}

// Attribute caching on windows: set, get, replace, delete, and the delete
// callback run for what is left at MPI_Win_free.
int deletes = 0;
int last_deleted = 0;
int count_delete(MPI_Win, int, void* value, void* extra_state) {
  ++deletes;
  last_deleted = *static_cast<int*>(value);
  CHECK(*static_cast<int*>(extra_state) == 77);
  return MPI_SUCCESS;
}

void test_keyvals() {
  static int extra = 77;
  static int first = 1;
  static int second = 2;
  int keyval = MPI_KEYVAL_INVALID;
  CHECK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &keyval, &extra) == MPI_SUCCESS);
  MPI_Win win = MPI_WIN_NULL;
  int* base = nullptr;
  CHECK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) == MPI_SUCCESS);
  void* value = nullptr;
  int flag = 1;
  CHECK(MPI_Win_get_attr(win, keyval, &value, &flag) == MPI_SUCCESS && flag == 0);
  CHECK(MPI_Win_set_attr(win, keyval, &first) == MPI_SUCCESS);
  CHECK(MPI_Win_get_attr(win, keyval, &value, &flag) == MPI_SUCCESS && flag == 1 && value == &first);
  CHECK(MPI_Win_set_attr(win, keyval, &second) == MPI_SUCCESS);  // replaces: the old value is deleted
  CHECK(deletes == 1 && last_deleted == 1);
  CHECK(MPI_Win_delete_attr(win, keyval) == MPI_SUCCESS && deletes == 2 && last_deleted == 2);
  CHECK(MPI_Win_get_attr(win, keyval, &value, &flag) == MPI_SUCCESS && flag == 0);
  CHECK(MPI_Win_set_attr(win, keyval, &first) == MPI_SUCCESS);
  CHECK(MPI_Win_free_keyval(&keyval) == MPI_SUCCESS && keyval == MPI_KEYVAL_INVALID);
  free_window(win);  // the attribute still set goes with the window
  CHECK(deletes == 3 && last_deleted == 1);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  test_create();
  test_disp_units();
  test_size_zero();
  test_allocate();
  test_allocate_shared();
  test_dynamic();
  test_name_and_info();
  test_many_windows();
  test_keyvals();
  const int code = tern::mpi_test::conclude("mpi_win_basic");
  MPI_Finalize();
  return code;
}
