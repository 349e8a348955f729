// Generalized requests (MPI_Grequest_start/complete) on 1 and 2 ranks:
// completion from the same thread and from another thread while the main
// thread waits in MPI_Wait and MPI_Waitall (beside a real receive); the
// status query_fn fills reaching the wait's status (MPI_SOURCE, MPI_TAG,
// MPI_Get_count, MPI_Test_cancelled); query_fn before free_fn, each once;
// MPI_Request_get_status, MPI_Test, MPI_Waitany and MPI_Testsome on them;
// MPI_Cancel's cancel_fn told whether the request is complete; free_fn's
// time when MPI_Request_free comes before and after MPI_Grequest_complete;
// and the callbacks' error codes returned by the calls (MPI_ERR_IN_STATUS
// in the array forms, the code in the request's status).
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "check.hpp"

namespace {

struct Operation {
  std::string log;  // q: query_fn, f: free_fn, c0/c1: cancel_fn (complete)
  int source = 5;
  int tag = 77;
  int elements = 3;
  bool cancelled = false;
  int query_error = MPI_SUCCESS;
  int free_error = MPI_SUCCESS;
  int cancel_error = MPI_SUCCESS;
};

int query(void* extra_state, MPI_Status* status) {
  auto* op = static_cast<Operation*>(extra_state);
  op->log += "q";
  status->MPI_SOURCE = op->source;
  status->MPI_TAG = op->tag;
  MPI_Status_set_elements(status, MPI_INT, op->elements);
  MPI_Status_set_cancelled(status, op->cancelled ? 1 : 0);
  return op->query_error;
}

int release(void* extra_state) {
  auto* op = static_cast<Operation*>(extra_state);
  op->log += "f";
  return op->free_error;
}

int cancel(void* extra_state, int complete) {
  auto* op = static_cast<Operation*>(extra_state);
  op->log += complete ? "c1" : "c0";
  op->cancelled = true;
  return op->cancel_error;
}

MPI_Request start(Operation& op) {
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(MPI_Grequest_start(query, release, cancel, &op, &request) == MPI_SUCCESS && request != MPI_REQUEST_NULL);
  return request;
}

void same_thread() {
  Operation op;
  MPI_Request request = start(op);
  int flag = 1;
  MPI_Status status;
  CHECK(MPI_Test(&request, &flag, &status) == MPI_SUCCESS && flag == 0 && request != MPI_REQUEST_NULL);
  CHECK(MPI_Request_get_status(request, &flag, &status) == MPI_SUCCESS && flag == 0);
  CHECK(op.log.empty());
  CHECK(MPI_Grequest_complete(request) == MPI_SUCCESS);
  // get_status asks query_fn and leaves the request.
  CHECK(MPI_Request_get_status(request, &flag, &status) == MPI_SUCCESS && flag == 1 && status.MPI_TAG == 77);
  CHECK(op.log == "q" && request != MPI_REQUEST_NULL);
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS && request == MPI_REQUEST_NULL);
  CHECK(op.log == "qqf");
  int count = -1, cancelled = -1;
  CHECK(status.MPI_SOURCE == 5 && status.MPI_TAG == 77);
  CHECK(MPI_Get_count(&status, MPI_INT, &count) == MPI_SUCCESS && count == 3);
  CHECK(MPI_Test_cancelled(&status, &cancelled) == MPI_SUCCESS && cancelled == 0);
  // Completing twice, or a request that is not generalized, is refused.
  CHECK(MPI_Grequest_complete(request) == MPI_ERR_REQUEST);
  CHECK(MPI_Grequest_start(nullptr, release, cancel, &op, &request) == MPI_ERR_ARG);

  // MPI_Test completes it once MPI_Grequest_complete was called; the status
  // ignored, query_fn still runs.
  Operation op2;
  request = start(op2);
  CHECK(MPI_Grequest_complete(request) == MPI_SUCCESS);
  CHECK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag == 1 && request == MPI_REQUEST_NULL);
  CHECK(op2.log == "qf");
}

void other_thread(int rank, int size) {
  // MPI_Wait sleeps until another thread completes the request.
  Operation op;
  op.tag = 1234;
  MPI_Request request = start(op);
  std::atomic<bool> completed{false};
  const auto begin = std::chrono::steady_clock::now();
  std::thread completer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    completed.store(true);
    CHECK(MPI_Grequest_complete(request) == MPI_SUCCESS);
  });
  MPI_Status status;
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  completer.join();
  CHECK(completed.load() && waited >= 0.19 && waited < 10);
  CHECK(status.MPI_TAG == 1234 && op.log == "qf");

  // MPI_Waitall over a generalized request and a receive from the peer.
  Operation op2;
  MPI_Request requests[2] = {start(op2), MPI_REQUEST_NULL};
  const int peer = (rank + 1) % size;
  int got = -1;
  CHECK(MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, 9, MPI_COMM_WORLD, &requests[1]) == MPI_SUCCESS);
  const MPI_Request generalized = requests[0];
  std::thread later([generalized] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(MPI_Grequest_complete(generalized) == MPI_SUCCESS);
  });
  CHECK(MPI_Send(&rank, 1, MPI_INT, peer, 9, MPI_COMM_WORLD) == MPI_SUCCESS);
  MPI_Status statuses[2];
  CHECK(MPI_Waitall(2, requests, statuses) == MPI_SUCCESS);
  later.join();
  CHECK(requests[0] == MPI_REQUEST_NULL && requests[1] == MPI_REQUEST_NULL);
  CHECK(got == (rank + size - 1) % size && statuses[0].MPI_TAG == 77 && statuses[1].MPI_TAG == 9);
  CHECK(op2.log == "qf");
}

