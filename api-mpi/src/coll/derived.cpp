// Collectives on derived datatypes: each side packs its blocks into a
// contiguous temporary, the contiguous algorithm moves MPI_BYTE counts, and
// the receiving side unpacks; reductions rebuild the type's layout for user
// operations.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "datatype/derived.hpp"
#include "op/op.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

char* temp_alloc(std::size_t bytes) { return static_cast<char*>(std::malloc(bytes == 0 ? 1 : bytes)); }

}  // namespace

// --- Collectives through pack/unpack.

namespace {

// Bytes of `count` elements of a committed type, or an error (raised).
int packed_bytes(const char* function, MPI_Comm comm, int count, MPI_Datatype type,
                 std::shared_ptr<const DerivedType>& desc, int& bytes) {
  desc = describe_type(type);
  if (desc == nullptr) return raise(find_comm(comm), MPI_ERR_TYPE, function, "invalid datatype %d", type);
  if (!desc->committed) {
    return raise(find_comm(comm), MPI_ERR_TYPE, function, "datatype %d is not committed", type);
  }
  if (count < 0) return raise(find_comm(comm), MPI_ERR_COUNT, function, "invalid count %d", count);
  const unsigned long long total = static_cast<unsigned long long>(count) * desc->size;
  if (total > static_cast<unsigned long long>(std::numeric_limits<int>::max())) {
    return raise(find_comm(comm), MPI_ERR_COUNT, function, "%llu bytes of derived data exceed an int count", total);
  }
  bytes = static_cast<int>(total);
  return MPI_SUCCESS;
}

// Packs the send side of a collective into `temp` (one byte more, so that
// data() is never null), or raises the error of its type or count.
int pack_send_side(const char* function, MPI_Comm comm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                   std::vector<char>& temp, int& bytes) {
  std::shared_ptr<const DerivedType> desc;
  if (int err = packed_bytes(function, comm, sendcount, sendtype, desc, bytes); err != MPI_SUCCESS) return err;
  temp.resize(static_cast<std::size_t>(bytes) + 1);
  pack_data(*desc, sendbuf, static_cast<std::size_t>(sendcount), temp.data());
  return MPI_SUCCESS;
}

}  // namespace

int derived_bcast(const char* kFunction, void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  std::shared_ptr<const DerivedType> desc;
  int bytes = 0;
  if (int err = packed_bytes(kFunction, comm, count, datatype, desc, bytes); err != MPI_SUCCESS) return err;
  int rank = 0;
  if (int err = PMPI_Comm_rank(comm, &rank); err != MPI_SUCCESS) return err;
  if (desc->contiguous) return PMPI_Bcast(buffer, bytes, MPI_BYTE, root, comm);
  char* temp = temp_alloc(static_cast<std::size_t>(bytes));
  if (temp == nullptr) return raise(find_comm(comm), MPI_ERR_NO_MEM, kFunction, "no memory for %d bytes", bytes);
  if (rank == root) pack_data(*desc, buffer, static_cast<std::size_t>(count), temp);
  const int err = PMPI_Bcast(temp, bytes, MPI_BYTE, root, comm);
  if (err == MPI_SUCCESS && rank != root) {
    unpack_data(*desc, temp, static_cast<std::size_t>(bytes), buffer, static_cast<std::size_t>(count));
  }
  std::free(temp);
  return err;
}

