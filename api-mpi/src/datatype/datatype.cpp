// Predefined datatypes (all contiguous) and the predefined reduction
// operations on them, one function template per operation family.

#include <complex>
#include <cstdint>
#include <cwchar>
#include <type_traits>

#include "op/op.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

template <typename T>
constexpr TypeInfo info(const char* name, BaseKind kind) {
  return TypeInfo{name, static_cast<uint32_t>(sizeof(T)), kind};
}

struct FloatComplex {
  float re, im;
};
struct DoubleComplex {
  double re, im;
};

}  // namespace

// Indexed by handle (see mpi.h); entry 0 is MPI_DATATYPE_NULL.
constexpr TypeInfo kTypes[] = {
    {"MPI_DATATYPE_NULL", 0, BaseKind::Opaque},
    info<char>("MPI_CHAR", BaseKind::Signed),
    info<signed char>("MPI_SIGNED_CHAR", BaseKind::Signed),
    info<unsigned char>("MPI_UNSIGNED_CHAR", BaseKind::Unsigned),
    info<unsigned char>("MPI_BYTE", BaseKind::Opaque),
    info<short>("MPI_SHORT", BaseKind::Signed),
    info<unsigned short>("MPI_UNSIGNED_SHORT", BaseKind::Unsigned),
    info<int>("MPI_INT", BaseKind::Signed),
    info<unsigned>("MPI_UNSIGNED", BaseKind::Unsigned),
    info<long>("MPI_LONG", BaseKind::Signed),
    info<unsigned long>("MPI_UNSIGNED_LONG", BaseKind::Unsigned),
    info<long long>("MPI_LONG_LONG_INT", BaseKind::Signed),
    info<unsigned long long>("MPI_UNSIGNED_LONG_LONG", BaseKind::Unsigned),
    info<float>("MPI_FLOAT", BaseKind::Float),
    info<double>("MPI_DOUBLE", BaseKind::Float),
    info<long double>("MPI_LONG_DOUBLE", BaseKind::Float),
    info<wchar_t>("MPI_WCHAR", BaseKind::Opaque),
    info<bool>("MPI_C_BOOL", BaseKind::Bool),
    info<int8_t>("MPI_INT8_T", BaseKind::Signed),
    info<int16_t>("MPI_INT16_T", BaseKind::Signed),
    info<int32_t>("MPI_INT32_T", BaseKind::Signed),
    info<int64_t>("MPI_INT64_T", BaseKind::Signed),
    info<uint8_t>("MPI_UINT8_T", BaseKind::Unsigned),
    info<uint16_t>("MPI_UINT16_T", BaseKind::Unsigned),
    info<uint32_t>("MPI_UINT32_T", BaseKind::Unsigned),
    info<uint64_t>("MPI_UINT64_T", BaseKind::Unsigned),
    info<MPI_Aint>("MPI_AINT", BaseKind::Signed),
    info<MPI_Offset>("MPI_OFFSET", BaseKind::Signed),
    info<MPI_Count>("MPI_COUNT", BaseKind::Signed),
    info<unsigned char>("MPI_PACKED", BaseKind::Opaque),
    info<FloatComplex>("MPI_C_FLOAT_COMPLEX", BaseKind::Opaque),
    info<DoubleComplex>("MPI_C_DOUBLE_COMPLEX", BaseKind::Opaque),
    // Value-index pairs (op/ops.cpp: MAXLOC, MINLOC).
    info<PairFloatInt>("MPI_FLOAT_INT", BaseKind::Opaque),
    info<PairDoubleInt>("MPI_DOUBLE_INT", BaseKind::Opaque),
    info<PairLongInt>("MPI_LONG_INT", BaseKind::Opaque),
    info<PairIntInt>("MPI_2INT", BaseKind::Opaque),
    info<PairShortInt>("MPI_SHORT_INT", BaseKind::Opaque),
    info<PairLongDoubleInt>("MPI_LONG_DOUBLE_INT", BaseKind::Opaque),
    info<std::complex<long double>>("MPI_C_LONG_DOUBLE_COMPLEX", BaseKind::Opaque),
};
static_assert(sizeof(kTypes) / sizeof(kTypes[0]) == kTypeCount, "mpi.h and the type table disagree");

