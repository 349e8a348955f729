// Dynamic processes (mpi_dynamic.h). Tern's launcher starts a job's
// processes once, before MPI_Init, and has no way to add processes or to
// connect two jobs afterwards: the calls that would need that check their
// arguments and refuse with an error that says so, through the usual error
// handler, and the job goes on. MPI_Comm_get_parent and MPI_Comm_disconnect
// mean something in a job that never spawned, and work.
#include <vector>

#include "coll/schedule.hpp"
#include "info/info.hpp"
#include "state.hpp"

using namespace tern;
using namespace tern::mpi;

namespace {

constexpr const char* kNoSpawn =
    "Tern starts every process of a job at start-up and none afterwards (the launcher cannot add processes "
    "to a running job)";

bool pending(const RequestSlot& slot) {
  if (slot.persistent && !slot.active) return false;
  if (slot.schedule != nullptr) return !slot.schedule->done();
  return (slot.engine != nullptr && !engine_done(slot.engine)) ||
         (slot.companion != nullptr && !engine_done(slot.companion));
}

// Waits for the requests on `handle` that are still in flight.
void wait_pending(MPI_Comm handle) {
  std::vector<const RequestSlot*> in_flight;
  g_state->requests.for_each_used([&](const RequestSlot& slot) {
    if (slot.comm == handle && pending(slot)) in_flight.push_back(&slot);
  });
  for (const RequestSlot* slot : in_flight) progress_until([slot] { return !pending(*slot); });
}

int check_info(const Comm* comm, const char* function, MPI_Info info, const char* what) {
  InfoEntries entries;
  if (info == MPI_INFO_NULL || info_entries(info, entries)) return MPI_SUCCESS;
  return raise(comm, MPI_ERR_INFO, function, "invalid info object %d (%s)", info, what);
}

// The checks every process of a spawn makes (comm, root, intercomm), and
// MPI_COMM_NULL in *intercomm.
int check_spawn_common(const char* function, MPI_Comm handle, int root, MPI_Comm* intercomm, Comm*& comm) {
  if (int err = find_comm_checked(function, handle, comm); err != MPI_SUCCESS) return err;
  if (int err = check_intracomm(*comm, function); err != MPI_SUCCESS) return err;
  if (root < 0 || root >= comm->size) {
    return raise(comm, MPI_ERR_ROOT, function, "invalid root %d (communicator of size %d)", root, comm->size);
  }
  if (intercomm == nullptr) return raise(comm, MPI_ERR_ARG, function, "null intercomm argument");
  *intercomm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int refuse_spawn(Comm* comm, const char* function, int processes, int array_of_errcodes[]) {
  if (array_of_errcodes != MPI_ERRCODES_IGNORE) {
    for (int i = 0; i < processes; ++i) array_of_errcodes[i] = MPI_ERR_SPAWN;
  }
  return raise(comm, MPI_ERR_SPAWN, function, "%s", kNoSpawn);
}

int refuse(const Comm* comm, const char* function, const char* what) {
  return raise(comm, MPI_ERR_UNSUPPORTED_OPERATION, function,
               "%s is not supported: Tern's processes reach only the job they were started in (%s)", function,
               what);
}

int check_string(const Comm* comm, const char* function, const char* text, const char* name, int error_class) {
  if (text != nullptr) return MPI_SUCCESS;
  return raise(comm, error_class, function, "null %s argument", name);
}

// The checks of MPI_Comm_accept and MPI_Comm_connect before they refuse.
int refuse_port_collective(const char* function, const char* port_name, MPI_Info info, int root, MPI_Comm handle,
                           MPI_Comm* newcomm) {
  Comm* comm = nullptr;
  if (int err = find_comm_checked(function, handle, comm); err != MPI_SUCCESS) return err;
  if (int err = check_intracomm(*comm, function); err != MPI_SUCCESS) return err;
  if (root < 0 || root >= comm->size) {
    return raise(comm, MPI_ERR_ROOT, function, "invalid root %d (communicator of size %d)", root, comm->size);
  }
  if (newcomm == nullptr) return raise(comm, MPI_ERR_ARG, function, "null newcomm argument");
  *newcomm = MPI_COMM_NULL;
  if (comm->rank == root) {
    if (int err = check_string(comm, function, port_name, "port_name", MPI_ERR_PORT); err != MPI_SUCCESS) return err;
    if (int err = check_info(comm, function, info, "info"); err != MPI_SUCCESS) return err;
  }
  return refuse(comm, function, "no port can be opened");
}

}  // namespace

extern "C" {

int PMPI_Comm_get_parent(MPI_Comm* parent) {
  constexpr const char* kFunction = "MPI_Comm_get_parent";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (parent == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null parent argument");
  *parent = MPI_COMM_NULL;  // no process of a Tern job was spawned
  return MPI_SUCCESS;
}

int PMPI_Comm_disconnect(MPI_Comm* handle) {
  constexpr const char* kFunction = "MPI_Comm_disconnect";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (handle == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null comm argument");
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, *handle, comm); err != MPI_SUCCESS) return err;
  if (comm->predefined) {
    return raise(comm, MPI_ERR_COMM, kFunction, "cannot disconnect a predefined communicator (%d)", *handle);
  }
  wait_pending(*handle);
  // Every process has finished its traffic on the communicator once all
  // have come here.
  if (int err = PMPI_Barrier(*handle); err != MPI_SUCCESS) return err;
  return PMPI_Comm_free(handle);
}

int PMPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info info, int root, MPI_Comm handle,
                    MPI_Comm* intercomm, int array_of_errcodes[]) {
  constexpr const char* kFunction = "MPI_Comm_spawn";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  if (int err = check_spawn_common(kFunction, handle, root, intercomm, comm); err != MPI_SUCCESS) return err;
  (void)argv;  // MPI_ARGV_NULL or an array: either is valid
  if (comm->rank == root) {
    if (command == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null command argument");
    if (maxprocs < 0) return raise(comm, MPI_ERR_ARG, kFunction, "invalid maxprocs %d", maxprocs);
    if (int err = check_info(comm, kFunction, info, "info"); err != MPI_SUCCESS) return err;
  }
  return refuse_spawn(comm, kFunction, comm->rank == root ? maxprocs : 0, array_of_errcodes);
}

int PMPI_Comm_spawn_multiple(int count, char* array_of_commands[], char** array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm handle,
                             MPI_Comm* intercomm, int array_of_errcodes[]) {
  constexpr const char* kFunction = "MPI_Comm_spawn_multiple";
  if (g_state == nullptr) return not_initialized(kFunction);
  Comm* comm = nullptr;
  if (int err = check_spawn_common(kFunction, handle, root, intercomm, comm); err != MPI_SUCCESS) return err;
  (void)array_of_argv;  // MPI_ARGVS_NULL or an array: either is valid
  int processes = 0;
  if (comm->rank == root) {
    if (count <= 0) return raise(comm, MPI_ERR_ARG, kFunction, "invalid count %d", count);
    if (array_of_commands == nullptr || array_of_maxprocs == nullptr || array_of_info == nullptr) {
      return raise(comm, MPI_ERR_ARG, kFunction, "null array_of_commands, array_of_maxprocs or array_of_info");
    }
    for (int i = 0; i < count; ++i) {
      if (array_of_commands[i] == nullptr) {
        return raise(comm, MPI_ERR_ARG, kFunction, "null command at index %d", i);
      }
      if (array_of_maxprocs[i] < 0) {
        return raise(comm, MPI_ERR_ARG, kFunction, "invalid maxprocs %d at index %d", array_of_maxprocs[i], i);
      }
      if (int err = check_info(comm, kFunction, array_of_info[i], "array_of_info"); err != MPI_SUCCESS) return err;
      processes += array_of_maxprocs[i];
    }
  }
  return refuse_spawn(comm, kFunction, processes, array_of_errcodes);
}

int PMPI_Open_port(MPI_Info info, char* port_name) {
  constexpr const char* kFunction = "MPI_Open_port";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (int err = check_string(nullptr, kFunction, port_name, "port_name", MPI_ERR_ARG); err != MPI_SUCCESS) return err;
  if (int err = check_info(nullptr, kFunction, info, "info"); err != MPI_SUCCESS) return err;
  port_name[0] = '\0';
  return refuse(nullptr, kFunction, "no other job can connect");
}

int PMPI_Close_port(const char* port_name) {
  constexpr const char* kFunction = "MPI_Close_port";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (int err = check_string(nullptr, kFunction, port_name, "port_name", MPI_ERR_PORT); err != MPI_SUCCESS) {
    return err;
  }
  return refuse(nullptr, kFunction, "no port can be opened");
}

int PMPI_Comm_accept(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
  return refuse_port_collective("MPI_Comm_accept", port_name, info, root, comm, newcomm);
}

int PMPI_Comm_connect(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
  return refuse_port_collective("MPI_Comm_connect", port_name, info, root, comm, newcomm);
}

int PMPI_Comm_join(int fd, MPI_Comm* intercomm) {
  constexpr const char* kFunction = "MPI_Comm_join";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (intercomm == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null intercomm argument");
  *intercomm = MPI_COMM_NULL;
  if (fd < 0) return raise(nullptr, MPI_ERR_ARG, kFunction, "invalid file descriptor %d", fd);
  return refuse(nullptr, kFunction, "no other job can be joined");
}

int PMPI_Publish_name(const char* service_name, MPI_Info info, const char* port_name) {
  constexpr const char* kFunction = "MPI_Publish_name";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (int err = check_string(nullptr, kFunction, service_name, "service_name", MPI_ERR_SERVICE); err != MPI_SUCCESS) {
    return err;
  }
  if (int err = check_string(nullptr, kFunction, port_name, "port_name", MPI_ERR_PORT); err != MPI_SUCCESS) return err;
  if (int err = check_info(nullptr, kFunction, info, "info"); err != MPI_SUCCESS) return err;
  return refuse(nullptr, kFunction, "there is no name service");
}

int PMPI_Lookup_name(const char* service_name, MPI_Info info, char* port_name) {
  constexpr const char* kFunction = "MPI_Lookup_name";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (int err = check_string(nullptr, kFunction, service_name, "service_name", MPI_ERR_NAME); err != MPI_SUCCESS) {
    return err;
  }
  if (port_name == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null port_name argument");
  if (int err = check_info(nullptr, kFunction, info, "info"); err != MPI_SUCCESS) return err;
  port_name[0] = '\0';
  return refuse(nullptr, kFunction, "there is no name service");
}

int PMPI_Unpublish_name(const char* service_name, MPI_Info info, const char* port_name) {
  constexpr const char* kFunction = "MPI_Unpublish_name";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (int err = check_string(nullptr, kFunction, service_name, "service_name", MPI_ERR_SERVICE); err != MPI_SUCCESS) {
    return err;
  }
  if (int err = check_string(nullptr, kFunction, port_name, "port_name", MPI_ERR_PORT); err != MPI_SUCCESS) return err;
  if (int err = check_info(nullptr, kFunction, info, "info"); err != MPI_SUCCESS) return err;
  return refuse(nullptr, kFunction, "there is no name service");
}

#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent
#pragma weak MPI_Comm_disconnect = PMPI_Comm_disconnect
#pragma weak MPI_Comm_spawn = PMPI_Comm_spawn
#pragma weak MPI_Comm_spawn_multiple = PMPI_Comm_spawn_multiple
#pragma weak MPI_Open_port = PMPI_Open_port
#pragma weak MPI_Close_port = PMPI_Close_port
#pragma weak MPI_Comm_accept = PMPI_Comm_accept
#pragma weak MPI_Comm_connect = PMPI_Comm_connect
#pragma weak MPI_Comm_join = PMPI_Comm_join
#pragma weak MPI_Publish_name = PMPI_Publish_name
#pragma weak MPI_Lookup_name = PMPI_Lookup_name
#pragma weak MPI_Unpublish_name = PMPI_Unpublish_name

}  // extern "C"
