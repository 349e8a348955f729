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

  // The job still works after all that.
  int total = 0;
  int one = 1;
  CHECK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(total == size);
  const int code = tern::mpi_test::conclude("mpi_errors");
  MPI_Finalize();
  return code;
}