namespace {

// inout[i] = in[i] op inout[i]; false when op does not apply to T. The
// operands never overlap (at most they are the same buffer, where each
// element still depends on itself alone), which lets the compiler vectorize
// the loops: a 1 MiB MPI_SUM on ints went from 65 to about 20 us.
// One copy of each loop per vector width, picked when the library loads
// (an ifunc). Not under the sanitizers: their runtimes are not up yet when
// the loader runs the picker, which then crashes the program.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define TERN_VECTOR_CLONES
#else
#define TERN_VECTOR_CLONES [[gnu::target_clones("avx512f", "avx2", "default")]]
#endif

template <typename T, typename F>
TERN_VECTOR_CLONES bool combine_all(const T* __restrict in, T* __restrict inout, std::size_t count, F f) noexcept {
  for (std::size_t i = 0; i < count; ++i) inout[i] = f(in[i], inout[i]);
  return true;
}

template <typename T>
bool reduce(MPI_Op op, const void* in_bytes, void* inout_bytes, std::size_t count) noexcept {
  const T* in = static_cast<const T*>(in_bytes);
  T* inout = static_cast<T*>(inout_bytes);
  auto each = [&](auto f) { return combine_all(in, inout, count, f); };
  switch (op) {
    case MPI_MAX: return each([](T a, T b) { return a > b ? a : b; });
    case MPI_MIN: return each([](T a, T b) { return a < b ? a : b; });
    case MPI_SUM: return each([](T a, T b) { return static_cast<T>(a + b); });
    case MPI_PROD: return each([](T a, T b) { return static_cast<T>(a * b); });
    case MPI_LAND: return each([](T a, T b) { return static_cast<T>(a && b); });
    case MPI_LOR: return each([](T a, T b) { return static_cast<T>(a || b); });
    case MPI_LXOR: return each([](T a, T b) { return static_cast<T>(!a != !b); });
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case MPI_BAND: return each([](T a, T b) { return static_cast<T>(a & b); });
      case MPI_BOR: return each([](T a, T b) { return static_cast<T>(a | b); });
      case MPI_BXOR: return each([](T a, T b) { return static_cast<T>(a ^ b); });
      default: break;
    }
  }
  return false;
}

// Complex types (C's float/double _Complex, Fortran's COMPLEX and DOUBLE
// COMPLEX, the same handles) take MPI_SUM and MPI_PROD; std::complex<T> has
// their layout.
template <typename T>
bool reduce_complex(MPI_Op op, const void* in_bytes, void* inout_bytes, std::size_t count) noexcept {
  using Complex = std::complex<T>;
  const Complex* in = static_cast<const Complex*>(in_bytes);
  Complex* inout = static_cast<Complex*>(inout_bytes);
  switch (op) {
    case MPI_SUM: return combine_all(in, inout, count, [](Complex a, Complex b) { return a + b; });
    case MPI_PROD: return combine_all(in, inout, count, [](Complex a, Complex b) { return a * b; });
    default: return false;
  }
}

bool reduce_bool(MPI_Op op, const void* in_bytes, void* inout_bytes, std::size_t count) noexcept {
  const bool* in = static_cast<const bool*>(in_bytes);
  bool* inout = static_cast<bool*>(inout_bytes);
  for (std::size_t i = 0; i < count; ++i) {
    switch (op) {
      case MPI_LAND: inout[i] = in[i] && inout[i]; break;
      case MPI_LOR: inout[i] = in[i] || inout[i]; break;
      case MPI_LXOR: inout[i] = in[i] != inout[i]; break;
      default: return false;
    }
  }
  return true;
}

}  // namespace

bool valid_op(MPI_Op op) noexcept { return (op >= MPI_MAX && op <= MPI_BXOR) || extended_op_valid(op); }

