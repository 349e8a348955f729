// The MPI tool information interface: set-up before MPI_Init, nesting and
// after MPI_Finalize; control variables (one per TERN_* variable, reading
// what the job's environment set, refusing writes); enumerations;
// categories covering every variable; performance variables that follow the
// messages exchanged; the clock source; the event calls' errors; and the
// error path of each call.
//
// The job sets TERN_SPIN_COUNT=4321, TERN_TCP_IF=lo, TERN_CMA_SPLIT=off,
// TERN_CMA_CHUNK=1M and TERN_BOOTSTRAP_TIMEOUT=45 (see CMakeLists.txt).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "check.hpp"
#include "tern/runtime/config.hpp"

namespace {

int cvar_index(const char* name) {
  int index = -1;
  CHECK(MPI_T_cvar_get_index(name, &index) == MPI_SUCCESS);
  return index;
}

std::string enum_item_name(MPI_T_enum enumtype, int value) {
  int count = 0;
  CHECK(MPI_T_enum_get_info(enumtype, &count, nullptr, nullptr) == MPI_SUCCESS);
  for (int i = 0; i < count; ++i) {
    int item_value = -1;
    char name[64];
    int name_len = sizeof(name);
    CHECK(MPI_T_enum_get_item(enumtype, i, &item_value, name, &name_len) == MPI_SUCCESS);
    if (item_value == value) return name;
  }
  return "(no item)";
}

// Reads a control variable through a fresh handle; the info of the variable
// comes back in `datatype` and `enumtype`.
std::vector<char> read_cvar(const char* name, MPI_Datatype& datatype, MPI_T_enum& enumtype) {
  const int index = cvar_index(name);
  CHECK(MPI_T_cvar_get_info(index, nullptr, nullptr, nullptr, &datatype, &enumtype, nullptr, nullptr, nullptr,
                            nullptr) == MPI_SUCCESS);
  MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
  int count = 0;
  CHECK(MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) == MPI_SUCCESS);
  CHECK(count >= 1);
  std::vector<char> value(static_cast<std::size_t>(count) * 8 + 8, '\0');
  CHECK(MPI_T_cvar_read(handle, value.data()) == MPI_SUCCESS);
  CHECK(MPI_T_cvar_handle_free(&handle) == MPI_SUCCESS && handle == MPI_T_CVAR_HANDLE_NULL);
  return value;
}

unsigned long read_size_cvar(const char* name) {
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  MPI_T_enum enumtype = -1;
  const std::vector<char> value = read_cvar(name, datatype, enumtype);
  CHECK(datatype == MPI_UNSIGNED_LONG && enumtype == MPI_T_ENUM_NULL);
  unsigned long number = 0;
  std::memcpy(&number, value.data(), sizeof(number));
  return number;
}

std::string read_choice_cvar(const char* name) {
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  MPI_T_enum enumtype = MPI_T_ENUM_NULL;
  const std::vector<char> value = read_cvar(name, datatype, enumtype);
  CHECK(datatype == MPI_INT && enumtype != MPI_T_ENUM_NULL);
  int number = -1;
  std::memcpy(&number, value.data(), sizeof(number));
  return enum_item_name(enumtype, number);
}

std::string read_text_cvar(const char* name) {
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  MPI_T_enum enumtype = -1;
  const std::vector<char> value = read_cvar(name, datatype, enumtype);
  CHECK(datatype == MPI_CHAR && enumtype == MPI_T_ENUM_NULL);
  return value.data();
}

void check_setup_before_init() {
  int num = -1;
  CHECK(MPI_T_cvar_get_num(&num) == MPI_T_ERR_NOT_INITIALIZED);
  CHECK(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED);
  int provided = -1;
  CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, nullptr) == MPI_T_ERR_INVALID);
  CHECK(MPI_T_init_thread(42, &provided) == MPI_T_ERR_INVALID);
  CHECK(MPI_T_cvar_get_num(&num) == MPI_T_ERR_NOT_INITIALIZED);
  CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS && provided == MPI_THREAD_MULTIPLE);
  CHECK(MPI_T_cvar_get_num(&num) == MPI_SUCCESS && num > 0);
  // Nesting: the interface stays up until the last MPI_T_finalize.
  CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);
  CHECK(MPI_T_finalize() == MPI_SUCCESS);
  CHECK(MPI_T_cvar_get_num(&num) == MPI_SUCCESS);
  // Handles die with the interface.
  MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
  int count = 0;
  CHECK(MPI_T_cvar_handle_alloc(0, nullptr, &handle, &count) == MPI_SUCCESS);
  CHECK(MPI_T_finalize() == MPI_SUCCESS);
  CHECK(MPI_T_cvar_get_num(&num) == MPI_T_ERR_NOT_INITIALIZED);
  CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
  char value[256];
  CHECK(MPI_T_cvar_read(handle, value) == MPI_T_ERR_INVALID_HANDLE);
  // A session and a control variable read before MPI_Init work too.
  CHECK(read_size_cvar("TERN_SPIN_COUNT") == 4321);
}

