// MPI 4 sessions over the World model: a session is a handle with an error
// handler and a thread level; the first one starts MPI when MPI_Init has
// not, and the last one ends it then. Its process sets are the job
// ("mpi://WORLD") and the process itself ("mpi://SELF");
// MPI_Comm_create_from_group is in comm/agreement.cpp.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>

#include "comm/group.hpp"
#include "errors/user_errors.hpp"
#include "info/info.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

struct Session {
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  int thread_level = MPI_THREAD_SINGLE;
};

struct Sessions {
  HandleTable<Session, 8> table;
  std::mutex mutex;  // the two fields below
  int open = 0;
  bool started_mpi = false;  // the first session called MPI_Init_thread
};
Sessions g_sessions;

constexpr const char* kThreadLevels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                         "MPI_THREAD_MULTIPLE"};
constexpr const char* kWorld = "mpi://WORLD";
constexpr const char* kSelf = "mpi://SELF";
constexpr const char* kPsets[] = {kWorld, kSelf};

// Errors go to the session's handler (null session: MPI_ERRORS_ARE_FATAL,
// as for errors before any session exists).
int raise_session(MPI_Session handle, const Session* session, int error_class, const char* function,
                  const char* format, ...) __attribute__((format(printf, 5, 6)));
int raise_session(MPI_Session handle, const Session* session, int error_class, const char* function,
                  const char* format, ...) {
  const MPI_Errhandler handler = session != nullptr ? session->errhandler : MPI_ERRORS_ARE_FATAL;
  if (handler == MPI_ERRORS_RETURN) return error_class;
  if (call_user_errhandler(handler, handle, error_class)) return error_class;
  char detail[384];
  va_list args;
  va_start(args, format);
  std::vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  // The communicator path prints and aborts; a stand-in carries the handler there.
  static Comm fatal;
  fatal.errhandler = handler;
  return raise(&fatal, error_class, function, "%s", detail);
}

int find_session_checked(const char* function, MPI_Session handle, Session*& session) {
  if (g_state == nullptr) return not_initialized(function);
  session = g_sessions.table.find(handle);
  if (session == nullptr) return raise_session(handle, nullptr, MPI_ERR_ARG, function, "invalid session %d", handle);
  return MPI_SUCCESS;
}

// The job ranks of a process set; false for a name that is none.
bool pset_members(const char* name, std::vector<unsigned>& members) {
  members.clear();
  if (std::strcmp(name, kWorld) == 0) {
    for (unsigned r = 0; r < g_state->job->size(); ++r) members.push_back(r);
    return true;
  }
  if (std::strcmp(name, kSelf) == 0) {
    members.push_back(my_job_rank());
    return true;
  }
  return false;
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  constexpr const char* kFunction = "MPI_Session_init";
  if (session == nullptr) return raise_session(0, nullptr, MPI_ERR_ARG, kFunction, "null session argument");
  InfoEntries hints;
  if (info != MPI_INFO_NULL && !info_entries(info, hints)) {
    return raise_session(0, nullptr, MPI_ERR_INFO, kFunction, "invalid info object %d", info);
  }
  // MPI_ERRHANDLER_NULL: the default, as for MPI_Init's communicators.
  if (errhandler == MPI_ERRHANDLER_NULL) errhandler = MPI_ERRORS_ARE_FATAL;
  if (!errhandler_accepts(errhandler, ErrhandlerKind::Session)) {
    return raise_session(0, nullptr, MPI_ERR_ERRHANDLER, kFunction, "invalid error handler %d", errhandler);
  }
  int level = MPI_THREAD_SINGLE;
  for (const auto& [key, value] : hints) {
    if (key != "thread_level") continue;
    for (int l = 0; l < 4; ++l) {
      if (value == kThreadLevels[l]) level = l;
    }
  }
  {
    std::lock_guard<std::mutex> lock(g_sessions.mutex);
    if (g_state == nullptr) {
      int provided = 0;
      if (int err = PMPI_Init_thread(nullptr, nullptr, level, &provided); err != MPI_SUCCESS) return err;
      g_sessions.started_mpi = true;
    }
    ++g_sessions.open;
  }
  auto object = std::make_unique<Session>();
  object->errhandler = errhandler;
  object->thread_level = std::min(level, g_state->thread_level);
  *session = g_sessions.table.add(object);
  if (*session == MPI_SESSION_NULL) {
    return raise_session(0, nullptr, MPI_ERR_NO_MEM, kFunction, "out of session handles");
  }
  return MPI_SUCCESS;
}