int derived_gather(const char* kFunction, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  int rank = 0, size = 0;
  if (int err = PMPI_Comm_rank(comm, &rank); err != MPI_SUCCESS) return err;
  if (int err = PMPI_Comm_size(comm, &size); err != MPI_SUCCESS) return err;
  const bool is_root = rank == root;
  const bool in_place = is_root && sendbuf == MPI_IN_PLACE;
  std::shared_ptr<const DerivedType> sdesc, rdesc;
  int send_bytes = 0, recv_bytes = 0;
  char* send_temp = nullptr;
  char* recv_temp = nullptr;
  if (!in_place) {
    if (int err = packed_bytes(kFunction, comm, sendcount, sendtype, sdesc, send_bytes); err != MPI_SUCCESS) {
      return err;
    }
    send_temp = temp_alloc(static_cast<std::size_t>(send_bytes));
    if (send_temp == nullptr) return raise(find_comm(comm), MPI_ERR_NO_MEM, kFunction, "no memory");
    pack_data(*sdesc, sendbuf, static_cast<std::size_t>(sendcount), send_temp);
  }
  if (is_root) {
    if (int err = packed_bytes(kFunction, comm, recvcount, recvtype, rdesc, recv_bytes); err != MPI_SUCCESS) {
      std::free(send_temp);
      return err;
    }
    recv_temp = temp_alloc(static_cast<std::size_t>(recv_bytes) * static_cast<std::size_t>(size));
    if (recv_temp == nullptr) {
      std::free(send_temp);
      return raise(find_comm(comm), MPI_ERR_NO_MEM, kFunction, "no memory");
    }
    if (in_place) {
      const char* mine = static_cast<const char*>(recvbuf) + static_cast<MPI_Aint>(root) * recvcount * rdesc->extent;
      pack_data(*rdesc, mine, static_cast<std::size_t>(recvcount),
                recv_temp + static_cast<std::size_t>(root) * static_cast<std::size_t>(recv_bytes));
    }
  }
  const int err = PMPI_Gather(in_place ? MPI_IN_PLACE : send_temp, send_bytes, MPI_BYTE, recv_temp, recv_bytes,
                              MPI_BYTE, root, comm);
  if (err == MPI_SUCCESS && is_root) {
    for (int r = 0; r < size; ++r) {
      unpack_data(*rdesc, recv_temp + static_cast<std::size_t>(r) * static_cast<std::size_t>(recv_bytes),
                  static_cast<std::size_t>(recv_bytes),
                  static_cast<char*>(recvbuf) + static_cast<MPI_Aint>(r) * recvcount * rdesc->extent,
                  static_cast<std::size_t>(recvcount));
    }
  }
  std::free(send_temp);
  std::free(recv_temp);
  return err;
}

int derived_scatter(const char* kFunction, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  int rank = 0, size = 0;
  if (int err = PMPI_Comm_rank(comm, &rank); err != MPI_SUCCESS) return err;
  if (int err = PMPI_Comm_size(comm, &size); err != MPI_SUCCESS) return err;
  const bool is_root = rank == root;
  const bool in_place = is_root && recvbuf == MPI_IN_PLACE;
  std::shared_ptr<const DerivedType> sdesc, rdesc;
  int send_bytes = 0, recv_bytes = 0;
  char* send_temp = nullptr;
  char* recv_temp = nullptr;
  if (is_root) {
    if (int err = packed_bytes(kFunction, comm, sendcount, sendtype, sdesc, send_bytes); err != MPI_SUCCESS) {
      return err;
    }
    send_temp = temp_alloc(static_cast<std::size_t>(send_bytes) * static_cast<std::size_t>(size));
    if (send_temp == nullptr) return raise(find_comm(comm), MPI_ERR_NO_MEM, kFunction, "no memory");
    for (int r = 0; r < size; ++r) {
      if (in_place && r == root) continue;
      pack_data(*sdesc, static_cast<const char*>(sendbuf) + static_cast<MPI_Aint>(r) * sendcount * sdesc->extent,
                static_cast<std::size_t>(sendcount),
                send_temp + static_cast<std::size_t>(r) * static_cast<std::size_t>(send_bytes));
    }
  }
  if (!in_place) {
    if (int err = packed_bytes(kFunction, comm, recvcount, recvtype, rdesc, recv_bytes); err != MPI_SUCCESS) {
      std::free(send_temp);
      return err;
    }
    recv_temp = temp_alloc(static_cast<std::size_t>(recv_bytes));
    if (recv_temp == nullptr) {
      std::free(send_temp);
      return raise(find_comm(comm), MPI_ERR_NO_MEM, kFunction, "no memory");
    }
  }
  const int err = PMPI_Scatter(send_temp, send_bytes, MPI_BYTE, in_place ? MPI_IN_PLACE : recv_temp, recv_bytes,
                               MPI_BYTE, root, comm);
  if (err == MPI_SUCCESS && !in_place) {
    unpack_data(*rdesc, recv_temp, static_cast<std::size_t>(recv_bytes), recvbuf,
                static_cast<std::size_t>(recvcount));
  }
  std::free(send_temp);
  std::free(recv_temp);
  return err;
}