void check_cvars() {
  const auto variables = tern::runtime::config_variables();
  int num = -1;
  CHECK(MPI_T_cvar_get_num(&num) == MPI_SUCCESS);
  CHECK(num == static_cast<int>(variables.size()));
  CHECK(MPI_T_cvar_get_num(nullptr) == MPI_T_ERR_INVALID);
  for (int i = 0; i < num; ++i) {
    char name[128];
    int name_len = sizeof(name);
    int verbosity = 0, bind = -1, scope = -1;
    MPI_Datatype datatype = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype = -1;
    int desc_len = 0;
    CHECK(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &datatype, &enumtype, nullptr, &desc_len, &bind,
                              &scope) == MPI_SUCCESS);
    CHECK(std::strncmp(name, "TERN_", 5) == 0);
    CHECK(std::strcmp(name, variables[static_cast<std::size_t>(i)].name) == 0);
    CHECK(name_len == static_cast<int>(std::strlen(name)) + 1);
    CHECK(desc_len > static_cast<int>(std::strlen(variables[static_cast<std::size_t>(i)].meaning)));
    CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL);
    CHECK(bind == MPI_T_BIND_NO_OBJECT && scope == MPI_T_SCOPE_CONSTANT);
    CHECK(datatype == MPI_INT || datatype == MPI_UNSIGNED || datatype == MPI_UNSIGNED_LONG || datatype == MPI_CHAR);
    CHECK((datatype == MPI_INT) == (enumtype != MPI_T_ENUM_NULL));
    CHECK(cvar_index(name) == i);
  }
  // Strings: the length query, truncation, bad lengths.
  const int spin = cvar_index("TERN_SPIN_COUNT");
  int name_len = 0;
  CHECK(MPI_T_cvar_get_info(spin, nullptr, &name_len, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                            nullptr) == MPI_SUCCESS);
  CHECK(name_len == static_cast<int>(std::strlen("TERN_SPIN_COUNT")) + 1);
  char cut[6] = "xxxxx";
  name_len = 5;
  CHECK(MPI_T_cvar_get_info(spin, cut, &name_len, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) ==
        MPI_SUCCESS);
  CHECK(std::strcmp(cut, "TERN") == 0 && name_len == 5);
  name_len = -1;
  CHECK(MPI_T_cvar_get_info(spin, cut, &name_len, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) ==
        MPI_T_ERR_INVALID);
  name_len = 8;
  CHECK(MPI_T_cvar_get_info(spin, nullptr, &name_len, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                            nullptr) == MPI_T_ERR_INVALID);

  // Bad indexes, names and handles.
  CHECK(MPI_T_cvar_get_info(-1, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) ==
        MPI_T_ERR_INVALID_INDEX);
  CHECK(MPI_T_cvar_get_info(num, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                            nullptr) == MPI_T_ERR_INVALID_INDEX);
  int index = -1;
  CHECK(MPI_T_cvar_get_index("TERN_NO_SUCH_VARIABLE", &index) == MPI_T_ERR_INVALID_NAME && index == -1);
  CHECK(MPI_T_cvar_get_index(nullptr, &index) == MPI_T_ERR_INVALID);
  MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
  int count = 0;
  CHECK(MPI_T_cvar_handle_alloc(num, nullptr, &handle, &count) == MPI_T_ERR_INVALID_INDEX);
  CHECK(MPI_T_cvar_handle_alloc(spin, nullptr, nullptr, &count) == MPI_T_ERR_INVALID);
  char buffer[64];
  CHECK(MPI_T_cvar_read(12345678, buffer) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_cvar_write(12345678, buffer) == MPI_T_ERR_INVALID_HANDLE);
  MPI_T_cvar_handle bogus = 12345678;
  CHECK(MPI_T_cvar_handle_free(&bogus) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_cvar_handle_free(nullptr) == MPI_T_ERR_INVALID);

  // The values the job's environment set, and a default.
  CHECK(std::getenv("TERN_SPIN_COUNT") != nullptr);  // the test's registration sets them
  CHECK(read_size_cvar("TERN_SPIN_COUNT") == 4321);
  CHECK(read_size_cvar("TERN_CMA_CHUNK") == 1u << 20);
  CHECK(read_text_cvar("TERN_TCP_IF") == "lo");
  CHECK(read_choice_cvar("TERN_CMA_SPLIT") == "off");
  CHECK(read_choice_cvar("TERN_WAIT_MODE") == "block");
  const char* progress = std::getenv("TERN_PROGRESS");
  CHECK(read_choice_cvar("TERN_PROGRESS") == (progress != nullptr ? progress : "caller"));
  if (std::getenv("TERN_TM_CAPACITY") == nullptr) CHECK(read_size_cvar("TERN_TM_CAPACITY") == 64);
  {
    MPI_Datatype datatype = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype = -1;
    const std::vector<char> value = read_cvar("TERN_BOOTSTRAP_TIMEOUT", datatype, enumtype);
    unsigned seconds = 0;
    std::memcpy(&seconds, value.data(), sizeof(seconds));
    CHECK(datatype == MPI_UNSIGNED && seconds == 45);
  }
  // A text variable's count holds the text and its null.
  CHECK(MPI_T_cvar_handle_alloc(cvar_index("TERN_TCP_IF"), nullptr, &handle, &count) == MPI_SUCCESS);
  CHECK(count == 3);
  CHECK(MPI_T_cvar_handle_free(&handle) == MPI_SUCCESS);

  // The configuration is read once: a write is refused and changes nothing.
  CHECK(MPI_T_cvar_handle_alloc(spin, nullptr, &handle, &count) == MPI_SUCCESS && count == 1);
  const unsigned long new_value = 99;
  CHECK(MPI_T_cvar_write(handle, &new_value) == MPI_T_ERR_CVAR_SET_NEVER);
  unsigned long value = 0;
  CHECK(MPI_T_cvar_read(handle, &value) == MPI_SUCCESS && value == 4321);
  CHECK(MPI_T_cvar_read(handle, nullptr) == MPI_T_ERR_INVALID);
  CHECK(MPI_T_cvar_handle_free(&handle) == MPI_SUCCESS);
  CHECK(MPI_T_cvar_read(handle, &value) == MPI_T_ERR_INVALID_HANDLE);
}