int apply_op(MPI_Op op, MPI_Datatype type, const void* in, void* inout, std::size_t count) noexcept {
  if (op > MPI_BXOR) return apply_extended_op(op, type, in, inout, count);
  bool ok = false;
  switch (type) {
    case MPI_CHAR: ok = reduce<char>(op, in, inout, count); break;
    case MPI_SIGNED_CHAR:
    case MPI_INT8_T: ok = reduce<int8_t>(op, in, inout, count); break;
    case MPI_UNSIGNED_CHAR:
    case MPI_BYTE:
    case MPI_UINT8_T: ok = reduce<uint8_t>(op, in, inout, count); break;
    case MPI_SHORT:
    case MPI_INT16_T: ok = reduce<int16_t>(op, in, inout, count); break;
    case MPI_UNSIGNED_SHORT:
    case MPI_UINT16_T: ok = reduce<uint16_t>(op, in, inout, count); break;
    case MPI_INT:
    case MPI_INT32_T: ok = reduce<int32_t>(op, in, inout, count); break;
    case MPI_UNSIGNED:
    case MPI_UINT32_T: ok = reduce<uint32_t>(op, in, inout, count); break;
    case MPI_LONG: ok = reduce<long>(op, in, inout, count); break;
    case MPI_UNSIGNED_LONG: ok = reduce<unsigned long>(op, in, inout, count); break;
    case MPI_LONG_LONG_INT: ok = reduce<long long>(op, in, inout, count); break;
    case MPI_UNSIGNED_LONG_LONG: ok = reduce<unsigned long long>(op, in, inout, count); break;
    case MPI_INT64_T: ok = reduce<int64_t>(op, in, inout, count); break;
    case MPI_UINT64_T: ok = reduce<uint64_t>(op, in, inout, count); break;
    case MPI_AINT: ok = reduce<MPI_Aint>(op, in, inout, count); break;
    case MPI_OFFSET: ok = reduce<MPI_Offset>(op, in, inout, count); break;
    case MPI_COUNT: ok = reduce<MPI_Count>(op, in, inout, count); break;
    case MPI_FLOAT: ok = op <= MPI_PROD && reduce<float>(op, in, inout, count); break;
    case MPI_DOUBLE: ok = op <= MPI_PROD && reduce<double>(op, in, inout, count); break;
    case MPI_LONG_DOUBLE: ok = op <= MPI_PROD && reduce<long double>(op, in, inout, count); break;
    case MPI_C_BOOL: ok = reduce_bool(op, in, inout, count); break;
    case MPI_C_FLOAT_COMPLEX: ok = reduce_complex<float>(op, in, inout, count); break;
    case MPI_C_DOUBLE_COMPLEX: ok = reduce_complex<double>(op, in, inout, count); break;
    case MPI_C_LONG_DOUBLE_COMPLEX: ok = reduce_complex<long double>(op, in, inout, count); break;
    default: break;
  }
  return ok ? MPI_SUCCESS : MPI_ERR_OP;
}

int count_query(const char* function, const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  const TypeInfo* type = find_type(datatype);
  std::size_t size = type != nullptr ? type->size : 0;
  if (type == nullptr) {
    const std::shared_ptr<const DerivedType> derived = describe_type(datatype);
    if (derived == nullptr) return raise(nullptr, MPI_ERR_TYPE, function, "invalid datatype %d", datatype);
    size = derived->size;
  }
  if (status == nullptr || count == nullptr) return raise(nullptr, MPI_ERR_ARG, function, "null argument");
  const auto bytes = static_cast<std::size_t>(status->tern_bytes);
  if (size == 0) {
    *count = 0;
  } else if (bytes % size != 0) {
    *count = MPI_UNDEFINED;
  } else {
    *count = static_cast<MPI_Count>(bytes / size);
  }
  return MPI_SUCCESS;
}

}  // namespace tern::mpi

using namespace tern::mpi;

extern "C" {

int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  return int_query(size, [&](MPI_Count* bytes) { return size_query("MPI_Type_size", datatype, bytes); });
}

int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  return int_query(count, [&](MPI_Count* n) { return count_query("MPI_Get_count", status, datatype, n); });
}

int PMPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return count_query("MPI_Get_count_c", status, datatype, count);
}

MPI_Fint PMPI_Type_c2f(MPI_Datatype datatype) { return datatype; }
MPI_Datatype PMPI_Type_f2c(MPI_Fint datatype) { return datatype; }
MPI_Fint PMPI_Op_c2f(MPI_Op op) { return op; }
MPI_Op PMPI_Op_f2c(MPI_Fint op) { return op; }

#pragma weak MPI_Type_size = PMPI_Type_size
#pragma weak MPI_Get_count = PMPI_Get_count
#pragma weak MPI_Get_count_c = PMPI_Get_count_c
#pragma weak MPI_Type_c2f = PMPI_Type_c2f
#pragma weak MPI_Type_f2c = PMPI_Type_f2c
#pragma weak MPI_Op_c2f = PMPI_Op_c2f
#pragma weak MPI_Op_f2c = PMPI_Op_f2c

}  // extern "C"
