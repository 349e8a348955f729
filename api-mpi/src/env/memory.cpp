// MPI_Alloc_mem/MPI_Free_mem over the engine's mem_alloc (memory that local
// peers map, so a rendezvous from or into it is one memcpy), and MPI_Get_elements.
#include "state.hpp"

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  constexpr const char* kFunction = "MPI_Alloc_mem";
  (void)info;  // no hints are recognized
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(size < 0)) return raise(nullptr, MPI_ERR_ARG, kFunction, "invalid size %td", size);
  if (TERN_UNLIKELY(baseptr == nullptr)) return raise(nullptr, MPI_ERR_ARG, kFunction, "null baseptr argument");
  void* memory = g_state->worker->mem_alloc(size == 0 ? 1 : static_cast<std::size_t>(size));
  if (TERN_UNLIKELY(memory == nullptr)) {
    return raise(nullptr, MPI_ERR_NO_MEM, kFunction, "cannot allocate %td bytes", size);
  }
  *static_cast<void**>(baseptr) = memory;
  return MPI_SUCCESS;
}

int PMPI_Free_mem(void* base) {
  constexpr const char* kFunction = "MPI_Free_mem";
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  g_state->worker->mem_free(base);
  return MPI_SUCCESS;
}

int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  return int_query(count, [&](MPI_Count* n) { return elements_query("MPI_Get_elements", status, datatype, n); });
}

#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
#pragma weak MPI_Free_mem = PMPI_Free_mem
#pragma weak MPI_Get_elements = PMPI_Get_elements

}  // extern "C"