void check_enums() {
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  MPI_T_enum switch_enum = MPI_T_ENUM_NULL;
  CHECK(MPI_T_cvar_get_info(cvar_index("TERN_CMA"), nullptr, nullptr, nullptr, &datatype, &switch_enum, nullptr,
                            nullptr, nullptr, nullptr) == MPI_SUCCESS);
  int count = 0;
  char name[64];
  int name_len = sizeof(name);
  CHECK(MPI_T_enum_get_info(switch_enum, &count, name, &name_len) == MPI_SUCCESS);
  CHECK(count == 3 && std::strcmp(name, "tern_switch") == 0);
  std::string items;
  for (int i = 0; i < count; ++i) {
    int value = -1;
    name_len = sizeof(name);
    CHECK(MPI_T_enum_get_item(switch_enum, i, &value, name, &name_len) == MPI_SUCCESS);
    items += std::string(name) + "=" + std::to_string(value) + " ";
  }
  CHECK(items == "auto=0 on=1 off=2 ");
  MPI_T_enum progress_enum = MPI_T_ENUM_NULL;
  CHECK(MPI_T_cvar_get_info(cvar_index("TERN_PROGRESS"), nullptr, nullptr, nullptr, &datatype, &progress_enum,
                            nullptr, nullptr, nullptr, nullptr) == MPI_SUCCESS);
  CHECK(enum_item_name(progress_enum, 2) == "thread-blocking");
  CHECK(MPI_T_enum_get_info(progress_enum, &count, nullptr, nullptr) == MPI_SUCCESS && count == 3);
  int value = 0;
  CHECK(MPI_T_enum_get_item(switch_enum, 3, &value, nullptr, nullptr) == MPI_T_ERR_INVALID_INDEX);
  CHECK(MPI_T_enum_get_item(switch_enum, -1, &value, nullptr, nullptr) == MPI_T_ERR_INVALID_INDEX);
  CHECK(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &count, nullptr, nullptr) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_enum_get_item(777, 0, &value, nullptr, nullptr) == MPI_T_ERR_INVALID_HANDLE);
}