// --- The v-collectives, Allgather and Alltoall through pack/unpack: every
// block r of counts[r] elements at displs[r] extents is packed into a
// contiguous temporary at byte displacement bdispls[r]; the contiguous
// algorithm runs on MPI_BYTE counts.

namespace {

// One side's layout: the type and the blocks' packed byte counts/offsets.
struct VLayout {
  std::shared_ptr<const DerivedType> desc;
  std::vector<int> bcounts, bdispls;
  std::vector<char> temp;
};

int layout_v(const char* function, MPI_Comm comm, int n, const int counts[], const int displs[],
             MPI_Datatype type, const char* what, VLayout& out) {
  if (counts == nullptr || displs == nullptr) {
    return raise(find_comm(comm), MPI_ERR_ARG, function, "null %s counts or displacements", what);
  }
  out.bcounts.resize(static_cast<std::size_t>(n));
  out.bdispls.resize(static_cast<std::size_t>(n));
  unsigned long long total = 0;
  for (int r = 0; r < n; ++r) {
    int bytes = 0;
    if (int err = packed_bytes(function, comm, counts[r], type, out.desc, bytes); err != MPI_SUCCESS) return err;
    out.bcounts[static_cast<std::size_t>(r)] = bytes;
    out.bdispls[static_cast<std::size_t>(r)] = static_cast<int>(total);
    total += static_cast<unsigned long long>(bytes);
    if (total > static_cast<unsigned long long>(std::numeric_limits<int>::max())) {
      return raise(find_comm(comm), MPI_ERR_COUNT, function, "%llu bytes of derived data exceed an int count",
                   total);
    }
  }
  if (n == 0) out.desc = describe_type(type);
  out.temp.resize(static_cast<std::size_t>(total) + 1);
  return MPI_SUCCESS;
}

const char* block_at(const void* buffer, int displ, const DerivedType& type) {
  return static_cast<const char*>(buffer) + static_cast<MPI_Aint>(displ) * type.extent;
}
char* block_at(void* buffer, int displ, const DerivedType& type) {
  return static_cast<char*>(buffer) + static_cast<MPI_Aint>(displ) * type.extent;
}

void pack_block(VLayout& l, const void* buffer, const int counts[], const int displs[], int r) {
  const auto i = static_cast<std::size_t>(r);
  pack_data(*l.desc, block_at(buffer, displs[r], *l.desc), static_cast<std::size_t>(counts[r]),
            l.temp.data() + l.bdispls[i]);
}
void unpack_block(const VLayout& l, void* buffer, const int counts[], const int displs[], int r) {
  const auto i = static_cast<std::size_t>(r);
  unpack_data(*l.desc, l.temp.data() + l.bdispls[i], static_cast<std::size_t>(l.bcounts[i]),
              block_at(buffer, displs[r], *l.desc), static_cast<std::size_t>(counts[r]));
}

int comm_shape(MPI_Comm comm, int& rank, int& size) {
  if (int err = PMPI_Comm_rank(comm, &rank); err != MPI_SUCCESS) return err;
  return PMPI_Comm_size(comm, &size);
}

}  // namespace

