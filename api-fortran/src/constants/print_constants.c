/* Writes the Fortran forms of mpi.h's constants, so that they can never
 * differ from the C ones:
 *   print_constants <mpif.h> <tern_mpi_constants.f90> <tern_mpi_f08_constants.f90>
 * mpif.h is fixed form (and valid free form), for `include 'mpif.h'`; the
 * two modules back `use mpi` (every handle an integer) and `use mpi_f08`
 * (handles of the types type(MPI_Comm), ...). */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A Fortran status holds a C status's bytes; its first three integers are
 * MPI_SOURCE, MPI_TAG and MPI_ERROR. */
_Static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "status size");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == 0, "MPI_SOURCE first");
_Static_assert(offsetof(MPI_Status, MPI_TAG) == sizeof(MPI_Fint), "MPI_TAG second");
_Static_assert(offsetof(MPI_Status, MPI_ERROR) == 2 * sizeof(MPI_Fint), "MPI_ERROR third");
/* gfortran's default INTEGER, REAL and DOUBLE PRECISION. */
_Static_assert(sizeof(MPI_Fint) == 4 && sizeof(float) == 4 && sizeof(double) == 8, "Fortran default kinds");

struct constant {
  const char *name;
  long long value;
  const char *handle_type; /* NULL for a plain integer, "Offset" for an INTEGER(KIND=MPI_OFFSET_KIND) */
};

#define PLAIN(c) {#c, (long long)(c), NULL}
#define HANDLE(type, c) {#c, (long long)(c), #type}
#define OFFSET(c) {#c, (long long)(c), "Offset"}