void array_forms() {
  Operation a, b;
  MPI_Request requests[3] = {start(a), MPI_REQUEST_NULL, start(b)};
  int outcount = -1, indices[3], index = -1, flag = 1;
  MPI_Status statuses[3];
  CHECK(MPI_Testsome(3, requests, &outcount, indices, statuses) == MPI_SUCCESS && outcount == 0);
  CHECK(MPI_Testany(3, requests, &index, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag == 0);
  CHECK(MPI_Grequest_complete(requests[2]) == MPI_SUCCESS);
  MPI_Status status;
  CHECK(MPI_Waitany(3, requests, &index, &status) == MPI_SUCCESS && index == 2 && requests[2] == MPI_REQUEST_NULL);
  CHECK(b.log == "qf" && a.log.empty());
  CHECK(MPI_Grequest_complete(requests[0]) == MPI_SUCCESS);
  CHECK(MPI_Testsome(3, requests, &outcount, indices, statuses) == MPI_SUCCESS && outcount == 1 && indices[0] == 0);
  CHECK(a.log == "qf" && statuses[0].MPI_SOURCE == 5);
}

void cancel_and_free() {
  // Cancel before completion: complete = false; the status says cancelled.
  Operation op;
  MPI_Request request = start(op);
  CHECK(MPI_Cancel(&request) == MPI_SUCCESS && op.log == "c0");
  CHECK(MPI_Grequest_complete(request) == MPI_SUCCESS);
  MPI_Status status;
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS);
  int cancelled = 0;
  CHECK(MPI_Test_cancelled(&status, &cancelled) == MPI_SUCCESS && cancelled == 1 && op.log == "c0qf");
  // After completion: complete = true.
  Operation done;
  request = start(done);
  CHECK(MPI_Grequest_complete(request) == MPI_SUCCESS);
  CHECK(MPI_Cancel(&request) == MPI_SUCCESS && done.log == "c1");
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS && done.log == "c1qf");

  // MPI_Request_free before completion: free_fn at MPI_Grequest_complete,
  // and no query_fn.
  Operation early;
  request = start(early);
  const MPI_Request kept = request;
  CHECK(MPI_Request_free(&request) == MPI_SUCCESS && request == MPI_REQUEST_NULL && early.log.empty());
  CHECK(MPI_Grequest_complete(kept) == MPI_SUCCESS && early.log == "f");
  // After completion: free_fn in MPI_Request_free.
  Operation late;
  request = start(late);
  CHECK(MPI_Grequest_complete(request) == MPI_SUCCESS && late.log.empty());
  CHECK(MPI_Request_free(&request) == MPI_SUCCESS && request == MPI_REQUEST_NULL && late.log == "f");
}

void callback_errors() {
  // query_fn's error is the wait's; free_fn still runs.
  Operation bad_query;
  bad_query.query_error = MPI_ERR_OTHER;
  MPI_Request request = start(bad_query);
  CHECK(MPI_Grequest_complete(request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_ERR_OTHER && bad_query.log == "qf");
  // free_fn's too.
  Operation bad_free;
  bad_free.free_error = MPI_ERR_INTERN;
  request = start(bad_free);
  CHECK(MPI_Grequest_complete(request) == MPI_SUCCESS);
  int flag = 0;
  CHECK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE) == MPI_ERR_INTERN && flag == 1);
  // cancel_fn's is MPI_Cancel's.
  Operation bad_cancel;
  bad_cancel.cancel_error = MPI_ERR_ARG;
  request = start(bad_cancel);
  CHECK(MPI_Cancel(&request) == MPI_ERR_ARG);
  CHECK(MPI_Grequest_complete(request) == MPI_SUCCESS && MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  // The array forms: MPI_ERR_IN_STATUS, the code in the request's status.
  Operation good, failing;
  failing.query_error = MPI_ERR_OTHER;
  MPI_Request requests[2] = {start(good), start(failing)};
  CHECK(MPI_Grequest_complete(requests[0]) == MPI_SUCCESS && MPI_Grequest_complete(requests[1]) == MPI_SUCCESS);
  MPI_Status statuses[2];
  CHECK(MPI_Waitall(2, requests, statuses) == MPI_ERR_IN_STATUS);
  CHECK(statuses[0].MPI_ERROR == MPI_SUCCESS && statuses[1].MPI_ERROR == MPI_ERR_OTHER);
  CHECK(good.log == "qf" && failing.log == "qf");
  // A user error code from the callback comes back as it is.
  int user_class = 0, user_code = 0;
  CHECK(MPI_Add_error_class(&user_class) == MPI_SUCCESS && MPI_Add_error_code(user_class, &user_code) == MPI_SUCCESS);
  Operation custom;
  custom.query_error = user_code;
  request = start(custom);
  CHECK(MPI_Grequest_complete(request) == MPI_SUCCESS);
  CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == user_code);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(provided == MPI_THREAD_MULTIPLE);
  same_thread();
  other_thread(rank, size);
  array_forms();
  cancel_and_free();
  callback_errors();
  const int rc = tern::mpi_test::conclude("mpi_grequest");
  MPI_Finalize();
  return rc;
}