int derived_gatherv(const char* kFunction, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  int rank = 0, size = 0;
  if (int err = comm_shape(comm, rank, size); err != MPI_SUCCESS) return err;
  const bool is_root = rank == root;
  const bool in_place = is_root && sendbuf == MPI_IN_PLACE;
  int send_bytes = 0;
  std::vector<char> send_temp;
  if (!in_place) {
    if (int err = pack_send_side(kFunction, comm, sendbuf, sendcount, sendtype, send_temp, send_bytes);
        err != MPI_SUCCESS) {
      return err;
    }
  }
  VLayout recv;
  if (is_root) {
    if (int err = layout_v(kFunction, comm, size, recvcounts, displs, recvtype, "receive", recv); err != MPI_SUCCESS) {
      return err;
    }
    if (in_place) pack_block(recv, recvbuf, recvcounts, displs, root);
  }
  const int err = PMPI_Gatherv(in_place ? MPI_IN_PLACE : send_temp.data(), send_bytes, MPI_BYTE,
                               is_root ? recv.temp.data() : nullptr, recv.bcounts.data(), recv.bdispls.data(),
                               MPI_BYTE, root, comm);
  if (err == MPI_SUCCESS && is_root) {
    for (int r = 0; r < size; ++r) unpack_block(recv, recvbuf, recvcounts, displs, r);
  }
  return err;
}

int derived_scatterv(const char* kFunction, const void* sendbuf, const int sendcounts[], const int displs[],
                     MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                     MPI_Comm comm) {
  int rank = 0, size = 0;
  if (int err = comm_shape(comm, rank, size); err != MPI_SUCCESS) return err;
  const bool is_root = rank == root;
  const bool in_place = is_root && recvbuf == MPI_IN_PLACE;
  VLayout send;
  if (is_root) {
    if (int err = layout_v(kFunction, comm, size, sendcounts, displs, sendtype, "send", send); err != MPI_SUCCESS) {
      return err;
    }
    for (int r = 0; r < size; ++r) {
      if (!(in_place && r == root)) pack_block(send, sendbuf, sendcounts, displs, r);
    }
  }
  std::shared_ptr<const DerivedType> rdesc;
  int recv_bytes = 0;
  std::vector<char> recv_temp;
  if (!in_place) {
    if (int err = packed_bytes(kFunction, comm, recvcount, recvtype, rdesc, recv_bytes); err != MPI_SUCCESS) {
      return err;
    }
    recv_temp.resize(static_cast<std::size_t>(recv_bytes) + 1);
  }
  const int err = PMPI_Scatterv(is_root ? send.temp.data() : nullptr, send.bcounts.data(), send.bdispls.data(),
                                MPI_BYTE, in_place ? MPI_IN_PLACE : recv_temp.data(), recv_bytes, MPI_BYTE, root,
                                comm);
  if (err == MPI_SUCCESS && !in_place) {
    unpack_data(*rdesc, recv_temp.data(), static_cast<std::size_t>(recv_bytes), recvbuf,
                static_cast<std::size_t>(recvcount));
  }
  return err;
}

int derived_allgatherv(const char* kFunction, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, bool uniform) {
  int rank = 0, size = 0;
  if (int err = comm_shape(comm, rank, size); err != MPI_SUCCESS) return err;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  int send_bytes = 0;
  std::vector<char> send_temp;
  if (!in_place) {
    if (int err = pack_send_side(kFunction, comm, sendbuf, sendcount, sendtype, send_temp, send_bytes);
        err != MPI_SUCCESS) {
      return err;
    }
  }
  VLayout recv;
  if (int err = layout_v(kFunction, comm, size, recvcounts, displs, recvtype, "receive", recv); err != MPI_SUCCESS) {
    return err;
  }
  if (in_place) pack_block(recv, recvbuf, recvcounts, displs, rank);
  const void* out = in_place ? MPI_IN_PLACE : static_cast<const void*>(send_temp.data());
  const int err =
      uniform ? PMPI_Allgather(out, send_bytes, MPI_BYTE, recv.temp.data(), size > 0 ? recv.bcounts[0] : 0,
                               MPI_BYTE, comm)
              : PMPI_Allgatherv(out, send_bytes, MPI_BYTE, recv.temp.data(), recv.bcounts.data(),
                                recv.bdispls.data(), MPI_BYTE, comm);
  if (err == MPI_SUCCESS) {
    for (int r = 0; r < size; ++r) unpack_block(recv, recvbuf, recvcounts, displs, r);
  }
  return err;
}

