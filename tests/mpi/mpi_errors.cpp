// Error classes under MPI_ERRORS_RETURN: each invalid argument gives its
// class, the call does nothing, and the job goes on.
#include <vector>

#include "check.hpp"

namespace {

int class_of(int code) {
  int error_class = -1;
  MPI_Error_class(code, &error_class);
  return error_class;
}

}  // namespace

namespace {

void sum_ints(void* in, void* inout, int* count, MPI_Datatype*) {
  for (int i = 0; i < *count; ++i) static_cast<int*>(inout)[i] += static_cast<int*>(in)[i];
}

// A handle kept after its object was freed names nothing, even once a new
// object took the freed one's place: each call refuses it.
void check_stale_handles() {
  CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
  int value = 0;
  int n = 0;

  MPI_Request first = MPI_REQUEST_NULL;
  CHECK(MPI_Irecv(&value, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &first) == MPI_SUCCESS);
  MPI_Request stale = first;
  int sent = 11;
  CHECK(MPI_Send(&sent, 1, MPI_INT, 0, 5, MPI_COMM_SELF) == MPI_SUCCESS);
  CHECK(MPI_Wait(&first, MPI_STATUS_IGNORE) == MPI_SUCCESS && value == 11);
  MPI_Request second = MPI_REQUEST_NULL;
  CHECK(MPI_Irecv(&value, 1, MPI_INT, 0, 6, MPI_COMM_SELF, &second) == MPI_SUCCESS);
  CHECK(class_of(MPI_Wait(&stale, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST);
  CHECK(class_of(MPI_Request_free(&stale)) == MPI_ERR_REQUEST);
  sent = 12;
  CHECK(MPI_Send(&sent, 1, MPI_INT, 0, 6, MPI_COMM_SELF) == MPI_SUCCESS);
  CHECK(MPI_Wait(&second, MPI_STATUS_IGNORE) == MPI_SUCCESS && value == 12);

  MPI_Comm comm = MPI_COMM_NULL;
  CHECK(MPI_Comm_dup(MPI_COMM_SELF, &comm) == MPI_SUCCESS);
  const MPI_Comm stale_comm = comm;
  CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS);
  CHECK(MPI_Comm_dup(MPI_COMM_SELF, &comm) == MPI_SUCCESS);
  CHECK(class_of(MPI_Comm_size(stale_comm, &n)) == MPI_ERR_COMM);
  CHECK(MPI_Comm_size(comm, &n) == MPI_SUCCESS && n == 1);
  CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS);

  MPI_Datatype type = MPI_DATATYPE_NULL;
  CHECK(MPI_Type_contiguous(2, MPI_INT, &type) == MPI_SUCCESS);
  const MPI_Datatype stale_type = type;
  CHECK(MPI_Type_free(&type) == MPI_SUCCESS);
  CHECK(MPI_Type_contiguous(3, MPI_INT, &type) == MPI_SUCCESS);
  CHECK(class_of(MPI_Type_size(stale_type, &n)) == MPI_ERR_TYPE);
  MPI_Datatype stale_copy = stale_type;
  CHECK(class_of(MPI_Type_free(&stale_copy)) == MPI_ERR_TYPE);
  CHECK(MPI_Type_size(type, &n) == MPI_SUCCESS && n == 3 * static_cast<int>(sizeof(int)));
  CHECK(MPI_Type_free(&type) == MPI_SUCCESS);

  MPI_Group group = MPI_GROUP_NULL;
  CHECK(MPI_Comm_group(MPI_COMM_WORLD, &group) == MPI_SUCCESS);
  const MPI_Group stale_group = group;
  CHECK(MPI_Group_free(&group) == MPI_SUCCESS);
  CHECK(MPI_Comm_group(MPI_COMM_WORLD, &group) == MPI_SUCCESS);
  CHECK(class_of(MPI_Group_size(stale_group, &n)) == MPI_ERR_GROUP);
  CHECK(MPI_Group_free(&group) == MPI_SUCCESS);

  MPI_Op op = MPI_OP_NULL;
  CHECK(MPI_Op_create(&sum_ints, 1, &op) == MPI_SUCCESS);
  const MPI_Op stale_op = op;
  CHECK(MPI_Op_free(&op) == MPI_SUCCESS);
  CHECK(MPI_Op_create(&sum_ints, 1, &op) == MPI_SUCCESS);
  int in = 2;
  int out = 0;
  CHECK(class_of(MPI_Allreduce(&in, &out, 1, MPI_INT, stale_op, MPI_COMM_SELF)) == MPI_ERR_OP);
  CHECK(MPI_Allreduce(&in, &out, 1, MPI_INT, op, MPI_COMM_SELF) == MPI_SUCCESS && out == 2);
  CHECK(MPI_Op_free(&op) == MPI_SUCCESS);

  MPI_Message message = MPI_MESSAGE_NULL;
  CHECK(MPI_Send(&sent, 1, MPI_INT, 0, 7, MPI_COMM_SELF) == MPI_SUCCESS);
  CHECK(MPI_Mprobe(0, 7, MPI_COMM_SELF, &message, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  MPI_Message stale_message = message;
  CHECK(MPI_Mrecv(&value, 1, MPI_INT, &message, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  sent = 13;
  CHECK(MPI_Send(&sent, 1, MPI_INT, 0, 7, MPI_COMM_SELF) == MPI_SUCCESS);
  CHECK(MPI_Mprobe(0, 7, MPI_COMM_SELF, &message, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(class_of(MPI_Mrecv(&value, 1, MPI_INT, &stale_message, MPI_STATUS_IGNORE)) == MPI_ERR_ARG);
  CHECK(MPI_Mrecv(&value, 1, MPI_INT, &message, MPI_STATUS_IGNORE) == MPI_SUCCESS && value == 13);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &handler);
  CHECK(handler == MPI_ERRORS_RETURN);

  int value = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  CHECK(class_of(MPI_Send(&value, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD)) == MPI_ERR_RANK);
  CHECK(class_of(MPI_Send(&value, 1, MPI_INT, -5, 0, MPI_COMM_WORLD)) == MPI_ERR_RANK);
  CHECK(class_of(MPI_Recv(&value, 1, MPI_INT, size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)) == MPI_ERR_RANK);
  CHECK(class_of(MPI_Isend(&value, 1, MPI_INT, 0, -1, MPI_COMM_WORLD, &request)) == MPI_ERR_TAG);
  CHECK(class_of(MPI_Send(&value, 1, MPI_INT, 0, 1 << 23, MPI_COMM_WORLD)) == MPI_ERR_TAG);
  CHECK(class_of(MPI_Irecv(&value, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, &request)) == MPI_ERR_TAG);
  CHECK(class_of(MPI_Send(&value, -1, MPI_INT, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
  CHECK(class_of(MPI_Recv(&value, -2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)) == MPI_ERR_COUNT);
  CHECK(class_of(MPI_Send(&value, 1, 9999, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_TYPE);
  CHECK(class_of(MPI_Send(&value, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_TYPE);
  // An invalid communicator has no handler of its own: MPI_COMM_WORLD's applies.
  CHECK(class_of(MPI_Send(&value, 1, MPI_INT, 0, 0, 777)) == MPI_ERR_COMM);
  CHECK(class_of(MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_NULL)) == MPI_ERR_COMM);
  CHECK(class_of(MPI_Comm_size(12345, &value)) == MPI_ERR_COMM);
  MPI_Comm world = MPI_COMM_WORLD;
  CHECK(class_of(MPI_Comm_free(&world)) == MPI_ERR_COMM);
  request = 424242;
  CHECK(class_of(MPI_Wait(&request, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST);
  CHECK(class_of(MPI_Bcast(&value, 1, MPI_INT, size, MPI_COMM_WORLD)) == MPI_ERR_ROOT);
  CHECK(class_of(MPI_Allreduce(&value, &rank, 1, MPI_INT, 99, MPI_COMM_WORLD)) == MPI_ERR_OP);
  double d = 1;
  double e = 0;
  CHECK(class_of(MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD)) == MPI_ERR_OP);
  int* attribute = nullptr;
  int flag = 0;
  CHECK(class_of(MPI_Comm_get_attr(MPI_COMM_WORLD, 4242, &attribute, &flag)) == MPI_ERR_KEYVAL);
  CHECK(class_of(MPI_Comm_set_errhandler(MPI_COMM_WORLD, 55)) == MPI_ERR_ERRHANDLER);

  check_stale_handles();

  // The job still works after all that.
  int total = 0;
  int one = 1;
  CHECK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(total == size);
  const int code = tern::mpi_test::conclude("mpi_errors");
  MPI_Finalize();
  return code;
}
