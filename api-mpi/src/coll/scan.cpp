// Prefix reductions and the local reduction calls: MPI_Scan and MPI_Exscan
// (int and _c forms)
// pass the running result along the ranks (rank r combines rank r - 1's
// prefix with its own part, so non-commutative operations see x0 op ... op
// xr in order), MPI_Reduce_local and MPI_Op_commutative.
#include <cstring>
#include <vector>

#include "coll/coll.hpp"
#include "coll/inter.hpp"
#include "datatype/derived.hpp"

namespace tern::mpi {
namespace {

// MPI_Scan, or MPI_Exscan when `exclusive` (rank 0's recvbuf untouched).
int prefix_reduction(const char* function, bool exclusive, const void* sendbuf, void* recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm handle) {
  if (Comm* inter = intercomm_of(handle); TERN_UNLIKELY(inter != nullptr)) return check_intracomm(*inter, function);
  if (g_state == nullptr) return not_initialized(function);
  if (TERN_UNLIKELY(is_derived_handle(datatype)) && find_comm(handle) != nullptr) {
    int narrow = 0;
    if (int err = narrow_count(find_comm(handle), function, count, kDerivedPath, narrow); err != MPI_SUCCESS) {
      return err;
    }
    return derived_scan(function, sendbuf, recvbuf, narrow, datatype, op, handle, exclusive);
  }
  Comm* comm = nullptr;
  const TypeInfo* type = nullptr;
  if (int err = check_coll(function, handle, count, datatype, comm, type); err != MPI_SUCCESS) return err;
  if (int err = check_op(function, *comm, op, datatype, *type); err != MPI_SUCCESS) return err;
  const std::size_t bytes = static_cast<std::size_t>(count) * type->size;
  if (bytes != 0 && (sendbuf == nullptr || recvbuf == nullptr)) {
    return raise(comm, MPI_ERR_BUFFER, function, "null buffer");
  }
  // What goes on to rank r + 1: x0 op ... op xr.
  std::vector<std::byte> outgoing(bytes);
  if (bytes != 0) std::memcpy(outgoing.data(), sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, bytes);
  const unsigned tag = next_tag_base(*comm);
  if (comm->rank > 0) {
    std::vector<std::byte> prefix(bytes);
    if (Status s = coll_recv(*comm, prefix.data(), bytes, comm->rank - 1, tag); s != Status::Ok) {
      return coll_failed(*comm, function, s);
    }
    (void)apply_op(op, datatype, prefix.data(), outgoing.data(), static_cast<std::size_t>(count));
    if (bytes != 0) std::memcpy(recvbuf, exclusive ? prefix.data() : outgoing.data(), bytes);
  } else if (!exclusive && bytes != 0) {
    std::memcpy(recvbuf, outgoing.data(), bytes);
  }
  if (comm->rank + 1 < comm->size) {
    if (Status s = coll_send(*comm, outgoing.data(), bytes, comm->rank + 1, tag); s != Status::Ok) {
      return coll_failed(*comm, function, s);
    }
  }
  return MPI_SUCCESS;
}

// Reduce_local on a derived type: a user operation takes it as it is; a
// predefined one sees the elements of its one basic type.
int reduce_local_derived(const char* kFunction, const void* inbuf, void* inoutbuf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Op op) {
  const std::shared_ptr<const DerivedType> desc = describe_type(datatype);
  if (desc == nullptr || !desc->committed) {
    return raise(nullptr, MPI_ERR_TYPE, kFunction, "invalid or uncommitted datatype %d", datatype);
  }
  if (is_user_op(op)) {
    if (count == 0) return MPI_SUCCESS;
    if (int err = call_user_op(op, datatype, const_cast<void*>(inbuf), inoutbuf, count); err != MPI_SUCCESS) {
      if (err == MPI_ERR_COUNT) {
        return raise(nullptr, MPI_ERR_COUNT, kFunction,
                     "count %lld of a derived datatype exceeds INT_MAX, more than the int count of an MPI_Op_create "
                     "function takes (MPI_Op_create_c's takes any)",
                     count);
      }
      return raise(nullptr, MPI_ERR_OP, kFunction, "invalid operation %d", op);
    }
    return MPI_SUCCESS;
  }
  if (desc->basic == MPI_DATATYPE_NULL) {
    return raise(nullptr, MPI_ERR_OP, kFunction,
                 "predefined operation %d on derived datatype %d, which mixes basic types", op, datatype);
  }
  const std::size_t bytes = static_cast<std::size_t>(count) * desc->size;
  std::vector<char> in(bytes + 1), inout(bytes + 1);
  pack_data(*desc, inbuf, static_cast<std::size_t>(count), in.data());
  pack_data(*desc, inoutbuf, static_cast<std::size_t>(count), inout.data());
  if (apply_op(op, desc->basic, in.data(), inout.data(), static_cast<std::size_t>(count) * desc->elements) !=
      MPI_SUCCESS) {
    return raise(nullptr, MPI_ERR_OP, kFunction, "operation %d is not defined on datatype %d", op, datatype);
  }
  unpack_data(*desc, inout.data(), bytes, inoutbuf, static_cast<std::size_t>(count));
  return MPI_SUCCESS;
}

int reduce_local(const char* kFunction, const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op) {
  if (g_state == nullptr) return not_initialized(kFunction);
  if (count < 0) return raise(nullptr, MPI_ERR_COUNT, kFunction, "invalid count %lld", count);
  if (!valid_op(op)) return raise(nullptr, MPI_ERR_OP, kFunction, "invalid operation %d", op);
  if (count > 0 && (inbuf == nullptr || inoutbuf == nullptr)) {
    return raise(nullptr, MPI_ERR_BUFFER, kFunction, "null buffer");
  }
  if (is_derived_handle(datatype)) return reduce_local_derived(kFunction, inbuf, inoutbuf, count, datatype, op);
  const TypeInfo* type = find_type(datatype);
  if (type == nullptr) return raise(nullptr, MPI_ERR_TYPE, kFunction, "invalid datatype %d", datatype);
  if (apply_op(op, datatype, inbuf, inoutbuf, static_cast<std::size_t>(count)) != MPI_SUCCESS) {
    return raise(nullptr, MPI_ERR_OP, kFunction, "operation %d is not defined on %s", op, type->name);
  }
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return prefix_reduction("MPI_Scan", false, sendbuf, recvbuf, count, datatype, op, comm);
}

int PMPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm) {
  return prefix_reduction("MPI_Scan_c", false, sendbuf, recvbuf, count, datatype, op, comm);
}

int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return prefix_reduction("MPI_Exscan", true, sendbuf, recvbuf, count, datatype, op, comm);
}

int PMPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  return prefix_reduction("MPI_Exscan_c", true, sendbuf, recvbuf, count, datatype, op, comm);
}

int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
  return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}

int PMPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op) {
  return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}

int PMPI_Op_commutative(MPI_Op op, int* commute) {
  constexpr const char* kFunction = "MPI_Op_commutative";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (!valid_op(op)) return raise(nullptr, MPI_ERR_OP, kFunction, "invalid operation %d", op);
  if (commute == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null commute argument");
  *commute = op_commutative(op);
  return MPI_SUCCESS;
}

#pragma weak MPI_Scan = PMPI_Scan
#pragma weak MPI_Exscan = PMPI_Exscan
#pragma weak MPI_Scan_c = PMPI_Scan_c
#pragma weak MPI_Exscan_c = PMPI_Exscan_c
#pragma weak MPI_Reduce_local = PMPI_Reduce_local
#pragma weak MPI_Reduce_local_c = PMPI_Reduce_local_c
#pragma weak MPI_Op_commutative = PMPI_Op_commutative

}  // extern "C"