int derived_alltoallv(const char* kFunction, const void* sendbuf, const int sendcounts[], const int sdispls[],
                      MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                      MPI_Datatype recvtype, MPI_Comm comm) {
  int rank = 0, size = 0;
  if (int err = comm_shape(comm, rank, size); err != MPI_SUCCESS) return err;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  VLayout send, recv;
  if (!in_place) {
    if (int err = layout_v(kFunction, comm, size, sendcounts, sdispls, sendtype, "send", send); err != MPI_SUCCESS) {
      return err;
    }
    for (int r = 0; r < size; ++r) pack_block(send, sendbuf, sendcounts, sdispls, r);
  }
  if (int err = layout_v(kFunction, comm, size, recvcounts, rdispls, recvtype, "receive", recv); err != MPI_SUCCESS) {
    return err;
  }
  if (in_place) {
    for (int r = 0; r < size; ++r) pack_block(recv, recvbuf, recvcounts, rdispls, r);
  }
  const int err = PMPI_Alltoallv(in_place ? MPI_IN_PLACE : send.temp.data(), send.bcounts.data(),
                                 send.bdispls.data(), MPI_BYTE, recv.temp.data(), recv.bcounts.data(),
                                 recv.bdispls.data(), MPI_BYTE, comm);
  if (err == MPI_SUCCESS) {
    for (int r = 0; r < size; ++r) unpack_block(recv, recvbuf, recvcounts, rdispls, r);
  }
  return err;
}

// --- Reductions. Predefined operations see the type's elements as an array
// of its one basic type. User operations (MPI_Op_create) get the datatype
// itself, so their operands are rebuilt in the type's own layout at the root.

