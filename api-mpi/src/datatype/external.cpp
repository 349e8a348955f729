// MPI_Pack_external/Unpack_external/Pack_external_size in "external32": each
// basic element converted on its own, by the predefined type its run records,
// to the standard's big-endian fixed-size form. The layout walk is the type
// map's runs; the native layout of a pair or complex type is its C struct.
#include <bit>
#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "datatype/derived.hpp"
#include "datatype/external.hpp"
#include "op/op.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

enum class Kind : uint8_t { Raw, Signed, Unsigned, Float, LongDouble };

// One part of a predefined type: where it lies natively, its size there and
// in external32, and how it converts.
struct Field {
  uint8_t offset;
  uint8_t native;
  uint8_t external;
  Kind kind;
};

struct Layout {
  Field fields[2];
  int count;
  std::size_t external_size() const { return fields[0].external + (count > 1 ? fields[1].external : 0u); }
};

template <typename T>
constexpr Field field(Kind kind, std::size_t external, std::size_t offset = 0) {
  return Field{static_cast<uint8_t>(offset), static_cast<uint8_t>(sizeof(T)), static_cast<uint8_t>(external), kind};
}
template <typename T>
constexpr Kind integer_kind() {
  return std::numeric_limits<T>::is_signed ? Kind::Signed : Kind::Unsigned;
}
template <typename T>
constexpr Layout one(Kind kind, std::size_t external) {
  return Layout{{field<T>(kind, external), {}}, 1};
}
template <typename T>
constexpr Layout integer(std::size_t external) {
  return one<T>(integer_kind<T>(), external);
}
template <typename Pair, typename V>
constexpr Layout pair(Kind kind, std::size_t external) {
  return Layout{{field<V>(kind, external), field<int>(Kind::Signed, 4, offsetof(Pair, index))}, 2};
}
template <typename T>
constexpr Layout complex_of() {
  return Layout{{field<T>(Kind::Float, sizeof(T)), field<T>(Kind::Float, sizeof(T), sizeof(T))}, 2};
}

// The MPI 4.x external32 table (section 13.5.2), by handle.
Layout layout_of(MPI_Datatype type) {
  switch (type) {
    case MPI_CHAR:
    case MPI_SIGNED_CHAR:
    case MPI_UNSIGNED_CHAR:
    case MPI_BYTE:
    case MPI_PACKED:
    case MPI_INT8_T:
    case MPI_UINT8_T: return one<char>(Kind::Raw, 1);
    case MPI_C_BOOL: return one<bool>(Kind::Unsigned, 1);
    case MPI_SHORT: return integer<short>(2);
    case MPI_UNSIGNED_SHORT: return integer<unsigned short>(2);
    case MPI_INT: return integer<int>(4);
    case MPI_UNSIGNED: return integer<unsigned>(4);
    case MPI_LONG: return integer<long>(4);
    case MPI_UNSIGNED_LONG: return integer<unsigned long>(4);
    case MPI_LONG_LONG_INT: return integer<long long>(8);
    case MPI_UNSIGNED_LONG_LONG: return integer<unsigned long long>(8);
    // Two bytes in the standard's table: characters beyond the BMP do not convert.
    case MPI_WCHAR: return one<wchar_t>(Kind::Unsigned, 2);
    case MPI_INT16_T: return integer<int16_t>(2);
    case MPI_INT32_T: return integer<int32_t>(4);
    case MPI_INT64_T: return integer<int64_t>(8);
    case MPI_UINT16_T: return integer<uint16_t>(2);
    case MPI_UINT32_T: return integer<uint32_t>(4);
    case MPI_UINT64_T: return integer<uint64_t>(8);
    case MPI_AINT: return integer<MPI_Aint>(8);
    case MPI_OFFSET: return integer<MPI_Offset>(8);
    case MPI_COUNT: return integer<MPI_Count>(8);
    case MPI_FLOAT: return one<float>(Kind::Float, 4);
    case MPI_DOUBLE: return one<double>(Kind::Float, 8);
    case MPI_LONG_DOUBLE: return one<long double>(Kind::LongDouble, 16);
    case MPI_C_FLOAT_COMPLEX: return complex_of<float>();
    case MPI_C_DOUBLE_COMPLEX: return complex_of<double>();
    case MPI_C_LONG_DOUBLE_COMPLEX: {
      constexpr std::size_t part = sizeof(long double);
      return Layout{{field<long double>(Kind::LongDouble, 16), field<long double>(Kind::LongDouble, 16, part)}, 2};
    }
    case MPI_FLOAT_INT: return pair<PairFloatInt, float>(Kind::Float, 4);
    case MPI_DOUBLE_INT: return pair<PairDoubleInt, double>(Kind::Float, 8);
    case MPI_LONG_INT: return pair<PairLongInt, long>(Kind::Signed, 4);
    case MPI_2INT: return pair<PairIntInt, int>(Kind::Signed, 4);
    case MPI_SHORT_INT: return pair<PairShortInt, short>(Kind::Signed, 2);
    case MPI_LONG_DOUBLE_INT: return pair<PairLongDoubleInt, long double>(Kind::LongDouble, 16);
    default: return Layout{{}, 0};
  }
}

