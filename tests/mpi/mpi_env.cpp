// The environment: init and finalize (alone as a singleton, or under
// ternrun), thread levels, queries, attributes, MPI_COMM_SELF and error texts.
#include <cstring>
#include <string>

#include "check.hpp"

int main(int argc, char** argv) {
  int flag = 1;
  MPI_Initialized(&flag);
  CHECK(!flag);
  int provided = -1;
  CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);
  CHECK(provided == MPI_THREAD_MULTIPLE);
  int level = -1;
  MPI_Query_thread(&level);
  CHECK(level == MPI_THREAD_MULTIPLE);
  MPI_Is_thread_main(&flag);
  CHECK(flag);
  MPI_Initialized(&flag);
  CHECK(flag);
  MPI_Finalized(&flag);
  CHECK(!flag);

  int rank = -1, size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(rank >= 0 && rank < size);
  int self_rank = -1, self_size = -1;
  MPI_Comm_rank(MPI_COMM_SELF, &self_rank);
  MPI_Comm_size(MPI_COMM_SELF, &self_size);
  CHECK(self_rank == 0 && self_size == 1);

  const double t0 = MPI_Wtime();
  CHECK(MPI_Wtick() > 0 && MPI_Wtick() < 1e-3);
  CHECK(MPI_Wtime() >= t0);

  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  CHECK(MPI_Get_processor_name(name, &length) == MPI_SUCCESS);
  CHECK(length > 0 && static_cast<int>(std::strlen(name)) == length);
  int version = 0, subversion = -1;
  MPI_Get_version(&version, &subversion);
  CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION);
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  MPI_Get_library_version(library, &length);
  CHECK(std::string(library).find("Tern") != std::string::npos);

  int* tag_ub = nullptr;
  flag = 0;
  CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag) == MPI_SUCCESS);
  CHECK(flag && tag_ub != nullptr && *tag_ub >= 32767);
  int* wtime_global = nullptr;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &wtime_global, &flag);
  CHECK(flag && wtime_global != nullptr);

  // Loopback on MPI_COMM_SELF, with the largest tag.
  double out = 2.5, in = 0;
  MPI_Request request;
  CHECK(MPI_Irecv(&in, 1, MPI_DOUBLE, 0, *tag_ub, MPI_COMM_SELF, &request) == MPI_SUCCESS);
  CHECK(MPI_Send(&out, 1, MPI_DOUBLE, 0, *tag_ub, MPI_COMM_SELF) == MPI_SUCCESS);
  MPI_Status status;
  CHECK(MPI_Wait(&request, &status) == MPI_SUCCESS);
  CHECK(in == 2.5 && status.MPI_SOURCE == 0 && status.MPI_TAG == *tag_ub);

  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &handler);
  CHECK(handler == MPI_ERRORS_ARE_FATAL);
  char text[MPI_MAX_ERROR_STRING];
  CHECK(MPI_Error_string(MPI_ERR_TRUNCATE, text, &length) == MPI_SUCCESS);
  CHECK(std::string(text).find("truncated") != std::string::npos);
  int error_class = -1;
  MPI_Error_class(MPI_ERR_RANK, &error_class);
  CHECK(error_class == MPI_ERR_RANK);
  CHECK(MPI_Comm_c2f(MPI_COMM_WORLD) == MPI_COMM_WORLD && MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_SELF)) == MPI_COMM_SELF);
  CHECK(PMPI_Comm_size(MPI_COMM_WORLD, &size) == MPI_SUCCESS);

  const int code = tern::mpi_test::conclude("mpi_env");
  CHECK(MPI_Finalize() == MPI_SUCCESS);
  MPI_Finalized(&flag);
  // After MPI_Finalize only the two queries may be called.
  if (!flag) {
    std::printf("mpi_env: FAIL (MPI_Finalized false after MPI_Finalize)\n");
    return 1;
  }
  return code;
}
