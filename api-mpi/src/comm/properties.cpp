// What a communicator carries besides its ranks: its name, its hints
// (MPI_Comm_set_info, kept as given), and whether it is an
// intercommunicator (comm/intercomm.cpp makes those).
#include <cstring>

#include "comm/comm.hpp"
#include "info/info.hpp"
#include "state.hpp"

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Comm_test_inter(MPI_Comm handle, int* flag) {
  constexpr const char* kFunction = "MPI_Comm_test_inter";
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (flag == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null flag argument");
  *flag = comm->inter ? 1 : 0;
  return MPI_SUCCESS;
}

int PMPI_Comm_set_name(MPI_Comm handle, const char* name) {
  constexpr const char* kFunction = "MPI_Comm_set_name";
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (name == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null name argument");
  // Longer names are cut to what MPI_Comm_get_name can return.
  StateGuard guard(*g_state);
  comm->name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

int PMPI_Comm_get_name(MPI_Comm handle, char* name, int* resultlen) {
  constexpr const char* kFunction = "MPI_Comm_get_name";
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (name == nullptr || resultlen == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null name or resultlen");
  StateGuard guard(*g_state);
  std::memcpy(name, comm->name.c_str(), comm->name.size() + 1);
  *resultlen = static_cast<int>(comm->name.size());
  return MPI_SUCCESS;
}

int PMPI_Comm_set_info(MPI_Comm handle, MPI_Info info) {
  constexpr const char* kFunction = "MPI_Comm_set_info";
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  InfoEntries entries;
  if (info != MPI_INFO_NULL && !info_entries(info, entries)) {
    return raise(comm, MPI_ERR_INFO, kFunction, "invalid info object %d", info);
  }
  if (int err = check_comm_hints(comm, kFunction, entries); err != MPI_SUCCESS) return err;
  StateGuard guard(*g_state);
  merge_info(comm->info, entries);
  adopt_comm_hints(*comm);
  return MPI_SUCCESS;
}

int PMPI_Comm_get_info(MPI_Comm handle, MPI_Info* info_used) {
  constexpr const char* kFunction = "MPI_Comm_get_info";
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  if (info_used == nullptr) return raise(comm, MPI_ERR_ARG, kFunction, "null info_used argument");
  InfoEntries entries;
  {
    StateGuard guard(*g_state);
    entries = comm->info;
  }
  *info_used = make_info(std::move(entries));
  if (*info_used == MPI_INFO_NULL) return raise(comm, MPI_ERR_NO_MEM, kFunction, "out of info objects");
  return MPI_SUCCESS;
}

// A duplicate with `info`'s hints instead of the parent's (none for
// MPI_INFO_NULL, which every info argument accepts as no hints).
int PMPI_Comm_dup_with_info(MPI_Comm handle, MPI_Info info, MPI_Comm* newcomm) {
  constexpr const char* kFunction = "MPI_Comm_dup_with_info";
  Comm* comm = nullptr;
  if (int err = find_comm_checked(kFunction, handle, comm); err != MPI_SUCCESS) return err;
  InfoEntries entries;
  if (info != MPI_INFO_NULL && !info_entries(info, entries)) {
    return raise(comm, MPI_ERR_INFO, kFunction, "invalid info object %d", info);
  }
  if (int err = check_comm_hints(comm, kFunction, entries); err != MPI_SUCCESS) return err;
  if (int err = PMPI_Comm_dup(handle, newcomm); err != MPI_SUCCESS) return err;
  StateGuard guard(*g_state);
  Comm* copy = find_comm(*newcomm);
  copy->info = std::move(entries);
  adopt_comm_hints(*copy);
  return MPI_SUCCESS;
}

#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter
#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info
#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info
#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info

}  // extern "C"
