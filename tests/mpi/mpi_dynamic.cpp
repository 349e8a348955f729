// Dynamic processes on 1 to 4 ranks. MPI_Comm_get_parent gives
// MPI_COMM_NULL (no Tern process is spawned); MPI_Comm_disconnect of a
// dup'd communicator with point-to-point and a non-blocking collective
// still in flight completes them, then frees it; the calls Tern refuses
// raise their error class through the communicator's handler (here
// MPI_ERRORS_RETURN) and the job goes on: spawn (MPI_ERR_SPAWN, with
// array_of_errcodes filled), ports and names (MPI_ERR_UNSUPPORTED_OPERATION),
// and their bad arguments (MPI_ERR_ROOT, MPI_ERR_PORT, MPI_ERR_NAME, ...).
#include <vector>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

void parent() {
  MPI_Comm parent = 12345;
  CHECK(MPI_Comm_get_parent(&parent) == MPI_SUCCESS && parent == MPI_COMM_NULL);
  CHECK(MPI_Comm_get_parent(nullptr) == MPI_ERR_ARG);
}

void disconnect() {
  MPI_Comm dup = MPI_COMM_NULL;
  CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  // 1 MiB each way (a rendezvous) and an allreduce, none waited for.
  const int count = 1 << 18;
  std::vector<int> out(count, rank + 1), in(count, -1);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Request requests[3];
  CHECK(MPI_Irecv(in.data(), count, MPI_INT, prev, 3, dup, &requests[0]) == MPI_SUCCESS);
  CHECK(MPI_Isend(out.data(), count, MPI_INT, next, 3, dup, &requests[1]) == MPI_SUCCESS);
  int one = 1, sum = 0;
  CHECK(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup, &requests[2]) == MPI_SUCCESS);
  CHECK(MPI_Comm_disconnect(&dup) == MPI_SUCCESS && dup == MPI_COMM_NULL);
  // Done by then: the data is there before any wait.
  CHECK(in.front() == prev + 1 && in.back() == prev + 1 && sum == size);
  int flag = 0;
  CHECK(MPI_Testall(3, requests, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS && flag == 1);

  // A communicator without traffic, and the refused ones.
  MPI_Comm quiet = MPI_COMM_NULL;
  CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &quiet) == MPI_SUCCESS);
  CHECK(MPI_Comm_disconnect(&quiet) == MPI_SUCCESS && quiet == MPI_COMM_NULL);
  MPI_Comm world = MPI_COMM_WORLD;
  CHECK(MPI_Comm_disconnect(&world) == MPI_ERR_COMM && world == MPI_COMM_WORLD);
  MPI_Comm null = MPI_COMM_NULL;
  CHECK(MPI_Comm_disconnect(&null) == MPI_ERR_COMM);
  CHECK(MPI_Comm_disconnect(nullptr) == MPI_ERR_ARG);
}

void spawn() {
  char command[] = "worker";
  char arg[] = "-x";
  char* args[] = {arg, nullptr};
  std::vector<int> codes(3, MPI_SUCCESS);
  MPI_Comm inter = 777;
  CHECK(MPI_Comm_spawn(command, args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes.data()) == MPI_ERR_SPAWN);
  CHECK(inter == MPI_COMM_NULL);
  if (rank == 0) CHECK(codes[0] == MPI_ERR_SPAWN && codes[1] == MPI_ERR_SPAWN && codes[2] == MPI_ERR_SPAWN);
  inter = 777;
  CHECK(MPI_Comm_spawn(command, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE) ==
        MPI_ERR_SPAWN);
  CHECK(inter == MPI_COMM_NULL);
  int error_class = -1;
  CHECK(MPI_Error_class(MPI_ERR_SPAWN, &error_class) == MPI_SUCCESS && error_class == MPI_ERR_SPAWN);
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  CHECK(MPI_Error_string(MPI_ERR_SPAWN, text, &length) == MPI_SUCCESS && length > 0);

  // Arguments are checked first.
  CHECK(MPI_Comm_spawn(command, args, 1, MPI_INFO_NULL, size, MPI_COMM_WORLD, &inter, codes.data()) == MPI_ERR_ROOT);
  CHECK(MPI_Comm_spawn(command, args, 1, MPI_INFO_NULL, 0, MPI_COMM_NULL, &inter, codes.data()) == MPI_ERR_COMM);
  CHECK(MPI_Comm_spawn(command, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, nullptr, codes.data()) == MPI_ERR_ARG);
  CHECK(MPI_Comm_spawn(nullptr, args, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, codes.data()) == MPI_ERR_ARG);
  CHECK(MPI_Comm_spawn(command, args, 1, 4000, 0, MPI_COMM_SELF, &inter, codes.data()) == MPI_ERR_INFO);

  char* commands[] = {command, command};
  char** argvs[] = {args, MPI_ARGV_NULL};
  const int maxprocs[] = {1, 2};
  const MPI_Info infos[] = {MPI_INFO_NULL, MPI_INFO_NULL};
  codes.assign(3, MPI_SUCCESS);
  CHECK(MPI_Comm_spawn_multiple(2, commands, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &inter, codes.data()) ==
        MPI_ERR_SPAWN);
  if (rank == 0) CHECK(codes[0] == MPI_ERR_SPAWN && codes[2] == MPI_ERR_SPAWN);
  CHECK(MPI_Comm_spawn_multiple(2, commands, MPI_ARGVS_NULL, maxprocs, infos, 0, MPI_COMM_WORLD, &inter,
                                MPI_ERRCODES_IGNORE) == MPI_ERR_SPAWN);
  CHECK(MPI_Comm_spawn_multiple(0, commands, argvs, maxprocs, infos, 0, MPI_COMM_SELF, &inter, codes.data()) ==
        MPI_ERR_ARG);
}

void ports_and_names() {
  char port[MPI_MAX_PORT_NAME] = "x";
  CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(MPI_Close_port("tern-port") == MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(MPI_Close_port(nullptr) == MPI_ERR_PORT);
  MPI_Comm newcomm = 777;
  CHECK(MPI_Comm_accept("tern-port", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &newcomm) == MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(newcomm == MPI_COMM_NULL);
  newcomm = 777;
  CHECK(MPI_Comm_connect("tern-port", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &newcomm) == MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(newcomm == MPI_COMM_NULL);
  CHECK(MPI_Comm_connect(nullptr, MPI_INFO_NULL, 0, MPI_COMM_SELF, &newcomm) == MPI_ERR_PORT);
  CHECK(MPI_Comm_accept("tern-port", MPI_INFO_NULL, -1, MPI_COMM_WORLD, &newcomm) == MPI_ERR_ROOT);
  CHECK(MPI_Comm_join(0, &newcomm) == MPI_ERR_UNSUPPORTED_OPERATION && newcomm == MPI_COMM_NULL);
  CHECK(MPI_Publish_name("service", MPI_INFO_NULL, "tern-port") == MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(MPI_Lookup_name("service", MPI_INFO_NULL, port) == MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(MPI_Unpublish_name("service", MPI_INFO_NULL, "tern-port") == MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(MPI_Publish_name(nullptr, MPI_INFO_NULL, "tern-port") == MPI_ERR_SERVICE);
  CHECK(MPI_Lookup_name(nullptr, MPI_INFO_NULL, port) == MPI_ERR_NAME);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  parent();
  disconnect();
  spawn();
  ports_and_names();
  // The job goes on after every refusal.
  int sum = 0;
  CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS &&
        sum == size * (size - 1) / 2);
  const int rc = tern::mpi_test::conclude("mpi_dynamic");
  MPI_Finalize();
  return rc;
}