int PMPI_Session_finalize(MPI_Session* session) {
  constexpr const char* kFunction = "MPI_Session_finalize";
  if (session == nullptr) return raise_session(0, nullptr, MPI_ERR_ARG, kFunction, "null session argument");
  Session* object = nullptr;
  if (int err = find_session_checked(kFunction, *session, object); err != MPI_SUCCESS) return err;
  g_sessions.table.remove(*session);
  *session = MPI_SESSION_NULL;
  std::lock_guard<std::mutex> lock(g_sessions.mutex);
  if (--g_sessions.open == 0 && g_sessions.started_mpi) {
    g_sessions.started_mpi = false;
    return PMPI_Finalize();
  }
  return MPI_SUCCESS;
}

int PMPI_Session_get_info(MPI_Session handle, MPI_Info* info_used) {
  constexpr const char* kFunction = "MPI_Session_get_info";
  Session* session = nullptr;
  if (int err = find_session_checked(kFunction, handle, session); err != MPI_SUCCESS) return err;
  if (info_used == nullptr) return raise_session(handle, session, MPI_ERR_ARG, kFunction, "null info_used argument");
  *info_used = make_info(InfoEntries{{"thread_level", kThreadLevels[session->thread_level]}});
  if (*info_used == MPI_INFO_NULL) return raise_session(handle, session, MPI_ERR_NO_MEM, kFunction, "out of info objects");
  return MPI_SUCCESS;
}

int PMPI_Session_get_num_psets(MPI_Session handle, MPI_Info info, int* npset_names) {
  constexpr const char* kFunction = "MPI_Session_get_num_psets";
  Session* session = nullptr;
  if (int err = find_session_checked(kFunction, handle, session); err != MPI_SUCCESS) return err;
  (void)info;  // no hints select process sets
  if (npset_names == nullptr) return raise_session(handle, session, MPI_ERR_ARG, kFunction, "null npset_names");
  *npset_names = static_cast<int>(std::size(kPsets));
  return MPI_SUCCESS;
}

int PMPI_Session_get_nth_pset(MPI_Session handle, MPI_Info info, int n, int* pset_len, char* pset_name) {
  constexpr const char* kFunction = "MPI_Session_get_nth_pset";
  Session* session = nullptr;
  if (int err = find_session_checked(kFunction, handle, session); err != MPI_SUCCESS) return err;
  (void)info;
  if (n < 0 || n >= static_cast<int>(std::size(kPsets))) {
    return raise_session(handle, session, MPI_ERR_ARG, kFunction, "no process set %d (there are %zu)", n,
                         std::size(kPsets));
  }
  if (pset_len == nullptr || *pset_len < 0 || (*pset_len > 0 && pset_name == nullptr)) {
    return raise_session(handle, session, MPI_ERR_ARG, kFunction, "invalid pset_len or pset_name");
  }
  const std::size_t length = std::strlen(kPsets[n]);
  if (*pset_len == 0) {
    *pset_len = static_cast<int>(length + 1);
    return MPI_SUCCESS;
  }
  const std::size_t copied = std::min(length, static_cast<std::size_t>(*pset_len) - 1);
  std::memcpy(pset_name, kPsets[n], copied);
  pset_name[copied] = '\0';
  return MPI_SUCCESS;
}