namespace {

// `count` instances of `datatype` as `elements` of `basic`, or an error.
// With a user operation, `basic` stays MPI_DATATYPE_NULL: any type map goes.
int reduction_shape(const char* function, MPI_Comm comm, long long count, MPI_Datatype datatype, MPI_Op op,
                    std::shared_ptr<const DerivedType>& desc, MPI_Datatype& basic, int& elements) {
  int bytes = 0;
  if (count > std::numeric_limits<int>::max()) {
    return raise(find_comm(comm), MPI_ERR_COUNT, function, "count %lld exceeds an int", count);
  }
  if (int err = packed_bytes(function, comm, static_cast<int>(count), datatype, desc, bytes); err != MPI_SUCCESS) {
    return err;
  }
  basic = MPI_DATATYPE_NULL;
  elements = 0;
  if (is_user_op(op)) return MPI_SUCCESS;
  if (!valid_op(op)) return raise(find_comm(comm), MPI_ERR_OP, function, "invalid operation %d", op);
  if (desc->basic == MPI_DATATYPE_NULL) {
    return raise(find_comm(comm), MPI_ERR_OP, function,
                 "predefined operation %d on derived datatype %d, which mixes basic types (predefined operations "
                 "take derived datatypes built from one predefined type only)",
                 op, datatype);
  }
  basic = desc->basic;
  elements = static_cast<int>(static_cast<unsigned long long>(count) * desc->elements);
  return MPI_SUCCESS;
}

// Reduces everyone's `packed` contribution (count instances, packed) with a
// user operation into `result` at `root` (packed), in rank order:
// x0 op (x1 op (... op x(n-1))), as MPI requires for non-commutative ops.
int user_reduce_packed(const char* function, MPI_Comm comm, const DerivedType& desc, MPI_Datatype datatype,
                       MPI_Op op, int count, const char* packed, char* result, int root) {
  int rank = 0, size = 0;
  if (int err = comm_shape(comm, rank, size); err != MPI_SUCCESS) return err;
  const std::size_t bytes = static_cast<std::size_t>(count) * desc.size;
  if (static_cast<unsigned long long>(bytes) * static_cast<unsigned>(size) >
      static_cast<unsigned long long>(std::numeric_limits<int>::max())) {
    return raise(find_comm(comm), MPI_ERR_COUNT, function,
                 "%zu bytes from each of %d ranks exceed an int count for a user operation on a derived datatype",
                 bytes, size);
  }
  std::vector<char> all(rank == root ? bytes * static_cast<std::size_t>(size) + 1 : 1);
  if (int err = PMPI_Gather(packed, static_cast<int>(bytes), MPI_BYTE, all.data(), static_cast<int>(bytes), MPI_BYTE,
                            root, comm);
      err != MPI_SUCCESS) {
    return err;
  }
  if (rank != root || count == 0) return MPI_SUCCESS;
  LayoutBuffer accumulator(desc, static_cast<std::size_t>(count)), operand(desc, static_cast<std::size_t>(count));
  const auto instances = static_cast<std::size_t>(count);
  unpack_data(desc, all.data() + bytes * static_cast<std::size_t>(size - 1), bytes, accumulator.origin(), instances);
  for (int r = size - 2; r >= 0; --r) {
    unpack_data(desc, all.data() + bytes * static_cast<std::size_t>(r), bytes, operand.origin(), instances);
    if (int err = call_user_op(op, datatype, operand.origin(), accumulator.origin(), count); err != MPI_SUCCESS) {
      return raise(find_comm(comm), err, function, "invalid operation %d", op);
    }
  }
  pack_data(desc, accumulator.origin(), instances, result);
  return MPI_SUCCESS;
}

}  // namespace

int derived_reduce(const char* kFunction, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPI_Comm comm) {
  int rank = 0, size = 0;
  if (int err = comm_shape(comm, rank, size); err != MPI_SUCCESS) return err;
  if (count < 0) return raise(find_comm(comm), MPI_ERR_COUNT, kFunction, "invalid count %d", count);
  std::shared_ptr<const DerivedType> desc;
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  int elements = 0;
  if (int err = reduction_shape(kFunction, comm, count, datatype, op, desc, basic, elements); err != MPI_SUCCESS) {
    return err;
  }
  const bool is_root = rank == root;
  const bool in_place = is_root && sendbuf == MPI_IN_PLACE;
  const std::size_t bytes = static_cast<std::size_t>(count) * desc->size;
  if (bytes != 0 && ((!in_place && sendbuf == nullptr) || (is_root && recvbuf == nullptr))) {
    return raise(find_comm(comm), MPI_ERR_BUFFER, kFunction, "null buffer");
  }
  std::vector<char> send_temp(bytes + 1), recv_temp(is_root ? bytes + 1 : 1);
  if (bytes != 0) pack_data(*desc, in_place ? recvbuf : sendbuf, static_cast<std::size_t>(count), send_temp.data());
  int err = MPI_SUCCESS;
  if (basic == MPI_DATATYPE_NULL) {
    err = user_reduce_packed(kFunction, comm, *desc, datatype, op, count, send_temp.data(), recv_temp.data(), root);
  } else {
    err = PMPI_Reduce(send_temp.data(), is_root ? recv_temp.data() : nullptr, elements, basic, op, root, comm);
  }
  if (err == MPI_SUCCESS && is_root && bytes != 0) {
    unpack_data(*desc, recv_temp.data(), bytes, recvbuf, static_cast<std::size_t>(count));
  }
  return err;
}