void store_big_endian(uint64_t value, unsigned char* out, std::size_t bytes) {
  for (std::size_t i = bytes; i-- > 0; value >>= 8) out[i] = static_cast<unsigned char>(value);
}
uint64_t load_big_endian(const unsigned char* in, std::size_t bytes) {
  uint64_t value = 0;
  for (std::size_t i = 0; i < bytes; ++i) value = value << 8 | in[i];
  return value;
}
void reverse_copy(const unsigned char* in, unsigned char* out, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) out[i] = in[std::endian::native == std::endian::little ? bytes - 1 - i : i];
}

// x87's 80-bit format and binary128 share the sign and the 15-bit biased
// exponent; binary128 drops the explicit integer bit and has 49 more
// fraction bits (filled with zeros out, truncated in).
constexpr bool kX87 = LDBL_MANT_DIG == 64 && std::endian::native == std::endian::little;
constexpr bool kQuad = LDBL_MANT_DIG == 113;
constexpr bool kLongDoubleConverts = kX87 || kQuad;

void long_double_out(const unsigned char* in, unsigned char* out) {
  if constexpr (kX87) {
    uint64_t mantissa = 0;
    uint16_t sign_exponent = 0;
    std::memcpy(&mantissa, in, 8);
    std::memcpy(&sign_exponent, in + 8, 2);
    const uint64_t fraction = mantissa & 0x7FFF'FFFF'FFFF'FFFFULL;
    store_big_endian(static_cast<uint64_t>(sign_exponent) << 48 | fraction >> 15, out, 8);
    store_big_endian(fraction << 49, out + 8, 8);
  } else {
    reverse_copy(in, out, 16);
  }
}

void long_double_in(const unsigned char* in, unsigned char* out) {
  if constexpr (kX87) {
    const uint64_t high = load_big_endian(in, 8), low = load_big_endian(in + 8, 8);
    const auto sign_exponent = static_cast<uint16_t>(high >> 48);
    const uint64_t fraction = (high & 0xFFFF'FFFF'FFFFULL) << 15 | low >> 49;
    const uint64_t integer_bit = (sign_exponent & 0x7FFF) != 0 ? 1ULL << 63 : 0;
    const uint64_t mantissa = integer_bit | fraction;
    std::memcpy(out, &mantissa, 8);
    std::memcpy(out + 8, &sign_exponent, 2);
  } else {
    reverse_copy(in, out, 16);
  }
}