static const struct constant constants[] = {
    PLAIN(MPI_VERSION), PLAIN(MPI_SUBVERSION),
    {"MPI_STATUS_SIZE", sizeof(MPI_Status) / sizeof(MPI_Fint), NULL},
    {"MPI_SOURCE", 1, NULL}, {"MPI_TAG", 2, NULL}, {"MPI_ERROR", 3, NULL},
    {"MPI_ADDRESS_KIND", sizeof(MPI_Aint), NULL}, {"MPI_OFFSET_KIND", sizeof(MPI_Offset), NULL},
    {"MPI_COUNT_KIND", sizeof(MPI_Count), NULL}, {"MPI_INTEGER_KIND", sizeof(MPI_Fint), NULL},
    HANDLE(Comm, MPI_COMM_NULL), HANDLE(Comm, MPI_COMM_WORLD), HANDLE(Comm, MPI_COMM_SELF),
    HANDLE(Request, MPI_REQUEST_NULL), HANDLE(Group, MPI_GROUP_NULL), HANDLE(Group, MPI_GROUP_EMPTY),
    HANDLE(Info, MPI_INFO_NULL), HANDLE(Info, MPI_INFO_ENV), HANDLE(Message, MPI_MESSAGE_NULL), HANDLE(Message, MPI_MESSAGE_NO_PROC),
    HANDLE(Errhandler, MPI_ERRHANDLER_NULL), HANDLE(Errhandler, MPI_ERRORS_ARE_FATAL),
    HANDLE(Errhandler, MPI_ERRORS_RETURN), HANDLE(Errhandler, MPI_ERRORS_ABORT),
    HANDLE(Datatype, MPI_DATATYPE_NULL), HANDLE(Datatype, MPI_CHAR), HANDLE(Datatype, MPI_SIGNED_CHAR),
    HANDLE(Datatype, MPI_UNSIGNED_CHAR), HANDLE(Datatype, MPI_BYTE), HANDLE(Datatype, MPI_SHORT),
    HANDLE(Datatype, MPI_UNSIGNED_SHORT), HANDLE(Datatype, MPI_INT), HANDLE(Datatype, MPI_UNSIGNED),
    HANDLE(Datatype, MPI_LONG), HANDLE(Datatype, MPI_UNSIGNED_LONG), HANDLE(Datatype, MPI_LONG_LONG_INT),
    HANDLE(Datatype, MPI_LONG_LONG), HANDLE(Datatype, MPI_UNSIGNED_LONG_LONG), HANDLE(Datatype, MPI_FLOAT),
    HANDLE(Datatype, MPI_DOUBLE), HANDLE(Datatype, MPI_LONG_DOUBLE), HANDLE(Datatype, MPI_WCHAR),
    HANDLE(Datatype, MPI_C_BOOL), HANDLE(Datatype, MPI_INT8_T), HANDLE(Datatype, MPI_INT16_T),
    HANDLE(Datatype, MPI_INT32_T), HANDLE(Datatype, MPI_INT64_T), HANDLE(Datatype, MPI_UINT8_T),
    HANDLE(Datatype, MPI_UINT16_T), HANDLE(Datatype, MPI_UINT32_T), HANDLE(Datatype, MPI_UINT64_T),
    HANDLE(Datatype, MPI_AINT), HANDLE(Datatype, MPI_OFFSET), HANDLE(Datatype, MPI_COUNT),
    HANDLE(Datatype, MPI_PACKED), HANDLE(Datatype, MPI_C_FLOAT_COMPLEX), HANDLE(Datatype, MPI_C_COMPLEX),
    HANDLE(Datatype, MPI_C_DOUBLE_COMPLEX), HANDLE(Datatype, MPI_C_LONG_DOUBLE_COMPLEX),
    HANDLE(Datatype, MPI_CXX_BOOL), HANDLE(Datatype, MPI_CXX_FLOAT_COMPLEX), HANDLE(Datatype, MPI_CXX_DOUBLE_COMPLEX),
    HANDLE(Datatype, MPI_CXX_LONG_DOUBLE_COMPLEX),
    HANDLE(Datatype, MPI_FLOAT_INT), HANDLE(Datatype, MPI_DOUBLE_INT),
    HANDLE(Datatype, MPI_LONG_INT), HANDLE(Datatype, MPI_2INT), HANDLE(Datatype, MPI_SHORT_INT),
    HANDLE(Datatype, MPI_LONG_DOUBLE_INT),
    HANDLE(Datatype, MPI_INTEGER), HANDLE(Datatype, MPI_REAL),
    HANDLE(Datatype, MPI_DOUBLE_PRECISION), HANDLE(Datatype, MPI_COMPLEX),
    HANDLE(Datatype, MPI_DOUBLE_COMPLEX), HANDLE(Datatype, MPI_LOGICAL),
    HANDLE(Datatype, MPI_CHARACTER), HANDLE(Datatype, MPI_2INTEGER),
    HANDLE(Datatype, MPI_INTEGER1), HANDLE(Datatype, MPI_INTEGER2),
    HANDLE(Datatype, MPI_INTEGER4), HANDLE(Datatype, MPI_INTEGER8),
    HANDLE(Datatype, MPI_REAL4), HANDLE(Datatype, MPI_REAL8),
    HANDLE(Datatype, MPI_COMPLEX8), HANDLE(Datatype, MPI_COMPLEX16),
    PLAIN(MPI_TYPECLASS_REAL), PLAIN(MPI_TYPECLASS_INTEGER), PLAIN(MPI_TYPECLASS_COMPLEX),
    HANDLE(Op, MPI_OP_NULL), HANDLE(Op, MPI_MAX), HANDLE(Op, MPI_MIN), HANDLE(Op, MPI_SUM), HANDLE(Op, MPI_PROD),
    HANDLE(Op, MPI_LAND), HANDLE(Op, MPI_BAND), HANDLE(Op, MPI_LOR), HANDLE(Op, MPI_BOR), HANDLE(Op, MPI_LXOR),
    HANDLE(Op, MPI_BXOR), HANDLE(Op, MPI_MAXLOC), HANDLE(Op, MPI_MINLOC),
    PLAIN(MPI_ANY_SOURCE), PLAIN(MPI_PROC_NULL), PLAIN(MPI_ROOT), PLAIN(MPI_ANY_TAG), PLAIN(MPI_UNDEFINED),
    PLAIN(MPI_MAX_PROCESSOR_NAME), PLAIN(MPI_MAX_ERROR_STRING), PLAIN(MPI_MAX_LIBRARY_VERSION_STRING),
    PLAIN(MPI_MAX_OBJECT_NAME), PLAIN(MPI_MAX_INFO_KEY), PLAIN(MPI_MAX_INFO_VAL), PLAIN(MPI_BSEND_OVERHEAD),
    PLAIN(MPI_GRAPH), PLAIN(MPI_CART), PLAIN(MPI_DIST_GRAPH),
    PLAIN(MPI_THREAD_SINGLE), PLAIN(MPI_THREAD_FUNNELED), PLAIN(MPI_THREAD_SERIALIZED), PLAIN(MPI_THREAD_MULTIPLE),
    PLAIN(MPI_IDENT), PLAIN(MPI_CONGRUENT), PLAIN(MPI_SIMILAR), PLAIN(MPI_UNEQUAL),
    PLAIN(MPI_TAG_UB), PLAIN(MPI_HOST), PLAIN(MPI_IO), PLAIN(MPI_WTIME_IS_GLOBAL), PLAIN(MPI_UNIVERSE_SIZE),
    PLAIN(MPI_APPNUM), PLAIN(MPI_LASTUSEDCODE), PLAIN(MPI_KEYVAL_INVALID),
    PLAIN(MPI_COMBINER_NAMED), PLAIN(MPI_COMBINER_DUP), PLAIN(MPI_COMBINER_CONTIGUOUS), PLAIN(MPI_COMBINER_VECTOR),
    PLAIN(MPI_COMBINER_HVECTOR_INTEGER), PLAIN(MPI_COMBINER_HVECTOR), PLAIN(MPI_COMBINER_INDEXED),
    PLAIN(MPI_COMBINER_HINDEXED_INTEGER), PLAIN(MPI_COMBINER_HINDEXED), PLAIN(MPI_COMBINER_INDEXED_BLOCK),
    PLAIN(MPI_COMBINER_HINDEXED_BLOCK), PLAIN(MPI_COMBINER_STRUCT_INTEGER), PLAIN(MPI_COMBINER_STRUCT),
    PLAIN(MPI_COMBINER_SUBARRAY), PLAIN(MPI_COMBINER_DARRAY), PLAIN(MPI_COMBINER_F90_REAL),
    PLAIN(MPI_COMBINER_F90_COMPLEX), PLAIN(MPI_COMBINER_F90_INTEGER), PLAIN(MPI_COMBINER_RESIZED),
    PLAIN(MPI_SUCCESS), PLAIN(MPI_ERR_BUFFER), PLAIN(MPI_ERR_COUNT), PLAIN(MPI_ERR_TYPE), PLAIN(MPI_ERR_TAG),
    PLAIN(MPI_ERR_COMM), PLAIN(MPI_ERR_RANK), PLAIN(MPI_ERR_REQUEST), PLAIN(MPI_ERR_ROOT), PLAIN(MPI_ERR_GROUP),
    PLAIN(MPI_ERR_OP), PLAIN(MPI_ERR_TOPOLOGY), PLAIN(MPI_ERR_DIMS), PLAIN(MPI_ERR_ARG), PLAIN(MPI_ERR_UNKNOWN),
    PLAIN(MPI_ERR_TRUNCATE), PLAIN(MPI_ERR_OTHER), PLAIN(MPI_ERR_INTERN), PLAIN(MPI_ERR_IN_STATUS),
    PLAIN(MPI_ERR_PENDING), PLAIN(MPI_ERR_NO_MEM), PLAIN(MPI_ERR_KEYVAL), PLAIN(MPI_ERR_UNSUPPORTED_OPERATION),
    PLAIN(MPI_ERR_ERRHANDLER), PLAIN(MPI_ERR_INFO), PLAIN(MPI_ERR_INFO_KEY), PLAIN(MPI_ERR_INFO_VALUE),
    PLAIN(MPI_ERR_INFO_NOKEY), PLAIN(MPI_ERR_FILE), PLAIN(MPI_ERR_NOT_SAME), PLAIN(MPI_ERR_AMODE),
    PLAIN(MPI_ERR_UNSUPPORTED_DATAREP), PLAIN(MPI_ERR_NO_SUCH_FILE), PLAIN(MPI_ERR_FILE_EXISTS),
    PLAIN(MPI_ERR_BAD_FILE), PLAIN(MPI_ERR_ACCESS), PLAIN(MPI_ERR_NO_SPACE), PLAIN(MPI_ERR_QUOTA),
    PLAIN(MPI_ERR_READ_ONLY), PLAIN(MPI_ERR_FILE_IN_USE), PLAIN(MPI_ERR_DUP_DATAREP), PLAIN(MPI_ERR_CONVERSION),
    PLAIN(MPI_ERR_IO), PLAIN(MPI_ERR_WIN), PLAIN(MPI_ERR_BASE), PLAIN(MPI_ERR_SIZE), PLAIN(MPI_ERR_DISP),
    PLAIN(MPI_ERR_LOCKTYPE), PLAIN(MPI_ERR_ASSERT), PLAIN(MPI_ERR_RMA_CONFLICT), PLAIN(MPI_ERR_RMA_SYNC),
    PLAIN(MPI_ERR_RMA_RANGE), PLAIN(MPI_ERR_RMA_ATTACH), PLAIN(MPI_ERR_RMA_SHARED), PLAIN(MPI_ERR_RMA_FLAVOR),
    PLAIN(MPI_ERR_VALUE_TOO_LARGE), PLAIN(MPI_ERR_SPAWN), PLAIN(MPI_ERR_PORT),
    PLAIN(MPI_ERR_SERVICE), PLAIN(MPI_ERR_NAME), PLAIN(MPI_ERR_LASTCODE), PLAIN(MPI_MAX_PORT_NAME),
    HANDLE(File, MPI_FILE_NULL), PLAIN(MPI_ORDER_C), PLAIN(MPI_ORDER_FORTRAN), PLAIN(MPI_MODE_CREATE),
    PLAIN(MPI_MODE_RDONLY), PLAIN(MPI_MODE_WRONLY), PLAIN(MPI_MODE_RDWR), PLAIN(MPI_MODE_DELETE_ON_CLOSE),
    PLAIN(MPI_MODE_UNIQUE_OPEN), PLAIN(MPI_MODE_EXCL), PLAIN(MPI_MODE_APPEND), PLAIN(MPI_MODE_SEQUENTIAL),
    PLAIN(MPI_DISTRIBUTE_BLOCK), PLAIN(MPI_DISTRIBUTE_CYCLIC), PLAIN(MPI_DISTRIBUTE_NONE),
    PLAIN(MPI_DISTRIBUTE_DFLT_DARG), PLAIN(MPI_SEEK_SET), PLAIN(MPI_SEEK_CUR), PLAIN(MPI_SEEK_END), PLAIN(MPI_MAX_DATAREP_STRING),
    OFFSET(MPI_DISPLACEMENT_CURRENT), PLAIN(MPI_COMM_TYPE_SHARED),
    /* One-sided communication. */
    HANDLE(Win, MPI_WIN_NULL), HANDLE(Op, MPI_REPLACE), HANDLE(Op, MPI_NO_OP), PLAIN(MPI_MODE_NOCHECK),
    PLAIN(MPI_MODE_NOSTORE), PLAIN(MPI_MODE_NOPUT), PLAIN(MPI_MODE_NOPRECEDE), PLAIN(MPI_MODE_NOSUCCEED),
    PLAIN(MPI_LOCK_EXCLUSIVE), PLAIN(MPI_LOCK_SHARED), PLAIN(MPI_WIN_BASE), PLAIN(MPI_WIN_SIZE),
    PLAIN(MPI_WIN_DISP_UNIT), PLAIN(MPI_WIN_CREATE_FLAVOR), PLAIN(MPI_WIN_MODEL), PLAIN(MPI_WIN_FLAVOR_CREATE),
    PLAIN(MPI_WIN_FLAVOR_ALLOCATE), PLAIN(MPI_WIN_FLAVOR_DYNAMIC), PLAIN(MPI_WIN_FLAVOR_SHARED),
    PLAIN(MPI_WIN_SEPARATE), PLAIN(MPI_WIN_UNIFIED),
    /* Sessions. */
    HANDLE(Session, MPI_SESSION_NULL), PLAIN(MPI_MAX_PSET_NAME_LEN), PLAIN(MPI_MAX_STRINGTAG_LEN),
};
enum { kConstants = sizeof(constants) / sizeof(constants[0]) };

