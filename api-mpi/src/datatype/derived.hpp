// Derived datatypes: every type (predefined ones included) described as its
// type map in order, run-length coded as runs of equal basic elements, and
// flattened into (offset, length) byte blocks for pack/unpack. A type is
// "contiguous" when it is one block at offset 0 with extent == size; such
// types take the zero-copy paths unchanged, others go through a temporary
// packed buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attr/attributes.hpp"
#include "handle.hpp"
#include "mpi.h"

namespace tern::mpi {

// Derived handles start here; below are the predefined ones (datatype.cpp).
inline constexpr MPI_Datatype kDerivedBase = 0x10000;
// Derived handles carry a generation (handle.hpp) above slots kDerivedBase on.
using DerivedHandle = GenerationalHandle<22>;
[[nodiscard]] inline bool is_derived_handle(MPI_Datatype type) noexcept { return type >= kDerivedBase; }

struct TypeRun {  // `count` basic elements of `elem_size` bytes from `offset`
  MPI_Aint offset;
  std::size_t elem_size;
  std::size_t count;
  // The predefined type of those elements: MPI_Pack_external converts each
  // element by its type, which the size alone does not tell (int or float).
  MPI_Datatype type;
};
struct TypeBlock {
  MPI_Aint offset;
  std::size_t length;
};

struct DerivedType;

// How a type was made, for MPI_Type_get_envelope/get_contents: the
// constructor's combiner and its arguments in the standard's order. The old
// types are held, not named by handle: the user may free them meanwhile.
struct TypeContents {
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<std::shared_ptr<const DerivedType>> types;
  // A large-count (_c) constructor's counts and displacements (MPI_Type_get_contents_c).
  std::vector<MPI_Count> large_counts;
};

struct DerivedType {
  std::vector<TypeRun> runs;      // type map, in order
  std::vector<TypeBlock> blocks;  // the same bytes, adjacent runs merged
  std::size_t size = 0;           // bytes of data
  std::size_t elements = 0;       // basic elements
  MPI_Aint lb = 0, extent = 0;
  MPI_Aint true_lb = 0, true_extent = 0;
  std::size_t align = 1;          // largest alignment of the basic elements
  // The one predefined type all basic elements are (pair types count as one);
  // MPI_DATATYPE_NULL when they mix types or there are none.
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  bool mixed = false;             // elements of more than one predefined type
  bool explicit_bounds = false;   // resized (no struct padding)
  bool contiguous = false;
  bool committed = false;
  bool predefined = false;
  std::string name;
  TypeContents contents;
  // MPI_Type_set_attr's (attr/type_attributes.cpp); a copy of the
  // description starts without any.
  AttributeList attributes;
};

// The description of `type` (predefined or derived); null when invalid.
[[nodiscard]] std::shared_ptr<const DerivedType> describe_type(MPI_Datatype type);
// The same for a predefined type, without the table's lock or a reference
// count (their descriptions live as long as the process); null for any
// other handle. For calls as short as one MPI_Put.
inline constexpr int kPredefinedTypes = MPI_C_LONG_DOUBLE_COMPLEX + 1;
// Filled once, when the type table is built (the first datatype call).
extern const DerivedType* g_predefined_descriptions[kPredefinedTypes];
[[nodiscard]] const DerivedType* predefined_description_slow(MPI_Datatype type) noexcept;
[[nodiscard]] inline const DerivedType* predefined_description(MPI_Datatype type) noexcept {
  if (type <= 0 || type >= kPredefinedTypes) return nullptr;
  const DerivedType* description = g_predefined_descriptions[type];
  return description != nullptr ? description : predefined_description_slow(type);
}
// The same, for the calls that change what a handle carries besides its
// type map (attributes).
[[nodiscard]] std::shared_ptr<DerivedType> describe_type_mutable(MPI_Datatype type);
// Replaces how the derived type `type` was made (array_types.cpp builds
// subarrays and darrays from other constructors).
void record_contents(MPI_Datatype type, TypeContents contents);
// A new handle for a copy of `type` (MPI_Type_get_contents' old types);
// MPI_DATATYPE_NULL when out of handles.
[[nodiscard]] MPI_Datatype publish_copy(const DerivedType& type);

// Gathers `count` instances at `buffer` into `out` (count * size bytes).
void pack_data(const DerivedType& type, const void* buffer, std::size_t count, void* out) noexcept;
// Scatters the first `bytes` of `in` into `count` instances at `buffer`.
void unpack_data(const DerivedType& type, const void* in, std::size_t bytes, void* buffer, std::size_t count) noexcept;

// Storage for `count` instances of a type laid out as in a user buffer
// (holes included), addressed from the type's origin: where user operations
// on derived types see their operands.
class LayoutBuffer {
 public:
  LayoutBuffer(const DerivedType& type, std::size_t count) {
    if (count == 0) return;
    MPI_Aint first = type.true_lb;
    MPI_Aint last = type.true_lb + type.true_extent;
    const MPI_Aint strides = static_cast<MPI_Aint>(count - 1) * type.extent;
    (strides < 0 ? first : last) += strides;
    storage_.resize(static_cast<std::size_t>(last - first) + 1);
    shift_ = first;
  }
  // Where instance 0 starts (its lower bound may lie before the storage's first byte
  // only by `shift_`, which the storage covers).
  [[nodiscard]] void* origin() noexcept { return storage_.data() - shift_; }

