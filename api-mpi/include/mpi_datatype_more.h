/* Portable packing (MPI_Pack_external in the "external32" representation), Fortran-kind datatype lookups and
 * the MPI_Count forms of the datatype and status queries, included by mpi.h inside its extern "C" block with
 * TERN_MPI_API defined: include mpi.h, not this file. */
#ifndef TERN_MPI_DATATYPE_MORE_H
#define TERN_MPI_DATATYPE_MORE_H
#ifndef TERN_MPI_H
#error "include mpi.h, which includes mpi_datatype_more.h"
#endif

/* --- external32: big-endian, each basic type at the standard's fixed size (MPI_LONG and MPI_UNSIGNED_LONG
 * take 4 bytes, MPI_WCHAR 2, MPI_LONG_DOUBLE 16 as an IEEE binary128, MPI_C_BOOL 1, pair and complex types as
 * their parts). A value that does not fit its external size is MPI_ERR_CONVERSION; a datarep other than
 * "external32" is MPI_ERR_UNSUPPORTED_DATAREP. */
TERN_MPI_API(int, Pack_external, (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                                  void *outbuf, MPI_Aint outsize, MPI_Aint *position))
TERN_MPI_API(int, Unpack_external, (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                                    void *outbuf, int outcount, MPI_Datatype datatype))
TERN_MPI_API(int, Pack_external_size, (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size))

/* --- Datatypes by Fortran kind or size: the predefined C type of that class and size (MPI_INTEGERn,
 * MPI_REALn and MPI_COMPLEXn are the same handles). MPI_ERR_ARG when none fits. */
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3
TERN_MPI_API(int, Type_match_size, (int typeclass, int size, MPI_Datatype *datatype))
/* r decimal digits of range; p digits of precision (MPI_UNDEFINED: any). */
TERN_MPI_API(int, Type_create_f90_integer, (int r, MPI_Datatype *newtype))
TERN_MPI_API(int, Type_create_f90_real, (int p, int r, MPI_Datatype *newtype))
TERN_MPI_API(int, Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype))

/* --- The Fortran and C++ named datatypes in C (the standard gives C programs their handles too): the same
 * handles as the C types of their size and layout, as the Fortran bindings name them. MPI_LOGICAL is a
 * Fortran default LOGICAL (4 bytes, nonzero true). */
#define MPI_INTEGER MPI_INT
#define MPI_REAL MPI_FLOAT
#define MPI_DOUBLE_PRECISION MPI_DOUBLE
#define MPI_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_DOUBLE_COMPLEX MPI_C_DOUBLE_COMPLEX
#define MPI_LOGICAL MPI_INT
#define MPI_CHARACTER MPI_CHAR
#define MPI_2INTEGER MPI_2INT
#define MPI_INTEGER1 MPI_INT8_T
#define MPI_INTEGER2 MPI_INT16_T
#define MPI_INTEGER4 MPI_INT32_T
#define MPI_INTEGER8 MPI_INT64_T
#define MPI_REAL4 MPI_FLOAT
#define MPI_REAL8 MPI_DOUBLE
#define MPI_COMPLEX8 MPI_C_FLOAT_COMPLEX
#define MPI_COMPLEX16 MPI_C_DOUBLE_COMPLEX
#define MPI_CXX_BOOL MPI_C_BOOL
#define MPI_CXX_FLOAT_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_CXX_DOUBLE_COMPLEX MPI_C_DOUBLE_COMPLEX
#define MPI_CXX_LONG_DOUBLE_COMPLEX MPI_C_LONG_DOUBLE_COMPLEX

/* --- MPI_Count forms of the queries, and setting what a status reports (for generalized requests and
 * layered libraries). */
TERN_MPI_API(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size))
TERN_MPI_API(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent))
TERN_MPI_API(int, Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent))
TERN_MPI_API(int, Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count))
TERN_MPI_API(int, Status_set_elements, (MPI_Status *status, MPI_Datatype datatype, int count))
TERN_MPI_API(int, Status_set_elements_x, (MPI_Status *status, MPI_Datatype datatype, MPI_Count count))
TERN_MPI_API(int, Status_set_cancelled, (MPI_Status *status, int flag))

#endif /* TERN_MPI_DATATYPE_MORE_H */