int PMPI_Session_get_pset_info(MPI_Session handle, const char* pset_name, MPI_Info* info) {
  constexpr const char* kFunction = "MPI_Session_get_pset_info";
  Session* session = nullptr;
  if (int err = find_session_checked(kFunction, handle, session); err != MPI_SUCCESS) return err;
  std::vector<unsigned> members;
  if (pset_name == nullptr || info == nullptr || !pset_members(pset_name, members)) {
    return raise_session(handle, session, MPI_ERR_ARG, kFunction, "unknown process set or null argument");
  }
  *info = make_info(InfoEntries{{"mpi_size", std::to_string(members.size())}});
  if (*info == MPI_INFO_NULL) return raise_session(handle, session, MPI_ERR_NO_MEM, kFunction, "out of info objects");
  return MPI_SUCCESS;
}

int PMPI_Group_from_session_pset(MPI_Session handle, const char* pset_name, MPI_Group* newgroup) {
  constexpr const char* kFunction = "MPI_Group_from_session_pset";
  Session* session = nullptr;
  if (int err = find_session_checked(kFunction, handle, session); err != MPI_SUCCESS) return err;
  std::vector<unsigned> members;
  if (pset_name == nullptr || newgroup == nullptr || !pset_members(pset_name, members)) {
    return raise_session(handle, session, MPI_ERR_ARG, kFunction, "unknown process set or null argument");
  }
  *newgroup = make_group(std::move(members));
  if (*newgroup == MPI_GROUP_NULL) return raise_session(handle, session, MPI_ERR_NO_MEM, kFunction, "out of groups");
  return MPI_SUCCESS;
}

int PMPI_Session_set_errhandler(MPI_Session handle, MPI_Errhandler errhandler) {
  constexpr const char* kFunction = "MPI_Session_set_errhandler";
  Session* session = nullptr;
  if (int err = find_session_checked(kFunction, handle, session); err != MPI_SUCCESS) return err;
  if (!errhandler_accepts(errhandler, ErrhandlerKind::Session)) {
    return raise_session(handle, session, MPI_ERR_ERRHANDLER, kFunction, "invalid error handler %d", errhandler);
  }
  session->errhandler = errhandler;
  return MPI_SUCCESS;
}

int PMPI_Session_get_errhandler(MPI_Session handle, MPI_Errhandler* errhandler) {
  constexpr const char* kFunction = "MPI_Session_get_errhandler";
  Session* session = nullptr;
  if (int err = find_session_checked(kFunction, handle, session); err != MPI_SUCCESS) return err;
  if (errhandler == nullptr) return raise_session(handle, session, MPI_ERR_ARG, kFunction, "null errhandler");
  *errhandler = session->errhandler;
  errhandler_retain(*errhandler);
  return MPI_SUCCESS;
}

int PMPI_Session_call_errhandler(MPI_Session handle, int errorcode) {
  constexpr const char* kFunction = "MPI_Session_call_errhandler";
  Session* session = nullptr;
  if (int err = find_session_checked(kFunction, handle, session); err != MPI_SUCCESS) return err;
  (void)raise_session(handle, session, errorcode, kFunction, "error %d raised by the program", errorcode);
  return MPI_SUCCESS;
}

MPI_Fint PMPI_Session_c2f(MPI_Session session) { return session; }
MPI_Session PMPI_Session_f2c(MPI_Fint session) { return session; }

#pragma weak MPI_Session_init = PMPI_Session_init
#pragma weak MPI_Session_finalize = PMPI_Session_finalize
#pragma weak MPI_Session_get_info = PMPI_Session_get_info
#pragma weak MPI_Session_get_num_psets = PMPI_Session_get_num_psets
#pragma weak MPI_Session_get_nth_pset = PMPI_Session_get_nth_pset
#pragma weak MPI_Session_get_pset_info = PMPI_Session_get_pset_info
#pragma weak MPI_Group_from_session_pset = PMPI_Group_from_session_pset
#pragma weak MPI_Session_set_errhandler = PMPI_Session_set_errhandler
#pragma weak MPI_Session_get_errhandler = PMPI_Session_get_errhandler
#pragma weak MPI_Session_call_errhandler = PMPI_Session_call_errhandler
#pragma weak MPI_Session_c2f = PMPI_Session_c2f
#pragma weak MPI_Session_f2c = PMPI_Session_f2c

}  // extern "C"