// False when the value does not fit its external size.
bool field_out(const Field& f, const unsigned char* in, unsigned char* out) {
  switch (f.kind) {
    case Kind::Raw: std::memcpy(out, in, f.native); return true;
    case Kind::Float: reverse_copy(in, out, f.native); return true;
    case Kind::LongDouble: long_double_out(in, out); return true;
    case Kind::Signed: {
      int64_t value = 0;
      switch (f.native) {
        case 1: value = static_cast<int8_t>(*in); break;
        case 2: { int16_t v; std::memcpy(&v, in, 2); value = v; break; }
        case 4: { int32_t v; std::memcpy(&v, in, 4); value = v; break; }
        default: std::memcpy(&value, in, 8); break;
      }
      const unsigned shift = 8u * f.external - 1;
      if (f.external < 8 && (value >= (int64_t{1} << shift) || value < -(int64_t{1} << shift))) return false;
      store_big_endian(static_cast<uint64_t>(value), out, f.external);
      return true;
    }
    case Kind::Unsigned: {
      uint64_t value = 0;
      if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(&value, in, f.native);
      } else {
        value = load_big_endian(in, f.native);
      }
      if (f.external < 8 && value >> (8u * f.external) != 0) return false;
      store_big_endian(value, out, f.external);
      return true;
    }
  }
  return false;
}

void field_in(const Field& f, const unsigned char* in, unsigned char* out) {
  switch (f.kind) {
    case Kind::Raw: std::memcpy(out, in, f.native); return;
    case Kind::Float: reverse_copy(in, out, f.native); return;
    case Kind::LongDouble: long_double_in(in, out); return;
    case Kind::Signed:
    case Kind::Unsigned: {
      uint64_t value = load_big_endian(in, f.external);
      const unsigned bits = 8u * f.external;
      if (f.kind == Kind::Signed && bits < 64 && (value >> (bits - 1)) != 0) value |= ~uint64_t{0} << bits;
      if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(out, &value, f.native);
      } else {
        store_big_endian(value, out, f.native);
      }
      return;
    }
  }
}

// The external32 bytes of one instance of `type`; 0 with *ok false when a
// basic type has no external32 form here.
std::size_t external_size(const DerivedType& type, bool* ok) {
  std::size_t bytes = 0;
  *ok = true;
  for (const TypeRun& run : type.runs) {
    const Layout layout = layout_of(run.type);
    const bool long_double =
        run.type == MPI_LONG_DOUBLE || run.type == MPI_LONG_DOUBLE_INT || run.type == MPI_C_LONG_DOUBLE_COMPLEX;
    if (layout.count == 0 || (long_double && !kLongDoubleConverts)) {
      *ok = false;
      return 0;
    }
    bytes += run.count * layout.external_size();
  }
  return bytes;
}

// Converts `count` instances between native and external32 form; false with
// *bad the offending type when one does not fit.
template <bool kOut>
bool convert(const DerivedType& type, std::size_t count, const unsigned char* from, unsigned char* to,
             MPI_Datatype* bad) {
  std::size_t packed = 0;  // external32 bytes done
  for (std::size_t i = 0; i < count; ++i) {
    const MPI_Aint instance = static_cast<MPI_Aint>(i) * type.extent;
    for (const TypeRun& run : type.runs) {
      const Layout layout = layout_of(run.type);
      for (std::size_t k = 0; k < run.count; ++k) {
        const MPI_Aint native = instance + run.offset + static_cast<MPI_Aint>(k * run.elem_size);
        for (int p = 0; p < layout.count; ++p) {
          const Field& f = layout.fields[p];
          if constexpr (kOut) {
            if (!field_out(f, from + native + f.offset, to + packed)) {
              *bad = run.type;
              return false;
            }
          } else {
            field_in(f, from + packed, to + native + f.offset);
          }
          packed += f.external;
        }
      }
    }
  }
  return true;
}

struct Checked {
  std::shared_ptr<const DerivedType> type;
  std::size_t bytes = 0;  // external32 bytes of the count given
};