int derived_allreduce(const char* kFunction, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm) {
  if (count < 0) return raise(find_comm(comm), MPI_ERR_COUNT, kFunction, "invalid count %d", count);
  std::shared_ptr<const DerivedType> desc;
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  int elements = 0;
  if (int err = reduction_shape(kFunction, comm, count, datatype, op, desc, basic, elements); err != MPI_SUCCESS) {
    return err;
  }
  const std::size_t bytes = static_cast<std::size_t>(count) * desc->size;
  const void* source = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (bytes != 0 && (source == nullptr || recvbuf == nullptr)) {
    return raise(find_comm(comm), MPI_ERR_BUFFER, kFunction, "null buffer");
  }
  std::vector<char> temp(bytes + 1);
  pack_data(*desc, source, static_cast<std::size_t>(count), temp.data());
  int err = MPI_SUCCESS;
  if (basic == MPI_DATATYPE_NULL) {
    std::vector<char> result(bytes + 1);
    err = user_reduce_packed(kFunction, comm, *desc, datatype, op, count, temp.data(), result.data(), 0);
    if (err == MPI_SUCCESS) err = PMPI_Bcast(result.data(), static_cast<int>(bytes), MPI_BYTE, 0, comm);
    temp.swap(result);
  } else {
    err = PMPI_Allreduce(MPI_IN_PLACE, temp.data(), elements, basic, op, comm);
  }
  if (err == MPI_SUCCESS) unpack_data(*desc, temp.data(), bytes, recvbuf, static_cast<std::size_t>(count));
  return err;
}

int derived_reduce_scatter(const char* function, const void* sendbuf, void* recvbuf, const int recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  int rank = 0, size = 0;
  if (int err = comm_shape(comm, rank, size); err != MPI_SUCCESS) return err;
  if (recvcounts == nullptr) return raise(find_comm(comm), MPI_ERR_ARG, function, "null recvcounts argument");
  long long total = 0;
  for (int r = 0; r < size; ++r) {
    if (recvcounts[r] < 0) {
      return raise(find_comm(comm), MPI_ERR_COUNT, function, "invalid count %d for rank %d", recvcounts[r], r);
    }
    total += recvcounts[r];
  }
  std::shared_ptr<const DerivedType> desc;
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  int elements = 0;
  if (int err = reduction_shape(function, comm, total, datatype, op, desc, basic, elements); err != MPI_SUCCESS) {
    return err;
  }
  const std::size_t all_bytes = static_cast<std::size_t>(total) * desc->size;
  const std::size_t mine = static_cast<std::size_t>(recvcounts[rank]) * desc->size;
  const void* source = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if ((all_bytes != 0 && source == nullptr) || (mine != 0 && recvbuf == nullptr)) {
    return raise(find_comm(comm), MPI_ERR_BUFFER, function, "null buffer");
  }
  std::vector<char> send_temp(all_bytes + 1), recv_temp(mine + 1);
  pack_data(*desc, source, static_cast<std::size_t>(total), send_temp.data());
  // Per-rank counts in the unit the packed call takes: basic elements for a
  // predefined operation, packed bytes for a user one.
  const auto unit = basic == MPI_DATATYPE_NULL ? desc->size : desc->elements;
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  for (int r = 0, offset = 0; r < size; ++r) {
    counts[static_cast<std::size_t>(r)] = static_cast<int>(static_cast<std::size_t>(recvcounts[r]) * unit);
    displs[static_cast<std::size_t>(r)] = offset;
    offset += counts[static_cast<std::size_t>(r)];
  }
  int err = MPI_SUCCESS;
  if (basic == MPI_DATATYPE_NULL) {
    std::vector<char> reduced(rank == 0 ? all_bytes + 1 : 1);
    err = user_reduce_packed(function, comm, *desc, datatype, op, static_cast<int>(total), send_temp.data(),
                             reduced.data(), 0);
    if (err == MPI_SUCCESS) {
      err = PMPI_Scatterv(reduced.data(), counts.data(), displs.data(), MPI_BYTE, recv_temp.data(),
                          counts[static_cast<std::size_t>(rank)], MPI_BYTE, 0, comm);
    }
  } else {
    err = PMPI_Reduce_scatter(send_temp.data(), recv_temp.data(), counts.data(), basic, op, comm);
  }
  if (err == MPI_SUCCESS) {
    unpack_data(*desc, recv_temp.data(), mine, recvbuf, static_cast<std::size_t>(recvcounts[rank]));
  }
  return err;
}