void check_categories() {
  int num_cvars = 0, num_pvars = 0, num_categories = 0;
  CHECK(MPI_T_cvar_get_num(&num_cvars) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_get_num(&num_pvars) == MPI_SUCCESS);
  CHECK(MPI_T_category_get_num(&num_categories) == MPI_SUCCESS && num_categories > 2);
  std::vector<int> cvar_seen(static_cast<std::size_t>(num_cvars)), pvar_seen(static_cast<std::size_t>(num_pvars));
  int root = -1;
  CHECK(MPI_T_category_get_index("tern", &root) == MPI_SUCCESS);
  for (int cat = 0; cat < num_categories; ++cat) {
    char name[64];
    int name_len = sizeof(name), desc_len = 0, cvars = -1, pvars = -1, subcategories = -1;
    CHECK(MPI_T_category_get_info(cat, name, &name_len, nullptr, &desc_len, &cvars, &pvars, &subcategories) ==
          MPI_SUCCESS);
    CHECK(desc_len > 1);
    int found = -1;
    CHECK(MPI_T_category_get_index(name, &found) == MPI_SUCCESS && found == cat);
    std::vector<int> indices(static_cast<std::size_t>(cvars) + 1, -1);
    CHECK(MPI_T_category_get_cvars(cat, cvars, indices.data()) == MPI_SUCCESS);
    for (int i = 0; i < cvars; ++i) {
      const int index = indices[static_cast<std::size_t>(i)];
      CHECK(index >= 0 && index < num_cvars);
      if (index >= 0 && index < num_cvars) ++cvar_seen[static_cast<std::size_t>(index)];
    }
    indices.assign(static_cast<std::size_t>(pvars) + 1, -1);
    CHECK(MPI_T_category_get_pvars(cat, pvars, indices.data()) == MPI_SUCCESS);
    for (int i = 0; i < pvars; ++i) {
      const int index = indices[static_cast<std::size_t>(i)];
      CHECK(index >= 0 && index < num_pvars);
      if (index >= 0 && index < num_pvars) ++pvar_seen[static_cast<std::size_t>(index)];
    }
    int events = -1;
    CHECK(MPI_T_category_get_num_events(cat, &events) == MPI_SUCCESS && events == 0);
    CHECK(MPI_T_category_get_events(cat, 0, nullptr) == MPI_SUCCESS);
    if (cat == root) {
      CHECK(cvars == 0 && subcategories == num_categories - 1);
      indices.assign(static_cast<std::size_t>(subcategories), -1);
      CHECK(MPI_T_category_get_categories(cat, subcategories, indices.data()) == MPI_SUCCESS);
      for (int i = 0; i < subcategories; ++i) CHECK(indices[static_cast<std::size_t>(i)] != root);
    } else {
      CHECK(subcategories == 0 && cvars + pvars > 0);
    }
  }
  // Every variable in exactly one category.
  for (int seen : cvar_seen) CHECK(seen == 1);
  for (int seen : pvar_seen) CHECK(seen == 1);
  // A short len takes the first ones only.
  int first[2] = {-1, -1};
  CHECK(MPI_T_category_get_categories(root, 1, first) == MPI_SUCCESS && first[0] >= 0 && first[1] == -1);
  int update = -1;
  CHECK(MPI_T_category_changed(&update) == MPI_SUCCESS && update >= 0);

  int index = -1;
  CHECK(MPI_T_category_get_index("no such category", &index) == MPI_T_ERR_INVALID_NAME);
  CHECK(MPI_T_category_get_info(num_categories, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) ==
        MPI_T_ERR_INVALID_INDEX);
  CHECK(MPI_T_category_get_cvars(-1, 0, nullptr) == MPI_T_ERR_INVALID_INDEX);
  CHECK(MPI_T_category_get_pvars(num_categories, 0, nullptr) == MPI_T_ERR_INVALID_INDEX);
  CHECK(MPI_T_category_get_categories(num_categories, 0, nullptr) == MPI_T_ERR_INVALID_INDEX);
  CHECK(MPI_T_category_get_num_events(-1, &index) == MPI_T_ERR_INVALID_INDEX);
  CHECK(MPI_T_category_get_events(-1, 0, nullptr) == MPI_T_ERR_INVALID_INDEX);
  CHECK(MPI_T_category_get_cvars(root, -1, first) == MPI_T_ERR_INVALID);
  CHECK(MPI_T_category_get_cvars(root, 2, nullptr) == MPI_T_ERR_INVALID);
}

int pvar_index(const char* name, int var_class) {
  int index = -1;
  CHECK(MPI_T_pvar_get_index(name, var_class, &index) == MPI_SUCCESS);
  return index;
}

unsigned long long read_pvar(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  unsigned long long value = ~0ull;
  CHECK(MPI_T_pvar_read(session, handle, &value) == MPI_SUCCESS);
  return value;
}