int check_external(const char* function, const char* datarep, MPI_Count count, MPI_Datatype datatype, Checked* out) {
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(function);
  if (datarep == nullptr) return raise(nullptr, MPI_ERR_ARG, function, "null datarep argument");
  if (std::strcmp(datarep, "external32") != 0) {
    return raise(nullptr, MPI_ERR_UNSUPPORTED_DATAREP, function, "data representation \"%s\" (only \"external32\")",
                 datarep);
  }
  out->type = describe_type(datatype);
  if (out->type == nullptr) return raise(nullptr, MPI_ERR_TYPE, function, "invalid datatype %d", datatype);
  if (count < 0) return raise(nullptr, MPI_ERR_COUNT, function, "invalid count %lld", count);
  bool ok = false;
  const std::size_t one = external_size(*out->type, &ok);
  if (!ok) {
    return raise(nullptr, MPI_ERR_CONVERSION, function,
                 "datatype %d holds a type without an external32 form here (long double of this format)", datatype);
  }
  if (__builtin_mul_overflow(one, static_cast<std::size_t>(count), &out->bytes)) {
    return raise(nullptr, MPI_ERR_COUNT, function, "count %lld is too large: its bytes overflow a size_t", count);
  }
  return MPI_SUCCESS;
}

// The checks Pack_external and Unpack_external share: a committed type, and
// `c.bytes` from *position within the packed buffer of `packed_size` bytes.
int check_buffer(const char* function, const Checked& c, MPI_Datatype datatype, const void* packed,
                 MPI_Count packed_size, const MPI_Count* position) {
  if (!c.type->committed) return raise(nullptr, MPI_ERR_TYPE, function, "datatype %d is not committed", datatype);
  if (position == nullptr || (packed == nullptr && packed_size != 0)) {
    return raise(nullptr, MPI_ERR_ARG, function, "null position or packed buffer");
  }
  if (packed_size < 0 || *position < 0 || *position > packed_size) {
    return raise(nullptr, MPI_ERR_ARG, function, "invalid position %lld in a packed buffer of %lld bytes", *position,
                 packed_size);
  }
  if (c.bytes > static_cast<std::size_t>(packed_size - *position)) {
    return raise(nullptr, MPI_ERR_TRUNCATE, function, "%zu bytes, %lld left in the packed buffer", c.bytes,
                 packed_size - *position);
  }
  return MPI_SUCCESS;
}

int pack_external_size(const char* function, const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                       MPI_Count* size) {
  Checked c;
  if (int err = check_external(function, datarep, incount, datatype, &c); err != MPI_SUCCESS) return err;
  if (size == nullptr) return raise(nullptr, MPI_ERR_ARG, function, "null size argument");
  *size = static_cast<MPI_Count>(c.bytes);
  return MPI_SUCCESS;
}

int pack_external(const char* function, const char datarep[], const void* inbuf, MPI_Count incount,
                  MPI_Datatype datatype, void* outbuf, MPI_Count outsize, MPI_Count* position) {
  Checked c;
  if (int err = check_external(function, datarep, incount, datatype, &c); err != MPI_SUCCESS) return err;
  if (int err = check_buffer(function, c, datatype, outbuf, outsize, position); err != MPI_SUCCESS) return err;
  MPI_Datatype bad = MPI_DATATYPE_NULL;
  if (!convert<true>(*c.type, static_cast<std::size_t>(incount), static_cast<const unsigned char*>(inbuf),
                     static_cast<unsigned char*>(outbuf) + *position, &bad)) {
    return raise(nullptr, MPI_ERR_CONVERSION, function, "a value of datatype %d does not fit its external32 size",
                 bad);
  }
  *position += static_cast<MPI_Count>(c.bytes);
  return MPI_SUCCESS;
}

