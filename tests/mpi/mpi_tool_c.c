/* mpi.h's tool interface from C (the standard defines it for C only): the
 * declarations, types and constants compile as C, and a program lists the
 * control variables without MPI being initialized. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  int provided = 0, num = 0, failures = 0;
  if (MPI_T_init_thread(MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS || provided != MPI_THREAD_MULTIPLE) {
    ++failures;
  }
  if (MPI_T_cvar_get_num(&num) != MPI_SUCCESS || num < 1) ++failures;
  for (int i = 0; i < num; ++i) {
    char name[64];
    int name_len = (int)sizeof(name), verbosity = 0, bind = 0, scope = 0;
    MPI_Datatype datatype = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &datatype, &enumtype, NULL, NULL, &bind, &scope) !=
            MPI_SUCCESS ||
        strncmp(name, "TERN_", 5) != 0) {
      ++failures;
    }
  }
  MPI_T_pvar_session session = MPI_T_PVAR_SESSION_NULL;
  MPI_T_source_order ordering = MPI_T_SOURCE_UNORDERED;
  MPI_Count timestamp = 0;
  if (MPI_T_pvar_session_create(&session) != MPI_SUCCESS) ++failures;
  if (MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES) != MPI_SUCCESS) ++failures;
  if (MPI_T_pvar_session_free(&session) != MPI_SUCCESS || session != MPI_T_PVAR_SESSION_NULL) ++failures;
  if (MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, &ordering, NULL, NULL, NULL) != MPI_SUCCESS ||
      ordering != MPI_T_SOURCE_ORDERED) {
    ++failures;
  }
  if (MPI_T_source_get_timestamp(0, &timestamp) != MPI_SUCCESS || timestamp <= 0) ++failures;
  if (MPI_T_event_get_index("none", &num) != MPI_T_ERR_INVALID_NAME) ++failures;
  if (MPI_T_finalize() != MPI_SUCCESS) ++failures;
  if (MPI_T_finalize() != MPI_T_ERR_NOT_INITIALIZED) ++failures;
  if (failures == 0) {
    printf("mpi_tool_c: PASS\n");
  } else {
    printf("mpi_tool_c: FAIL (%d failed checks)\n", failures);
  }
  return failures == 0 ? 0 : 1;
}