// Tagged messages to the next rank and from the previous one.
void ring_exchange(int count, int tag) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<MPI_Request> requests(static_cast<std::size_t>(count));
  std::vector<int> in(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    MPI_Irecv(&in[static_cast<std::size_t>(i)], 1, MPI_INT, (rank + size - 1) % size, tag, MPI_COMM_WORLD,
              &requests[static_cast<std::size_t>(i)]);
  }
  for (int i = 0; i < count; ++i) MPI_Send(&i, 1, MPI_INT, (rank + 1) % size, tag, MPI_COMM_WORLD);
  MPI_Waitall(count, requests.data(), MPI_STATUSES_IGNORE);
}

struct Counters {
  MPI_T_pvar_session session = MPI_T_PVAR_SESSION_NULL;
  MPI_T_pvar_handle sent = MPI_T_PVAR_HANDLE_NULL;
  std::vector<MPI_T_pvar_handle> by_transport;
};

void check_pvar_info() {
  int num = 0;
  CHECK(MPI_T_pvar_get_num(&num) == MPI_SUCCESS && num >= 8);
  for (int i = 0; i < num; ++i) {
    char name[64];
    int name_len = sizeof(name), var_class = -1, bind = -1, readonly = -1, continuous = -1, atomic = -1;
    int desc_len = 0;
    MPI_Datatype datatype = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype = -1;
    CHECK(MPI_T_pvar_get_info(i, name, &name_len, nullptr, &var_class, &datatype, &enumtype, nullptr, &desc_len,
                              &bind, &readonly, &continuous, &atomic) == MPI_SUCCESS);
    CHECK(std::strncmp(name, "tern_", 5) == 0 && desc_len > 1);
    CHECK(datatype == MPI_UNSIGNED_LONG_LONG && enumtype == MPI_T_ENUM_NULL && bind == MPI_T_BIND_NO_OBJECT);
    CHECK(var_class == MPI_T_PVAR_CLASS_LEVEL || var_class == MPI_T_PVAR_CLASS_COUNTER);
    CHECK((var_class == MPI_T_PVAR_CLASS_LEVEL) == (readonly == 1 && continuous == 1));
    CHECK(pvar_index(name, var_class) == i);
  }
  int index = -1;
  CHECK(MPI_T_pvar_get_index("tern_messages_sent", MPI_T_PVAR_CLASS_LEVEL, &index) == MPI_T_ERR_INVALID_NAME);
  CHECK(MPI_T_pvar_get_index("tern_nothing", MPI_T_PVAR_CLASS_COUNTER, &index) == MPI_T_ERR_INVALID_NAME);
  CHECK(MPI_T_pvar_get_info(num, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                            nullptr, nullptr, nullptr) == MPI_T_ERR_INVALID_INDEX);
}