int derived_reduce_scatter_block(const char* kFunction, const void* sendbuf, void* recvbuf, int recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  int rank = 0, size = 0;
  if (int err = comm_shape(comm, rank, size); err != MPI_SUCCESS) return err;
  if (recvcount < 0) return raise(find_comm(comm), MPI_ERR_COUNT, kFunction, "invalid count %d", recvcount);
  const std::vector<int> counts(static_cast<std::size_t>(size), recvcount);
  return derived_reduce_scatter(kFunction, sendbuf, recvbuf, counts.data(), datatype, op, comm);
}

int derived_scan(const char* function, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm handle, bool exclusive) {
  Comm* comm = find_comm(handle);
  if (count < 0) return raise(comm, MPI_ERR_COUNT, function, "invalid count %d", count);
  std::shared_ptr<const DerivedType> desc;
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  int elements = 0;
  if (int err = reduction_shape(function, handle, count, datatype, op, desc, basic, elements); err != MPI_SUCCESS) {
    return err;
  }
  const std::size_t bytes = static_cast<std::size_t>(count) * desc->size;
  const void* source = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (bytes != 0 && (source == nullptr || recvbuf == nullptr)) {
    return raise(comm, MPI_ERR_BUFFER, function, "null buffer");
  }
  const auto instances = static_cast<std::size_t>(count);
  std::vector<char> mine(bytes + 1), result(bytes + 1);
  pack_data(*desc, source, instances, mine.data());
  if (basic != MPI_DATATYPE_NULL) {
    const int err = (exclusive ? PMPI_Exscan : PMPI_Scan)(mine.data(), result.data(), elements, basic, op, handle);
    if (err == MPI_SUCCESS && (!exclusive || comm->rank > 0)) unpack_data(*desc, result.data(), bytes, recvbuf, instances);
    return err;
  }
  // A user operation: the prefix travels packed along the ranks; each rank
  // combines it with its own part in the type's layout.
  const unsigned tag = next_tag_base(*comm);
  result = mine;
  if (comm->rank > 0) {
    std::vector<char> prefix(bytes + 1);
    if (Status s = coll_recv(*comm, prefix.data(), bytes, comm->rank - 1, tag); s != Status::Ok) {
      return raise(comm, error_class_of(s), function, "communication failed: %s", to_string(s));
    }
    if (count > 0) {
      LayoutBuffer left(*desc, instances), right(*desc, instances);
      unpack_data(*desc, prefix.data(), bytes, left.origin(), instances);
      unpack_data(*desc, mine.data(), bytes, right.origin(), instances);
      if (call_user_op(op, datatype, left.origin(), right.origin(), count) != MPI_SUCCESS) {
        return raise(comm, MPI_ERR_OP, function, "invalid operation %d", op);
      }
      pack_data(*desc, right.origin(), instances, result.data());
    }
    unpack_data(*desc, exclusive ? prefix.data() : result.data(), bytes, recvbuf, instances);
  } else if (!exclusive) {
    unpack_data(*desc, result.data(), bytes, recvbuf, instances);
  }
  if (comm->rank + 1 < comm->size) {
    if (Status s = coll_send(*comm, result.data(), bytes, comm->rank + 1, tag); s != Status::Ok) {
      return raise(comm, error_class_of(s), function, "communication failed: %s", to_string(s));
    }
  }
  return MPI_SUCCESS;
}

}  // namespace tern::mpi
