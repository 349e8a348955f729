// Datatypes found by Fortran kind or byte size (MPI_Type_match_size,
// MPI_Type_create_f90_*), the MPI_Count forms of the size/extent/element
// queries, and the status setters. The f90 calls return the predefined type
// of that kind, as MPICH does, rather than a new handle per call: the types
// are the same data layout, and the caller need not free them.
#include <cfloat>
#include <limits>

#include "datatype/derived.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

int bad_type(const char* function, MPI_Datatype type) {
  return raise(nullptr, MPI_ERR_TYPE, function, "invalid datatype %d", type);
}

// Fortran's RANGE of a real kind: the smaller of the decimal exponents of its
// largest and its smallest normal value.
constexpr int kFloatRange = -FLT_MIN_10_EXP, kDoubleRange = -DBL_MIN_10_EXP, kLongDoubleRange = -LDBL_MIN_10_EXP;

// The real type of at least p digits and range r (MPI_UNDEFINED: any);
// `complex` picks the complex type of those parts (none for long double).
MPI_Datatype real_kind(int p, int r, bool complex) {
  auto fits = [&](int digits, int range) {
    return (p == MPI_UNDEFINED || p <= digits) && (r == MPI_UNDEFINED || r <= range);
  };
  if (fits(FLT_DIG, kFloatRange)) return complex ? MPI_C_FLOAT_COMPLEX : MPI_FLOAT;
  if (fits(DBL_DIG, kDoubleRange)) return complex ? MPI_C_DOUBLE_COMPLEX : MPI_DOUBLE;
  if (!complex && fits(LDBL_DIG, kLongDoubleRange)) return MPI_LONG_DOUBLE;
  return MPI_DATATYPE_NULL;
}

int create_real(const char* function, int p, int r, bool complex, MPI_Datatype* newtype) {
  if (newtype == nullptr) return raise(nullptr, MPI_ERR_ARG, function, "null newtype argument");
  if (p == MPI_UNDEFINED && r == MPI_UNDEFINED) {
    return raise(nullptr, MPI_ERR_ARG, function, "precision and range both MPI_UNDEFINED");
  }
  const MPI_Datatype type = real_kind(p, r, complex);
  if (type == MPI_DATATYPE_NULL) {
    return raise(nullptr, MPI_ERR_ARG, function, "no %s type of precision %d and range %d",
                 complex ? "complex" : "real", p, r);
  }
  *newtype = type;
  return MPI_SUCCESS;
}

// Bytes of the first `elements` basic elements of a message of `type` (whole
// copies, then the runs of a partial one).
std::size_t bytes_of_elements(const DerivedType& type, std::size_t elements) {
  if (type.elements == 0) return 0;
  std::size_t bytes = elements / type.elements * type.size;
  std::size_t rest = elements % type.elements;
  for (const TypeRun& run : type.runs) {
    if (rest == 0) break;
    const std::size_t n = std::min(rest, run.count);
    bytes += n * run.elem_size;
    rest -= n;
  }
  return bytes;
}

int set_elements(const char* function, MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  const std::shared_ptr<const DerivedType> t = describe_type(datatype);
  if (t == nullptr) return bad_type(function, datatype);
  if (status == nullptr) return raise(nullptr, MPI_ERR_ARG, function, "null status argument");
  if (count < 0) return raise(nullptr, MPI_ERR_COUNT, function, "invalid count %lld", count);
  status->tern_bytes = static_cast<MPI_Count>(bytes_of_elements(*t, static_cast<std::size_t>(count)));
  return MPI_SUCCESS;
}

}  // namespace

int size_query(const char* function, MPI_Datatype datatype, MPI_Count* size) {
  const std::shared_ptr<const DerivedType> t = describe_type(datatype);
  if (t == nullptr) return bad_type(function, datatype);
  if (size == nullptr) return raise(nullptr, MPI_ERR_ARG, function, "null size argument");
  *size = static_cast<MPI_Count>(t->size);
  return MPI_SUCCESS;
}

int extent_query(const char* function, MPI_Datatype datatype, bool true_extent, MPI_Count* lb, MPI_Count* extent) {
  const std::shared_ptr<const DerivedType> t = describe_type(datatype);
  if (t == nullptr) return bad_type(function, datatype);
  if (lb == nullptr || extent == nullptr) return raise(nullptr, MPI_ERR_ARG, function, "null argument");
  *lb = true_extent ? t->true_lb : t->lb;
  *extent = true_extent ? t->true_extent : t->extent;
  return MPI_SUCCESS;
}