 private:
  std::vector<char> storage_;
  MPI_Aint shift_ = 0;
};

// The datatype queries in their MPI_Count form (type_lookup.cpp), under
// the int calls, the _x calls of MPI 3 and the _c calls of MPI 4 alike.
// `function` names the call in errors.
int size_query(const char* function, MPI_Datatype datatype, MPI_Count* size);
int extent_query(const char* function, MPI_Datatype datatype, bool true_extent, MPI_Count* lb, MPI_Count* extent);
// Basic elements in the status's message; MPI_UNDEFINED when not whole.
int elements_query(const char* function, const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count);
// MPI_Get_count (datatype.cpp): whole copies of the type in the message, MPI_UNDEFINED when not whole.
int count_query(const char* function, const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count);
// One of those queries for an int result: MPI_UNDEFINED where the count does not fit, as the standard
// asks of MPI_Get_count, MPI_Get_elements and MPI_Type_size. `query` takes the MPI_Count* to fill (null
// when `result` is, for its null-argument error).
template <typename Query>
int int_query(int* result, Query query) {
  MPI_Count value = 0;
  const int err = query(result != nullptr ? &value : nullptr);
  if (err == MPI_SUCCESS) *result = value > 0x7FFFFFFF ? MPI_UNDEFINED : static_cast<int>(value);
  return err;
}

// Basic elements in `bytes` of a message of `type`; -1 when not whole.
[[nodiscard]] long long elements_in(const DerivedType& type, std::size_t bytes) noexcept;

// A non-contiguous send/receive's temporary buffer and what to unpack into
// at completion (held by the request slot, request/request.cpp).
struct PackedTransfer {
  void* temp = nullptr;
  std::shared_ptr<const DerivedType> type;  // receives: unpack with it
  void* user_buffer = nullptr;
  std::size_t count = 0;
};
// Unpacks `received` bytes (receives) and frees the temporary buffer.
void complete_transfer(PackedTransfer& transfer, bool receive, std::size_t received) noexcept;
// MPI_Finalize: completes the packed transfers of freed requests.
void finalize_packed_requests();

// Collectives with derived types, through pack/unpack (coll/derived.cpp; the calls in coll/ route them there,
// int and _c forms alike: `function` names the call for its errors).
int derived_bcast(const char* function, void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int derived_gather(const char* function, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int derived_scatter(const char* function, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int derived_gatherv(const char* function, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
int derived_scatterv(const char* function, const void* sendbuf, const int sendcounts[], const int displs[],
                     MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                     MPI_Comm comm);
// `uniform`: MPI_Allgather (every block recvcounts[0] at r * recvcounts[0]).
int derived_allgatherv(const char* function, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, bool uniform);
int derived_alltoallv(const char* function, const void* sendbuf, const int sendcounts[], const int sdispls[],
                      MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                      MPI_Datatype recvtype, MPI_Comm comm);
// Reductions on types whose elements are all one predefined type: packed to
// an array of that type, reduced, unpacked.
int derived_reduce(const char* function, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPI_Comm comm);
int derived_allreduce(const char* function, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm);
int derived_reduce_scatter_block(const char* function, const void* sendbuf, void* recvbuf, int recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int derived_reduce_scatter(const char* function, const void* sendbuf, void* recvbuf, const int recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
// MPI_Scan (exclusive: MPI_Exscan); user operations on any derived type.
int derived_scan(const char* function, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, bool exclusive);

}  // namespace tern::mpi