static int is_offset(const struct constant *c) {
  return c->handle_type != NULL && strcmp(c->handle_type, "Offset") == 0;
}

static FILE *open_output(const char *path) {
  FILE *file = fopen(path, "w");
  if (file == NULL) {
    perror(path);
    exit(1);
  }
  return file;
}

static void close_output(FILE *file, const char *path) {
  if (ferror(file) || fclose(file) != 0) {
    fprintf(stderr, "print_constants: could not write %s\n", path);
    exit(1);
  }
}

static const char kGenerated[] = "Generated from mpi.h by api-fortran/src/constants/print_constants.c.";

/* Fixed form: statements from column 7, at most 72 columns. */
static void write_mpif_h(FILE *out) {
  fprintf(out, "! mpif.h: Tern's MPI for Fortran programs (include 'mpif.h').\n! %s\n", kGenerated);
  for (int i = 0; i < kConstants; ++i) {
    const char *type = is_offset(&constants[i]) ? "INTEGER(KIND=MPI_OFFSET_KIND)" : "INTEGER";
    fprintf(out, "      %s %s\n      PARAMETER (%s=%lld)\n", type, constants[i].name, constants[i].name,
            constants[i].value);
  }
  fputs("      LOGICAL MPI_SUBARRAYS_SUPPORTED\n"
        "      PARAMETER (MPI_SUBARRAYS_SUPPORTED=.FALSE.)\n"
        "      LOGICAL MPI_ASYNC_PROTECTS_NONBLOCKING\n"
        "      PARAMETER (MPI_ASYNC_PROTECTS_NONBLOCKING=.FALSE.)\n",
        out);
  fputs("! The sentinels: the library knows these variables' addresses.\n"
        "      INTEGER MPI_BOTTOM, MPI_IN_PLACE\n"
        "      INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)\n"
        "      INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE, 1)\n"
        "      INTEGER MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1)\n"
        "      CHARACTER*1 MPI_ARGV_NULL(1), MPI_ARGVS_NULL(1, 1)\n"
        "      INTEGER MPI_ERRCODES_IGNORE(1)\n"
        "      COMMON /TERN_MPI_BOTTOM/ MPI_BOTTOM\n"
        "      COMMON /TERN_MPI_IN_PLACE/ MPI_IN_PLACE\n"
        "      COMMON /TERN_MPI_STATUS_IGNORE/ MPI_STATUS_IGNORE\n"
        "      COMMON /TERN_MPI_STATUSES_IGNORE/ MPI_STATUSES_IGNORE\n"
        "      COMMON /TERN_MPI_UNWEIGHTED/ MPI_UNWEIGHTED\n"
        "      COMMON /TERN_MPI_WEIGHTS_EMPTY/ MPI_WEIGHTS_EMPTY\n"
        "      COMMON /TERN_MPI_ARGV_NULL/ MPI_ARGV_NULL\n"
        "      COMMON /TERN_MPI_ARGVS_NULL/ MPI_ARGVS_NULL\n"
        "      COMMON /TERN_MPI_ERRCODES_IGNORE/ MPI_ERRCODES_IGNORE\n"
        "      EXTERNAL MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK\n"
        "      EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF\n"
        "      EXTERNAL MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN\n"
        "      EXTERNAL MPI_COMM_NULL_DELETE_FN\n"
        "      EXTERNAL MPI_TYPE_NULL_COPY_FN, MPI_TYPE_DUP_FN\n"
        "      EXTERNAL MPI_TYPE_NULL_DELETE_FN\n"
        "      EXTERNAL MPI_WIN_NULL_COPY_FN, MPI_WIN_DUP_FN\n"
        "      EXTERNAL MPI_WIN_NULL_DELETE_FN\n"
        "      EXTERNAL MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN\n"
        "      EXTERNAL MPI_CONVERSION_FN_NULL\n"
        "      EXTERNAL PMPI_AINT_ADD, PMPI_AINT_DIFF\n"
        "      DOUBLE PRECISION MPI_WTIME, MPI_WTICK\n"
        "      DOUBLE PRECISION PMPI_WTIME, PMPI_WTICK\n"
        "      INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD, MPI_AINT_DIFF\n"
        "      INTEGER(KIND=MPI_ADDRESS_KIND) PMPI_AINT_ADD\n"
        "      INTEGER(KIND=MPI_ADDRESS_KIND) PMPI_AINT_DIFF\n",
        out);
}

