// MPI_Pack, MPI_Unpack and MPI_Pack_size in their int and large-count (_c)
// forms: one MPI_Count path each, the int forms' positions and sizes widened
// on the way in and narrowed on the way out (they cannot leave int range:
// the buffer sizes bound them).
#include <climits>
#include <limits>

#include "datatype/derived.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

// The checks MPI_Pack and MPI_Unpack share; `t` set on success.
int check_pack(const char* function, MPI_Comm comm, MPI_Datatype datatype, MPI_Count count, const void* buffer,
               MPI_Count buffer_size, const MPI_Count* position, const Comm*& c,
               std::shared_ptr<const DerivedType>& t) {
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(function);
  c = find_comm(comm);
  if (c == nullptr) return raise(nullptr, MPI_ERR_COMM, function, "invalid communicator %d", comm);
  t = describe_type(datatype);
  if (t == nullptr) return raise(c, MPI_ERR_TYPE, function, "invalid datatype %d", datatype);
  if (!t->committed) return raise(c, MPI_ERR_TYPE, function, "datatype %d is not committed", datatype);
  if (count < 0) return raise(c, MPI_ERR_COUNT, function, "invalid count %lld", count);
  if (position == nullptr || (buffer == nullptr && buffer_size != 0)) {
    return raise(c, MPI_ERR_ARG, function, "null position or packed buffer");
  }
  if (buffer_size < 0 || *position < 0 || *position > buffer_size) {
    return raise(c, MPI_ERR_ARG, function, "invalid position %lld for a packed buffer of %lld bytes", *position,
                 buffer_size);
  }
  return MPI_SUCCESS;
}

// `count` copies of the type in bytes; false when they overflow.
bool packed_bytes(const DerivedType& t, MPI_Count count, std::size_t& bytes) {
  return !__builtin_mul_overflow(static_cast<std::size_t>(count), t.size, &bytes);
}

int pack(const char* function, const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
         MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  const Comm* c = nullptr;
  std::shared_ptr<const DerivedType> t;
  if (int err = check_pack(function, comm, datatype, incount, outbuf, outsize, position, c, t); err != MPI_SUCCESS) {
    return err;
  }
  std::size_t bytes = 0;
  if (!packed_bytes(*t, incount, bytes) || bytes > static_cast<std::size_t>(outsize - *position)) {
    return raise(c, MPI_ERR_TRUNCATE, function, "%lld copies of datatype %d do not fit in the %lld bytes left",
                 incount, datatype, outsize - *position);
  }
  pack_data(*t, inbuf, static_cast<std::size_t>(incount), static_cast<char*>(outbuf) + *position);
  *position += static_cast<MPI_Count>(bytes);
  return MPI_SUCCESS;
}

int unpack(const char* function, const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
           MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  const Comm* c = nullptr;
  std::shared_ptr<const DerivedType> t;
  if (int err = check_pack(function, comm, datatype, outcount, inbuf, insize, position, c, t); err != MPI_SUCCESS) {
    return err;
  }
  std::size_t bytes = 0;
  if (!packed_bytes(*t, outcount, bytes) || bytes > static_cast<std::size_t>(insize - *position)) {
    return raise(c, MPI_ERR_TRUNCATE, function, "%lld copies of datatype %d asked, %lld bytes left in the input",
                 outcount, datatype, insize - *position);
  }
  unpack_data(*t, static_cast<const char*>(inbuf) + *position, bytes, outbuf, static_cast<std::size_t>(outcount));
  *position += static_cast<MPI_Count>(bytes);
  return MPI_SUCCESS;
}

// `limit`: the largest size the caller's argument holds; beyond it MPI_ERR_VALUE_TOO_LARGE.
int pack_size(const char* function, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size,
              MPI_Count limit) {
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(function);
  const Comm* c = find_comm(comm);
  if (c == nullptr) return raise(nullptr, MPI_ERR_COMM, function, "invalid communicator %d", comm);
  const std::shared_ptr<const DerivedType> t = describe_type(datatype);
  if (t == nullptr) return raise(c, MPI_ERR_TYPE, function, "invalid datatype %d", datatype);
  if (incount < 0) return raise(c, MPI_ERR_COUNT, function, "invalid count %lld", incount);
  if (size == nullptr) return raise(c, MPI_ERR_ARG, function, "null size argument");
  std::size_t bytes = 0;
  if (!packed_bytes(*t, incount, bytes)) {
    return raise(c, MPI_ERR_COUNT, function, "%lld copies of datatype %d: their bytes overflow a size_t", incount,
                 datatype);
  }
  if (bytes > static_cast<std::size_t>(limit)) {
    return raise(c, MPI_ERR_VALUE_TOO_LARGE, function, "%lld copies of datatype %d pack to more than %lld bytes%s",
                 incount, datatype, limit, limit == INT_MAX ? " (INT_MAX; MPI_Pack_size_c returns any size)" : "");
  }
  *size = static_cast<MPI_Count>(bytes);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace tern::mpi

using namespace tern::mpi;

extern "C" {

int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize, int* position,
              MPI_Comm comm) {
  MPI_Count at = position != nullptr ? *position : 0;
  const int err = pack("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, position != nullptr ? &at : nullptr,
                       comm);
  if (err == MPI_SUCCESS) *position = static_cast<int>(at);  // at most outsize
  return err;
}

int PMPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
                MPI_Count* position, MPI_Comm comm) {
  return pack("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, comm);
}

int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype datatype,
                MPI_Comm comm) {
  MPI_Count at = position != nullptr ? *position : 0;
  const int err = unpack("MPI_Unpack", inbuf, insize, position != nullptr ? &at : nullptr, outbuf, outcount,
                         datatype, comm);
  if (err == MPI_SUCCESS) *position = static_cast<int>(at);  // at most insize
  return err;
}

int PMPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf, MPI_Count outcount,
                  MPI_Datatype datatype, MPI_Comm comm) {
  return unpack("MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype, comm);
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  MPI_Count bytes = 0;
  const int err = pack_size("MPI_Pack_size", incount, datatype, comm, size != nullptr ? &bytes : nullptr, INT_MAX);
  if (err == MPI_SUCCESS) *size = static_cast<int>(bytes);
  return err;
}

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  return pack_size("MPI_Pack_size_c", incount, datatype, comm, size, std::numeric_limits<MPI_Count>::max());
}

#pragma weak MPI_Pack = PMPI_Pack
#pragma weak MPI_Pack_c = PMPI_Pack_c
#pragma weak MPI_Unpack = PMPI_Unpack
#pragma weak MPI_Unpack_c = PMPI_Unpack_c
#pragma weak MPI_Pack_size = PMPI_Pack_size
#pragma weak MPI_Pack_size_c = PMPI_Pack_size_c

}  // extern "C"