int unpack_external(const char* function, const char datarep[], const void* inbuf, MPI_Count insize,
                    MPI_Count* position, void* outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  Checked c;
  if (int err = check_external(function, datarep, outcount, datatype, &c); err != MPI_SUCCESS) return err;
  if (int err = check_buffer(function, c, datatype, inbuf, insize, position); err != MPI_SUCCESS) return err;
  MPI_Datatype bad = MPI_DATATYPE_NULL;
  (void)convert<false>(*c.type, static_cast<std::size_t>(outcount),
                       static_cast<const unsigned char*>(inbuf) + *position, static_cast<unsigned char*>(outbuf),
                       &bad);
  *position += static_cast<MPI_Count>(c.bytes);
  return MPI_SUCCESS;
}

// The MPI_Aint forms: position in and out through an MPI_Count.
template <typename Call>
int with_position(MPI_Aint* position, Call call) {
  MPI_Count at = position != nullptr ? *position : 0;
  const int err = call(position != nullptr ? &at : nullptr);
  if (err == MPI_SUCCESS) *position = static_cast<MPI_Aint>(at);
  return err;
}

}  // namespace

std::size_t external32_size(const DerivedType& type, bool* ok) { return external_size(type, ok); }

bool external32_same_layout(const DerivedType& type, MPI_Datatype* offending) {
  for (const TypeRun& run : type.runs) {
    const Layout layout = layout_of(run.type);
    bool same = layout.count != 0;
    for (int p = 0; same && p < layout.count; ++p) same = layout.fields[p].native == layout.fields[p].external;
    if (!same) {
      *offending = run.type;
      return false;
    }
  }
  return true;
}

bool external32_pack(const DerivedType& type, std::size_t count, const void* from, void* to, MPI_Datatype* bad) {
  return convert<true>(type, count, static_cast<const unsigned char*>(from), static_cast<unsigned char*>(to), bad);
}

void external32_unpack(const DerivedType& type, std::size_t count, const void* from, void* to) {
  MPI_Datatype unused = MPI_DATATYPE_NULL;
  (void)convert<false>(type, count, static_cast<const unsigned char*>(from), static_cast<unsigned char*>(to), &unused);
}

}  // namespace tern::mpi

using namespace tern::mpi;

extern "C" {

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint* size) {
  MPI_Count bytes = 0;
  const int err = pack_external_size("MPI_Pack_external_size", datarep, incount, datatype,
                                     size != nullptr ? &bytes : nullptr);
  if (err == MPI_SUCCESS) *size = static_cast<MPI_Aint>(bytes);
  return err;
}

int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype, MPI_Count* size) {
  return pack_external_size("MPI_Pack_external_size_c", datarep, incount, datatype, size);
}

int PMPI_Pack_external(const char datarep[], const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                       MPI_Aint outsize, MPI_Aint* position) {
  return with_position(position, [&](MPI_Count* at) {
    return pack_external("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf, outsize, at);
  });
}

int PMPI_Pack_external_c(const char datarep[], const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
                         void* outbuf, MPI_Count outsize, MPI_Count* position) {
  return pack_external("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf, outsize, position);
}

int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position, void* outbuf,
                         int outcount, MPI_Datatype datatype) {
  return with_position(position, [&](MPI_Count* at) {
    return unpack_external("MPI_Unpack_external", datarep, inbuf, insize, at, outbuf, outcount, datatype);
  });
}

int PMPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize, MPI_Count* position,
                           void* outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  return unpack_external("MPI_Unpack_external_c", datarep, inbuf, insize, position, outbuf, outcount, datatype);
}

#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
#pragma weak MPI_Pack_external = PMPI_Pack_external
#pragma weak MPI_Unpack_external = PMPI_Unpack_external
#pragma weak MPI_Pack_external_size_c = PMPI_Pack_external_size_c
#pragma weak MPI_Pack_external_c = PMPI_Pack_external_c
#pragma weak MPI_Unpack_external_c = PMPI_Unpack_external_c

}  // extern "C"