static void write_module(FILE *out, int typed_handles) {
  const char *module = typed_handles ? "tern_mpi_f08_constants" : "tern_mpi_constants";
  fprintf(out, "! %s\nmodule %s\n", kGenerated, module);
  if (typed_handles) fputs("  use tern_mpi_f08_types\n", out);
  fputs("  implicit none\n  public\n", out);
  for (int i = 0; i < kConstants; ++i) {
    const struct constant *c = &constants[i];
    if (is_offset(c)) {
      fprintf(out, "  integer(kind=MPI_OFFSET_KIND), parameter :: %s = %lld\n", c->name, c->value);
    } else if (typed_handles && c->handle_type != NULL) {
      fprintf(out, "  type(MPI_%s), parameter :: %s = MPI_%s(%lld)\n", c->handle_type, c->name, c->handle_type,
              c->value);
    } else {
      fprintf(out, "  integer, parameter :: %s = %lld\n", c->name, c->value);
    }
  }
  /* Non-contiguous sections are copied by the compiler, and ASYNCHRONOUS
   * alone does not keep gfortran from moving accesses across MPI calls. */
  fputs("  logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .false.\n"
        "  logical, parameter :: MPI_ASYNC_PROTECTS_NONBLOCKING = .false.\n",
        out);
  fprintf(out, "end module %s\n", module);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s <mpif.h> <tern_mpi_constants.f90> <tern_mpi_f08_constants.f90>\n", argv[0]);
    return 2;
  }
  FILE *mpif = open_output(argv[1]);
  write_mpif_h(mpif);
  close_output(mpif, argv[1]);
  for (int typed = 0; typed <= 1; ++typed) {
    FILE *module = open_output(argv[2 + typed]);
    write_module(module, typed);
    close_output(module, argv[2 + typed]);
  }
  return 0;
}
