// MPI 4 sessions without MPI_Init: process sets, groups from them,
// communicators from groups (string tags), the session's error handler, and
// a second session beside the first.
#include <cstring>
#include <string>

#include "check.hpp"

namespace {

int session_calls = 0;
MPI_Session session_seen = MPI_SESSION_NULL;
int code_seen = MPI_SUCCESS;

void on_session(MPI_Session* session, int* code, ...) {
  ++session_calls;
  session_seen = *session;
  code_seen = *code;
}

std::string nth_pset(MPI_Session session, int n) {
  int length = 0;
  CHECK(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, n, &length, nullptr) == MPI_SUCCESS);
  CHECK(length > 1 && length <= MPI_MAX_PSET_NAME_LEN);
  std::string name(static_cast<std::size_t>(length), '\0');
  CHECK(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, n, &length, name.data()) == MPI_SUCCESS);
  name.resize(std::strlen(name.c_str()));
  return name;
}

// A communicator of process set `pset`; checks its size against the set's info.
MPI_Comm comm_of(MPI_Session session, const char* pset, const char* tag) {
  MPI_Info info = MPI_INFO_NULL;
  CHECK(MPI_Session_get_pset_info(session, pset, &info) == MPI_SUCCESS);
  char value[64] = {};
  int flag = 0;
  CHECK(MPI_Info_get(info, "mpi_size", sizeof(value) - 1, value, &flag) == MPI_SUCCESS && flag == 1);
  CHECK(MPI_Info_free(&info) == MPI_SUCCESS);
  MPI_Group group = MPI_GROUP_NULL;
  CHECK(MPI_Group_from_session_pset(session, pset, &group) == MPI_SUCCESS);
  int group_size = 0;
  CHECK(MPI_Group_size(group, &group_size) == MPI_SUCCESS && group_size == std::atoi(value));
  MPI_Comm comm = MPI_COMM_NULL;
  CHECK(MPI_Comm_create_from_group(group, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm) == MPI_SUCCESS);
  CHECK(MPI_Group_free(&group) == MPI_SUCCESS);
  int size = 0;
  CHECK(MPI_Comm_size(comm, &size) == MPI_SUCCESS && size == group_size);
  return comm;
}

}  // namespace

int main() {
  MPI_Session session = MPI_SESSION_NULL;
  MPI_Info hints = MPI_INFO_NULL;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "thread_level", "MPI_THREAD_SINGLE");
  CHECK(MPI_Session_init(hints, MPI_ERRORS_RETURN, &session) == MPI_SUCCESS);
  MPI_Info_free(&hints);

  int count = 0;
  CHECK(MPI_Session_get_num_psets(session, MPI_INFO_NULL, &count) == MPI_SUCCESS && count >= 2);
  bool world_found = false;
  bool self_found = false;
  for (int n = 0; n < count; ++n) {
    const std::string name = nth_pset(session, n);
    world_found = world_found || name == "mpi://WORLD";
    self_found = self_found || name == "mpi://SELF";
  }
  CHECK(world_found && self_found);

  MPI_Comm world = comm_of(session, "mpi://WORLD", "tern.sessions.world");
  int rank = -1, size = 0;
  CHECK(MPI_Comm_rank(world, &rank) == MPI_SUCCESS && MPI_Comm_size(world, &size) == MPI_SUCCESS);
  int sum = 0;
  CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, world) == MPI_SUCCESS && sum == size * (size - 1) / 2);
  // The communicator's handler is the one given: errors return.
  int value = 0;
  CHECK(MPI_Send(&value, 1, MPI_INT, size + 1, 0, world) != MPI_SUCCESS);

  MPI_Comm self = comm_of(session, "mpi://SELF", "tern.sessions.self");
  int self_size = 0;
  CHECK(MPI_Comm_size(self, &self_size) == MPI_SUCCESS && self_size == 1);

  // Two communicators of one set with different tags are separate.
  MPI_Comm second = comm_of(session, "mpi://WORLD", "tern.sessions.second");
  const int right = (rank + 1) % size;
  const int left = (rank + size - 1) % size;
  int got[2] = {-1, -1};
  MPI_Request requests[4];
  MPI_Irecv(&got[0], 1, MPI_INT, left, 1, world, &requests[0]);
  MPI_Irecv(&got[1], 1, MPI_INT, left, 1, second, &requests[1]);
  int sent[2] = {rank, rank + 100};
  MPI_Isend(&sent[1], 1, MPI_INT, right, 1, second, &requests[2]);
  MPI_Isend(&sent[0], 1, MPI_INT, right, 1, world, &requests[3]);
  CHECK(MPI_Waitall(4, requests, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
  CHECK(got[0] == left && got[1] == left + 100);

  // A session's own handler.
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  CHECK(MPI_Session_create_errhandler(&on_session, &handler) == MPI_SUCCESS);
  CHECK(MPI_Session_set_errhandler(session, handler) == MPI_SUCCESS);
  MPI_Errhandler got_handler = MPI_ERRHANDLER_NULL;
  CHECK(MPI_Session_get_errhandler(session, &got_handler) == MPI_SUCCESS && got_handler == handler);
  CHECK(MPI_Errhandler_free(&got_handler) == MPI_SUCCESS);
  CHECK(MPI_Errhandler_free(&handler) == MPI_SUCCESS);
  CHECK(MPI_Session_call_errhandler(session, MPI_ERR_OTHER) == MPI_SUCCESS);
  CHECK(session_calls == 1 && session_seen == session && code_seen == MPI_ERR_OTHER);

  // A second session beside the first; finalizing it leaves the first working.
  MPI_Session other = MPI_SESSION_NULL;
  CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &other) == MPI_SUCCESS);
  MPI_Comm third = comm_of(other, "mpi://WORLD", "tern.sessions.other");
  CHECK(MPI_Comm_free(&third) == MPI_SUCCESS);
  CHECK(MPI_Session_finalize(&other) == MPI_SUCCESS && other == MPI_SESSION_NULL);

  int failures = tern::mpi_test::failures;
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, world);
  if (rank == 0) {
    if (total == 0) {
      std::printf("mpi_sessions: PASS on %d ranks\n", size);
    } else {
      std::printf("mpi_sessions: FAIL (%d failed checks)\n", total);
    }
  }
  MPI_Comm_free(&second);
  MPI_Comm_free(&self);
  MPI_Comm_free(&world);
  CHECK(MPI_Session_finalize(&session) == MPI_SUCCESS);
  return total == 0 ? 0 : 1;
}