int elements_query(const char* function, const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  const std::shared_ptr<const DerivedType> t = describe_type(datatype);
  if (t == nullptr) return bad_type(function, datatype);
  if (status == nullptr || count == nullptr) {
    return raise(nullptr, MPI_ERR_ARG, function, "null status or count argument");
  }
  // Predefined types are runs of one basic element: the same sum.
  const long long elements = elements_in(*t, static_cast<std::size_t>(status->tern_bytes));
  *count = elements < 0 ? MPI_UNDEFINED : elements;
  return MPI_SUCCESS;
}

}  // namespace tern::mpi

using namespace tern::mpi;

extern "C" {

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  constexpr const char* kFunction = "MPI_Type_match_size";
  if (datatype == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null datatype argument");
  MPI_Datatype found = MPI_DATATYPE_NULL;
  switch (typeclass) {
    case MPI_TYPECLASS_INTEGER:
      for (MPI_Datatype t : {MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T}) {
        if (found == MPI_DATATYPE_NULL && static_cast<int>(kTypes[t].size) == size) found = t;
      }
      break;
    case MPI_TYPECLASS_REAL:
      for (MPI_Datatype t : {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE}) {
        if (found == MPI_DATATYPE_NULL && static_cast<int>(kTypes[t].size) == size) found = t;
      }
      break;
    case MPI_TYPECLASS_COMPLEX:
      for (MPI_Datatype t : {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX}) {
        if (found == MPI_DATATYPE_NULL && static_cast<int>(kTypes[t].size) == size) found = t;
      }
      break;
    default: return raise(nullptr, MPI_ERR_ARG, kFunction, "invalid type class %d", typeclass);
  }
  if (found == MPI_DATATYPE_NULL) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "no type of class %d and size %d", typeclass, size);
  }
  *datatype = found;
  return MPI_SUCCESS;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  constexpr const char* kFunction = "MPI_Type_create_f90_integer";
  if (newtype == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null newtype argument");
  // Fortran's SELECTED_INT_KIND: the smallest kind holding every r-digit value.
  const MPI_Datatype type = r <= 2 ? MPI_INT8_T : r <= 4 ? MPI_INT16_T : r <= 9 ? MPI_INT32_T
                          : r <= 18 ? MPI_INT64_T : MPI_DATATYPE_NULL;
  if (type == MPI_DATATYPE_NULL) return raise(nullptr, MPI_ERR_ARG, kFunction, "no integer type of range %d", r);
  *newtype = type;
  return MPI_SUCCESS;
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  return create_real("MPI_Type_create_f90_real", p, r, false, newtype);
}

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  return create_real("MPI_Type_create_f90_complex", p, r, true, newtype);
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) { return size_query("MPI_Type_size_x", datatype, size); }

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) { return size_query("MPI_Type_size_c", datatype, size); }

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return extent_query("MPI_Type_get_extent_x", datatype, false, lb, extent);
}

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return extent_query("MPI_Type_get_extent_c", datatype, false, lb, extent);
}

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return extent_query("MPI_Type_get_true_extent_x", datatype, true, true_lb, true_extent);
}

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return extent_query("MPI_Type_get_true_extent_c", datatype, true, true_lb, true_extent);
}

int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return elements_query("MPI_Get_elements_x", status, datatype, count);
}

int PMPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return elements_query("MPI_Get_elements_c", status, datatype, count);
}

int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  return set_elements("MPI_Status_set_elements", status, datatype, count);
}

int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}

int PMPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return set_elements("MPI_Status_set_elements_c", status, datatype, count);
}

int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  if (status == nullptr) return raise(nullptr, MPI_ERR_ARG, "MPI_Status_set_cancelled", "null status argument");
  status->tern_cancelled = flag != 0 ? 1 : 0;
  return MPI_SUCCESS;
}

#pragma weak MPI_Type_match_size = PMPI_Type_match_size
#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer
#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real
#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex
#pragma weak MPI_Type_size_x = PMPI_Type_size_x
#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x
#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x
#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements
#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x
#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled
#pragma weak MPI_Type_size_c = PMPI_Type_size_c
#pragma weak MPI_Type_get_extent_c = PMPI_Type_get_extent_c
#pragma weak MPI_Type_get_true_extent_c = PMPI_Type_get_true_extent_c
#pragma weak MPI_Get_elements_c = PMPI_Get_elements_c
#pragma weak MPI_Status_set_elements_c = PMPI_Status_set_elements_c

}  // extern "C"
