// MPI_T_pvar_*: the counts the engine keeps anyway (Worker::statistics), as
// performance variables. Nothing is counted for them: the matcher knows its
// queue lengths, each endpoint its sends, the worker the messages it
// dropped. Levels are read as they are; a counter handle counts what
// happened while it was started (or since its last reset or write).
#include <cstring>
#include <map>

#include "state.hpp"
#include "tool/tool.hpp"

namespace tern::mpi::tool {
namespace {

using Statistics = engine::Worker::Statistics;

struct Pvar {
  const char* name;
  int var_class;
  const char* category;
  const char* description;
  uint64_t (*read)(const Statistics& statistics);
};

constexpr Pvar kPvars[] = {
    {"tern_posted_receives", MPI_T_PVAR_CLASS_LEVEL, "tag matching",
     "Receives posted and not matched yet (the matcher's expected queue).",
     [](const Statistics& s) -> uint64_t { return s.posted_receives; }},
    {"tern_unexpected_messages", MPI_T_PVAR_CLASS_LEVEL, "tag matching",
     "Messages arrived that no posted receive matched yet (the matcher's unexpected queue).",
     [](const Statistics& s) -> uint64_t { return s.unexpected_messages; }},
    {"tern_messages_sent", MPI_T_PVAR_CLASS_COUNTER, "messages",
     "Tagged messages this process posted for sending (MPI point-to-point and collective traffic), all transports.",
     [](const Statistics& s) -> uint64_t { return s.sends_self + s.sends_shm + s.sends_tcp + s.sends_verbs; }},
    {"tern_self_messages_sent", MPI_T_PVAR_CLASS_COUNTER, "messages",
     "Tagged messages this process posted for sending to itself (the self transport).",
     [](const Statistics& s) -> uint64_t { return s.sends_self; }},
    {"tern_shm_messages_sent", MPI_T_PVAR_CLASS_COUNTER, "messages",
     "Tagged messages this process posted for sending through shared memory (ranks on its host).",
     [](const Statistics& s) -> uint64_t { return s.sends_shm; }},
    {"tern_tcp_messages_sent", MPI_T_PVAR_CLASS_COUNTER, "messages",
     "Tagged messages this process posted for sending over TCP.",
     [](const Statistics& s) -> uint64_t { return s.sends_tcp; }},
    {"tern_verbs_messages_sent", MPI_T_PVAR_CLASS_COUNTER, "messages",
     "Tagged messages this process posted for sending over RDMA (the verbs transport).",
     [](const Statistics& s) -> uint64_t { return s.sends_verbs; }},
    {"tern_rejected_messages", MPI_T_PVAR_CLASS_COUNTER, "messages",
     "Malformed messages this process received and dropped.",
     [](const Statistics& s) -> uint64_t { return s.rejected_messages; }},
};
constexpr int kPvarCount = static_cast<int>(sizeof(kPvars) / sizeof(kPvars[0]));

// Levels describe the present and cannot be reset; counters count while a
// handle is started.
bool is_level(const Pvar& pvar) { return pvar.var_class == MPI_T_PVAR_CLASS_LEVEL; }

struct PvarHandle {
  MPI_T_pvar_session session = MPI_T_PVAR_SESSION_NULL;
  int pvar = 0;
  bool started = false;
  uint64_t counted = 0;  // counters: the value up to `since`
  uint64_t since = 0;    // counters, while started: the source's value when counting resumed
};

std::map<MPI_T_pvar_session, bool> g_sessions;  // the sessions that exist
std::map<MPI_T_pvar_handle, PvarHandle> g_pvar_handles;
// The worker's counts as MPI_Finalize left them: the counters' values after
// it (levels are 0 then: no queue is left).
Statistics g_retired;
bool g_have_retired = false;

Statistics current_statistics() {
  if (g_state != nullptr && g_state->worker != nullptr) return g_state->worker->statistics();
  Statistics now = g_have_retired ? g_retired : Statistics{};
  now.posted_receives = 0;
  now.unexpected_messages = 0;
  return now;
}

uint64_t value_of(const PvarHandle& handle, const Statistics& now) {
  const Pvar& pvar = kPvars[handle.pvar];
  const uint64_t source = pvar.read(now);
  if (is_level(pvar)) return source;
  return handle.started ? handle.counted + (source - handle.since) : handle.counted;
}

void set_value(PvarHandle& handle, const Statistics& now, uint64_t value) {
  handle.counted = value;
  handle.since = kPvars[handle.pvar].read(now);
}

}  // namespace

int pvar_count() { return kPvarCount; }
const char* pvar_category(int pvar_index) { return kPvars[pvar_index].category; }

void drop_pvar_sessions() {
  g_pvar_handles.clear();
  g_sessions.clear();
}

void retire_worker(engine::Worker& worker) {
  Call call("MPI_Finalize");
  g_retired = worker.statistics();
  g_have_retired = true;
}

namespace {

// The handle `handle` of `session`, or null after logging why.
PvarHandle* find_handle(Call& call, MPI_T_pvar_session session, MPI_T_pvar_handle handle, int& error) {
  if (g_sessions.count(session) == 0) {
    error = call.fail(MPI_T_ERR_INVALID_SESSION, "invalid session %d", session);
    return nullptr;
  }
  const auto found = g_pvar_handles.find(handle);
  if (found == g_pvar_handles.end() || found->second.session != session) {
    error = call.fail(MPI_T_ERR_INVALID_HANDLE, "handle %d is no handle of session %d", handle, session);
    return nullptr;
  }
  return &found->second;
}

int check_session(Call& call, MPI_T_pvar_session session) {
  if (g_sessions.count(session) != 0) return MPI_SUCCESS;
  return call.fail(MPI_T_ERR_INVALID_SESSION, "invalid session %d", session);
}

void store(void* buf, uint64_t value) {
  const unsigned long long out = value;
  std::memcpy(buf, &out, sizeof(out));
}

// Applies `action` to the counter `handle` of `session`, or to every counter
// of the session (MPI_T_PVAR_ALL_HANDLES, which passes over the levels); a
// level named alone is refused with `level_error`.
template <typename Action>
int for_counters(Call& call, MPI_T_pvar_session session, MPI_T_pvar_handle handle, int level_error,
                 const char* level_text, Action&& action) {
  if (handle == MPI_T_PVAR_ALL_HANDLES) {
    if (int err = check_session(call, session); err != MPI_SUCCESS) return err;
    for (auto& [id, entry] : g_pvar_handles) {
      if (entry.session == session && !is_level(kPvars[entry.pvar])) action(entry);
    }
    return MPI_SUCCESS;
  }
  int error = MPI_SUCCESS;
  PvarHandle* entry = find_handle(call, session, handle, error);
  if (entry == nullptr) return error;
  if (is_level(kPvars[entry->pvar])) return call.fail(level_error, "%s is %s", kPvars[entry->pvar].name, level_text);
  action(*entry);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace tern::mpi::tool

using namespace tern::mpi;
using namespace tern::mpi::tool;

extern "C" {

int PMPI_T_pvar_get_num(int* num_pvar) {
  Call call("MPI_T_pvar_get_num");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (num_pvar == nullptr) return call.fail(MPI_T_ERR_INVALID, "null num_pvar argument");
  *num_pvar = kPvarCount;
  return MPI_SUCCESS;
}

int PMPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
                         MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind,
                         int* readonly, int* continuous, int* atomic) {
  Call call("MPI_T_pvar_get_info");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (pvar_index < 0 || pvar_index >= kPvarCount) {
    return call.fail(MPI_T_ERR_INVALID_INDEX, "pvar_index %d outside 0..%d", pvar_index, kPvarCount - 1);
  }
  const Pvar& pvar = kPvars[pvar_index];
  if (int err = copy_string(call, "name", pvar.name, name, name_len); err != MPI_SUCCESS) return err;
  if (int err = copy_string(call, "desc", pvar.description, desc, desc_len); err != MPI_SUCCESS) return err;
  if (verbosity != nullptr) *verbosity = MPI_T_VERBOSITY_TUNER_BASIC;
  if (var_class != nullptr) *var_class = pvar.var_class;
  if (datatype != nullptr) *datatype = MPI_UNSIGNED_LONG_LONG;
  if (enumtype != nullptr) *enumtype = MPI_T_ENUM_NULL;
  if (bind != nullptr) *bind = MPI_T_BIND_NO_OBJECT;
  if (readonly != nullptr) *readonly = is_level(pvar);
  if (continuous != nullptr) *continuous = is_level(pvar);
  // A counter's read and reset use one snapshot of the source.
  if (atomic != nullptr) *atomic = !is_level(pvar);
  return MPI_SUCCESS;
}

int PMPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  Call call("MPI_T_pvar_get_index");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (name == nullptr || pvar_index == nullptr) return call.fail(MPI_T_ERR_INVALID, "null name or pvar_index");
  for (int index = 0; index < kPvarCount; ++index) {
    if (kPvars[index].var_class == var_class && std::strcmp(kPvars[index].name, name) == 0) {
      *pvar_index = index;
      return MPI_SUCCESS;
    }
  }
  return call.fail(MPI_T_ERR_INVALID_NAME, "no performance variable of class %d is named '%s'", var_class, name);
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  Call call("MPI_T_pvar_session_create");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (session == nullptr) return call.fail(MPI_T_ERR_INVALID, "null session argument");
  const int id = next_handle();
  if (id == 0) return call.fail(MPI_T_ERR_OUT_OF_SESSIONS, "no session values left");
  g_sessions.emplace(id, true);
  *session = id;
  return MPI_SUCCESS;
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  Call call("MPI_T_pvar_session_free");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (session == nullptr) return call.fail(MPI_T_ERR_INVALID, "null session argument");
  if (int err = check_session(call, *session); err != MPI_SUCCESS) return err;
  std::erase_if(g_pvar_handles, [&](const auto& entry) { return entry.second.session == *session; });
  g_sessions.erase(*session);
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void* obj_handle,
                             MPI_T_pvar_handle* handle, int* count) {
  Call call("MPI_T_pvar_handle_alloc");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  (void)obj_handle;  // every variable is bound to no object
  if (int err = check_session(call, session); err != MPI_SUCCESS) return err;
  if (pvar_index < 0 || pvar_index >= kPvarCount) {
    return call.fail(MPI_T_ERR_INVALID_INDEX, "pvar_index %d outside 0..%d", pvar_index, kPvarCount - 1);
  }
  if (handle == nullptr || count == nullptr) return call.fail(MPI_T_ERR_INVALID, "null handle or count argument");
  const int id = next_handle();
  if (id == 0) return call.fail(MPI_T_ERR_OUT_OF_HANDLES, "no handle values left");
  PvarHandle entry;
  entry.session = session;
  entry.pvar = pvar_index;
  entry.started = is_level(kPvars[pvar_index]);  // continuous
  set_value(entry, current_statistics(), 0);
  g_pvar_handles.emplace(id, entry);
  *handle = id;
  *count = 1;
  return MPI_SUCCESS;
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  Call call("MPI_T_pvar_handle_free");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (handle == nullptr) return call.fail(MPI_T_ERR_INVALID, "null handle argument");
  int error = MPI_SUCCESS;
  if (find_handle(call, session, *handle, error) == nullptr) return error;
  g_pvar_handles.erase(*handle);
  *handle = MPI_T_PVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  Call call("MPI_T_pvar_start");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  const Statistics now = current_statistics();
  return for_counters(call, session, handle, MPI_T_ERR_PVAR_NO_STARTSTOP, "continuous", [&](PvarHandle& entry) {
    if (entry.started) return;
    set_value(entry, now, entry.counted);
    entry.started = true;
  });
}

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  Call call("MPI_T_pvar_stop");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  const Statistics now = current_statistics();
  return for_counters(call, session, handle, MPI_T_ERR_PVAR_NO_STARTSTOP, "continuous", [&](PvarHandle& entry) {
    entry.counted = value_of(entry, now);
    entry.started = false;
  });
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  Call call("MPI_T_pvar_read");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  int error = MPI_SUCCESS;
  PvarHandle* entry = find_handle(call, session, handle, error);
  if (entry == nullptr) return error;
  if (buf == nullptr) return call.fail(MPI_T_ERR_INVALID, "null buf argument");
  store(buf, value_of(*entry, current_statistics()));
  return MPI_SUCCESS;
}

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf) {
  Call call("MPI_T_pvar_write");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  int error = MPI_SUCCESS;
  PvarHandle* entry = find_handle(call, session, handle, error);
  if (entry == nullptr) return error;
  if (is_level(kPvars[entry->pvar])) {
    return call.fail(MPI_T_ERR_PVAR_NO_WRITE, "%s is read-only", kPvars[entry->pvar].name);
  }
  if (buf == nullptr) return call.fail(MPI_T_ERR_INVALID, "null buf argument");
  unsigned long long value = 0;
  std::memcpy(&value, buf, sizeof(value));
  set_value(*entry, current_statistics(), value);
  return MPI_SUCCESS;
}

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  Call call("MPI_T_pvar_reset");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  const Statistics now = current_statistics();
  return for_counters(call, session, handle, MPI_T_ERR_PVAR_NO_WRITE, "read-only",
                      [&](PvarHandle& entry) { set_value(entry, now, 0); });
}

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  Call call("MPI_T_pvar_readreset");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  int error = MPI_SUCCESS;
  PvarHandle* entry = find_handle(call, session, handle, error);
  if (entry == nullptr) return error;
  if (is_level(kPvars[entry->pvar])) {
    return call.fail(MPI_T_ERR_PVAR_NO_WRITE, "%s is read-only", kPvars[entry->pvar].name);
  }
  if (buf == nullptr) return call.fail(MPI_T_ERR_INVALID, "null buf argument");
  const Statistics now = current_statistics();
  store(buf, value_of(*entry, now));
  set_value(*entry, now, 0);
  return MPI_SUCCESS;
}

}  // extern "C"

#pragma weak MPI_T_pvar_get_num = PMPI_T_pvar_get_num
#pragma weak MPI_T_pvar_get_info = PMPI_T_pvar_get_info
#pragma weak MPI_T_pvar_get_index = PMPI_T_pvar_get_index
#pragma weak MPI_T_pvar_session_create = PMPI_T_pvar_session_create
#pragma weak MPI_T_pvar_session_free = PMPI_T_pvar_session_free
#pragma weak MPI_T_pvar_handle_alloc = PMPI_T_pvar_handle_alloc
#pragma weak MPI_T_pvar_handle_free = PMPI_T_pvar_handle_free
#pragma weak MPI_T_pvar_start = PMPI_T_pvar_start
#pragma weak MPI_T_pvar_stop = PMPI_T_pvar_stop
#pragma weak MPI_T_pvar_read = PMPI_T_pvar_read
#pragma weak MPI_T_pvar_write = PMPI_T_pvar_write
#pragma weak MPI_T_pvar_reset = PMPI_T_pvar_reset
#pragma weak MPI_T_pvar_readreset = PMPI_T_pvar_readreset