void check_counters() {
  constexpr int kMessages = 7;
  const char* transports[] = {"tern_self_messages_sent", "tern_shm_messages_sent", "tern_tcp_messages_sent",
                              "tern_verbs_messages_sent"};
  Counters c;
  CHECK(MPI_T_pvar_session_create(&c.session) == MPI_SUCCESS && c.session != MPI_T_PVAR_SESSION_NULL);
  int count = 0;
  CHECK(MPI_T_pvar_handle_alloc(c.session, pvar_index("tern_messages_sent", MPI_T_PVAR_CLASS_COUNTER), nullptr,
                                &c.sent, &count) == MPI_SUCCESS && count == 1);
  for (const char* name : transports) {
    MPI_T_pvar_handle handle = MPI_T_PVAR_HANDLE_NULL;
    CHECK(MPI_T_pvar_handle_alloc(c.session, pvar_index(name, MPI_T_PVAR_CLASS_COUNTER), nullptr, &handle,
                                  &count) == MPI_SUCCESS);
    c.by_transport.push_back(handle);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  // Stopped: nothing counts.
  ring_exchange(kMessages, 11);
  CHECK(read_pvar(c.session, c.sent) == 0);
  CHECK(MPI_T_pvar_start(c.session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
  ring_exchange(kMessages, 12);
  const unsigned long long sent = read_pvar(c.session, c.sent);
  CHECK(sent == kMessages);
  unsigned long long by_transport = 0;
  for (MPI_T_pvar_handle handle : c.by_transport) by_transport += read_pvar(c.session, handle);
  CHECK(by_transport == kMessages);
  // Stop: the value stays; start again: it goes on from there.
  CHECK(MPI_T_pvar_stop(c.session, c.sent) == MPI_SUCCESS);
  ring_exchange(kMessages, 13);
  CHECK(read_pvar(c.session, c.sent) == kMessages);
  CHECK(MPI_T_pvar_start(c.session, c.sent) == MPI_SUCCESS);
  ring_exchange(kMessages, 14);
  CHECK(read_pvar(c.session, c.sent) == 2 * kMessages);
  // Read and reset, reset, write.
  unsigned long long value = 0;
  CHECK(MPI_T_pvar_readreset(c.session, c.sent, &value) == MPI_SUCCESS && value == 2 * kMessages);
  CHECK(read_pvar(c.session, c.sent) == 0);
  ring_exchange(kMessages, 15);
  CHECK(read_pvar(c.session, c.sent) == kMessages);
  CHECK(MPI_T_pvar_reset(c.session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
  CHECK(read_pvar(c.session, c.sent) == 0 && read_pvar(c.session, c.by_transport[0]) == 0);
  const unsigned long long hundred = 100;
  CHECK(MPI_T_pvar_write(c.session, c.sent, &hundred) == MPI_SUCCESS);
  ring_exchange(kMessages, 16);
  CHECK(read_pvar(c.session, c.sent) == 100 + kMessages);
  CHECK(MPI_T_pvar_stop(c.session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);

  // Errors: reading every handle at once, another session's handle, freed ones.
  CHECK(MPI_T_pvar_read(c.session, MPI_T_PVAR_ALL_HANDLES, &value) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_pvar_read(c.session, c.sent, nullptr) == MPI_T_ERR_INVALID);
  MPI_T_pvar_session other = MPI_T_PVAR_SESSION_NULL;
  CHECK(MPI_T_pvar_session_create(&other) == MPI_SUCCESS && other != c.session);
  CHECK(MPI_T_pvar_read(other, c.sent, &value) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_pvar_start(other, c.sent) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_pvar_handle_free(other, &c.sent) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_pvar_session_free(&other) == MPI_SUCCESS && other == MPI_T_PVAR_SESSION_NULL);
  CHECK(MPI_T_pvar_read(other, c.sent, &value) == MPI_T_ERR_INVALID_SESSION);
  CHECK(MPI_T_pvar_start(12345678, MPI_T_PVAR_ALL_HANDLES) == MPI_T_ERR_INVALID_SESSION);
  CHECK(MPI_T_pvar_handle_alloc(12345678, 0, nullptr, &other, &count) == MPI_T_ERR_INVALID_SESSION);
  int num = 0;
  CHECK(MPI_T_pvar_get_num(&num) == MPI_SUCCESS);
  MPI_T_pvar_handle handle = MPI_T_PVAR_HANDLE_NULL;
  CHECK(MPI_T_pvar_handle_alloc(c.session, num, nullptr, &handle, &count) == MPI_T_ERR_INVALID_INDEX);
  MPI_T_pvar_handle freed = c.sent;
  CHECK(MPI_T_pvar_handle_free(c.session, &c.sent) == MPI_SUCCESS && c.sent == MPI_T_PVAR_HANDLE_NULL);
  CHECK(MPI_T_pvar_read(c.session, freed, &value) == MPI_T_ERR_INVALID_HANDLE);
  // Freeing the session frees its handles.
  const MPI_T_pvar_session session = c.session;
  CHECK(MPI_T_pvar_session_free(&c.session) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_read(session, c.by_transport[0], &value) == MPI_T_ERR_INVALID_SESSION);
  CHECK(MPI_T_pvar_session_free(&c.session) == MPI_T_ERR_INVALID_SESSION);
}

// The matcher's queues: receives posted and not matched, messages arrived
// and not received. The ranks take turns, so that no message of another
// rank (a barrier's, the next phase's) lands in the queues being counted:
// while one rank counts, the ranks before it wait for the last one's "done"
// and the ranks after it for their turn.
void check_levels() {
  constexpr int kMessages = 5;
  constexpr int kTurnTag = 90, kDoneTag = 91;
  int rank = 0, size = 0, token = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank > 0) MPI_Recv(&token, 1, MPI_INT, rank - 1, kTurnTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_T_pvar_session session = MPI_T_PVAR_SESSION_NULL;
  CHECK(MPI_T_pvar_session_create(&session) == MPI_SUCCESS);
  MPI_T_pvar_handle posted = MPI_T_PVAR_HANDLE_NULL, unexpected = MPI_T_PVAR_HANDLE_NULL;
  int count = 0;
  CHECK(MPI_T_pvar_handle_alloc(session, pvar_index("tern_posted_receives", MPI_T_PVAR_CLASS_LEVEL), nullptr,
                                &posted, &count) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_handle_alloc(session, pvar_index("tern_unexpected_messages", MPI_T_PVAR_CLASS_LEVEL), nullptr,
                                &unexpected, &count) == MPI_SUCCESS);
  CHECK(read_pvar(session, posted) == 0 && read_pvar(session, unexpected) == 0);

  std::vector<MPI_Request> requests(kMessages);
  std::vector<int> in(kMessages);
  for (int i = 0; i < kMessages; ++i) {
    MPI_Irecv(&in[static_cast<std::size_t>(i)], 1, MPI_INT, rank, 20 + i, MPI_COMM_WORLD,
              &requests[static_cast<std::size_t>(i)]);
  }
  CHECK(read_pvar(session, posted) == kMessages);
  for (int i = 0; i < kMessages; ++i) MPI_Send(&i, 1, MPI_INT, rank, 20 + i, MPI_COMM_WORLD);
  MPI_Waitall(kMessages, requests.data(), MPI_STATUSES_IGNORE);
  CHECK(read_pvar(session, posted) == 0);

  // Messages to itself with no receive posted wait in the unexpected queue.
  for (int i = 0; i < kMessages; ++i) MPI_Send(&i, 1, MPI_INT, rank, 30 + i, MPI_COMM_WORLD);
  MPI_Status status;
  MPI_Probe(rank, 30 + kMessages - 1, MPI_COMM_WORLD, &status);
  CHECK(read_pvar(session, unexpected) == kMessages);
  for (int i = 0; i < kMessages; ++i) {
    MPI_Recv(&in[static_cast<std::size_t>(i)], 1, MPI_INT, rank, 30 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  CHECK(read_pvar(session, unexpected) == 0);

  // Levels are continuous and read-only.
  unsigned long long value = 0;
  CHECK(MPI_T_pvar_start(session, posted) == MPI_T_ERR_PVAR_NO_STARTSTOP);
  CHECK(MPI_T_pvar_stop(session, posted) == MPI_T_ERR_PVAR_NO_STARTSTOP);
  CHECK(MPI_T_pvar_write(session, posted, &value) == MPI_T_ERR_PVAR_NO_WRITE);
  CHECK(MPI_T_pvar_reset(session, posted) == MPI_T_ERR_PVAR_NO_WRITE);
  CHECK(MPI_T_pvar_readreset(session, posted, &value) == MPI_T_ERR_PVAR_NO_WRITE);
  CHECK(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_handle_free(session, &posted) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_session_free(&session) == MPI_SUCCESS);

  if (rank + 1 < size) {
    MPI_Send(&token, 1, MPI_INT, rank + 1, kTurnTag, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, size - 1, kDoneTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    for (int other = 0; other + 1 < size; ++other) MPI_Send(&token, 1, MPI_INT, other, kDoneTag, MPI_COMM_WORLD);
  }
}

void check_source_and_events() {
  int num = 0;
  CHECK(MPI_T_source_get_num(&num) == MPI_SUCCESS && num == 1);
  char name[64];
  int name_len = sizeof(name);
  MPI_T_source_order ordering = MPI_T_SOURCE_UNORDERED;
  MPI_Count ticks = 0, max_ticks = 0;
  MPI_Info info = 12345;
  CHECK(MPI_T_source_get_info(0, name, &name_len, nullptr, nullptr, &ordering, &ticks, &max_ticks, &info) ==
        MPI_SUCCESS);
  CHECK(ordering == MPI_T_SOURCE_ORDERED && ticks == 1000000000 && max_ticks > 0 && info == MPI_INFO_NULL);
  MPI_Count first = 0, second = 0;
  CHECK(MPI_T_source_get_timestamp(0, &first) == MPI_SUCCESS);
  const double start = MPI_Wtime();
  while (MPI_Wtime() - start < 0.001) {
  }
  CHECK(MPI_T_source_get_timestamp(0, &second) == MPI_SUCCESS && second - first >= 1000000);
  CHECK(MPI_T_source_get_timestamp(1, &first) == MPI_T_ERR_INVALID_INDEX);
  CHECK(MPI_T_source_get_info(-1, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) ==
        MPI_T_ERR_INVALID_INDEX);

  CHECK(MPI_T_event_get_num(&num) == MPI_SUCCESS && num == 0);
  CHECK(MPI_T_event_get_info(0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                             nullptr, nullptr) == MPI_T_ERR_INVALID_INDEX);
  int index = -1;
  CHECK(MPI_T_event_get_index("tern_event", &index) == MPI_T_ERR_INVALID_NAME);
  MPI_T_event_registration registration = MPI_T_EVENT_REGISTRATION_NULL;
  CHECK(MPI_T_event_handle_alloc(0, nullptr, MPI_INFO_NULL, &registration) == MPI_T_ERR_INVALID_INDEX);
  CHECK(MPI_T_event_handle_set_info(registration, MPI_INFO_NULL) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_event_handle_get_info(registration, &info) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_event_register_callback(registration, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, nullptr, nullptr) ==
        MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_event_callback_set_info(registration, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL) ==
        MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_event_callback_get_info(registration, MPI_T_CB_REQUIRE_NONE, &info) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_event_set_dropped_handler(registration, nullptr) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_event_handle_free(registration, nullptr, nullptr) == MPI_T_ERR_INVALID_HANDLE);
  char buffer[16];
  CHECK(MPI_T_event_read(0, 0, buffer) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_event_copy(0, buffer) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_event_get_timestamp(0, &first) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_event_get_source(0, &index) == MPI_T_ERR_INVALID_HANDLE);
}

void check_error_classes() {
  const int classes[] = {MPI_T_ERR_MEMORY,          MPI_T_ERR_NOT_INITIALIZED,   MPI_T_ERR_CANNOT_INIT,
                         MPI_T_ERR_INVALID_INDEX,   MPI_T_ERR_INVALID_ITEM,      MPI_T_ERR_INVALID_HANDLE,
                         MPI_T_ERR_OUT_OF_HANDLES,  MPI_T_ERR_OUT_OF_SESSIONS,   MPI_T_ERR_INVALID_SESSION,
                         MPI_T_ERR_CVAR_SET_NOT_NOW, MPI_T_ERR_CVAR_SET_NEVER,   MPI_T_ERR_PVAR_NO_STARTSTOP,
                         MPI_T_ERR_PVAR_NO_WRITE,   MPI_T_ERR_PVAR_NO_ATOMIC,    MPI_T_ERR_INVALID_NAME,
                         MPI_T_ERR_INVALID,         MPI_T_ERR_NOT_SUPPORTED};
  for (int error : classes) {
    int error_class = -1;
    CHECK(MPI_Error_class(error, &error_class) == MPI_SUCCESS && error_class == error);
    CHECK(error > MPI_SUCCESS && error <= MPI_ERR_LASTCODE);
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    CHECK(MPI_Error_string(error, text, &length) == MPI_SUCCESS && std::strncmp(text, "MPI_T_ERR_", 10) == 0);
  }
  // User classes come after them.
  int user_class = 0;
  CHECK(MPI_Add_error_class(&user_class) == MPI_SUCCESS && user_class > MPI_T_ERR_NOT_SUPPORTED);
}

}  // namespace

int main(int argc, char** argv) {
  check_setup_before_init();
  MPI_Init(&argc, &argv);
  check_cvars();
  check_enums();
  check_pvar_info();
  check_categories();
  check_counters();
  check_levels();
  check_source_and_events();
  check_error_classes();

  // Counters outlive MPI: a started handle keeps what it counted.
  MPI_T_pvar_session session = MPI_T_PVAR_SESSION_NULL;
  MPI_T_pvar_handle sent = MPI_T_PVAR_HANDLE_NULL;
  int count = 0;
  CHECK(MPI_T_pvar_session_create(&session) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_handle_alloc(session, pvar_index("tern_messages_sent", MPI_T_PVAR_CLASS_COUNTER), nullptr, &sent,
                                &count) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_start(session, sent) == MPI_SUCCESS);
  ring_exchange(3, 40);
  const unsigned long long before = read_pvar(session, sent);
  CHECK(before == 3);
  const int result = tern::mpi_test::conclude("mpi_tool");
  MPI_Finalize();

  // After MPI_Finalize the interface still answers (failures: exit status).
  const int failures_before = tern::mpi_test::failures;
  CHECK(read_pvar(session, sent) >= before);
  CHECK(read_size_cvar("TERN_SPIN_COUNT") == 4321);
  CHECK(MPI_T_pvar_session_free(&session) == MPI_SUCCESS);
  CHECK(MPI_T_finalize() == MPI_SUCCESS);
  int num = 0;
  CHECK(MPI_T_cvar_get_num(&num) == MPI_T_ERR_NOT_INITIALIZED);
  if (tern::mpi_test::failures != failures_before) {
    std::fprintf(stderr, "mpi_tool: %d checks after MPI_Finalize failed\n", tern::mpi_test::failures - failures_before);
    return 1;
  }
  return result;
}
