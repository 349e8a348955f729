// MPI 4.0 partitioned communication calls: MPI_Psend_init, MPI_Precv_init,
// MPI_Pready, MPI_Pready_range, MPI_Pready_list, MPI_Parrived. The epochs
// (MPI_Start, the Wait/Test family) are in partitioned.cpp through the
// request machinery; how they travel is in partitioned.hpp.
#include "info/info.hpp"
#include "p2p/p2p.hpp"
#include "p2p/partitioned.hpp"

namespace tern::mpi {
namespace {

int init_partitioned(const char* function, const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                     int peer, int tag, MPI_Comm handle, MPI_Info info, MPI_Request* request, bool receive) {
  Comm* comm = nullptr;
  std::size_t bytes = 0;
  std::shared_ptr<const DerivedType> derived;
  // Wildcards pass this check and are refused below with their own message.
  if (int err = check_request_args(function, handle, buf, count, datatype, peer, tag, true, request, comm, bytes,
                                   &derived);
      TERN_UNLIKELY(err != MPI_SUCCESS)) {
    return err;
  }
  if (peer == MPI_ANY_SOURCE) {
    return raise(comm, MPI_ERR_RANK, function, "MPI_ANY_SOURCE is not allowed in partitioned communication");
  }
  if (tag == MPI_ANY_TAG) {
    return raise(comm, MPI_ERR_TAG, function, "MPI_ANY_TAG is not allowed in partitioned communication");
  }
  if (partitions < 1 || partitions > PartitionedRequest::kMaxPartitions) {
    return raise(comm, MPI_ERR_ARG, function, "invalid partition count %d (valid: 1 to %d)", partitions,
                 PartitionedRequest::kMaxPartitions);
  }
  std::size_t total = 0;
  if (__builtin_mul_overflow(bytes, static_cast<std::size_t>(partitions), &total)) {
    return raise(comm, MPI_ERR_COUNT, function, "%d partitions of %lld elements overflow a size_t", partitions,
                 static_cast<long long>(count));
  }
  if (info != MPI_INFO_NULL) {
    InfoEntries entries;
    if (!info_entries(info, entries)) return raise(comm, MPI_ERR_INFO, function, "invalid info %d", info);
  }
  // Ranks travel in 23 bits on the partitioned lane (partitioned.hpp).
  if (comm->size > PartitionedRequest::kMaxPartitions || comm->peer_count() > PartitionedRequest::kMaxPartitions) {
    return raise(comm, MPI_ERR_COMM, function, "partitioned communication takes communicators of up to %d ranks",
                 PartitionedRequest::kMaxPartitions);
  }
  PartitionedRequest::Setup setup;
  setup.receive = receive;
  setup.buffer = const_cast<void*>(buf);
  setup.partitions = partitions;
  setup.count = static_cast<std::size_t>(count);
  setup.partition_bytes = bytes;
  setup.derived = std::move(derived);
  setup.peer = peer;
  setup.tag = tag;
  const char* why = nullptr;
  std::shared_ptr<PartitionedRequest> partitioned = PartitionedRequest::create(std::move(setup), why);
  if (partitioned == nullptr) return raise(comm, MPI_ERR_NO_MEM, function, "%s", why);
  RequestSlot* slot = nullptr;
  const MPI_Request handle_out = g_state->requests.get(slot);
  if (TERN_UNLIKELY(handle_out == MPI_REQUEST_NULL)) {
    return raise(comm, MPI_ERR_NO_MEM, function, "no memory for another request");
  }
  slot->kind = receive ? RequestKind::Recv : RequestKind::Send;
  slot->comm = handle;
  slot->persistent = true;
  slot->active = false;
  slot->peer = peer;
  slot->tag = tag;
  slot->partitioned = std::move(partitioned);
  *request = handle_out;
  return MPI_SUCCESS;
}

// The partitioned request `handle` names, of the side `function` takes.
int find_partitioned(const char* function, MPI_Request handle, bool receive, PartitionedRequest*& request,
                     const Comm*& comm) {
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(function);
  RequestSlot* slot = g_state->requests.find(handle);
  if (TERN_UNLIKELY(slot == nullptr || slot->partitioned == nullptr)) {
    return raise(nullptr, MPI_ERR_REQUEST, function, "request %d is not a partitioned request", handle);
  }
  comm = find_comm(slot->comm);
  request = slot->partitioned.get();
  if (TERN_UNLIKELY(request->receive() != receive)) {
    return raise(comm, MPI_ERR_REQUEST, function, "request %d is a partitioned %s; %s takes a partitioned %s", handle,
                 request->receive() ? "receive" : "send", function, receive ? "receive" : "send");
  }
  return MPI_SUCCESS;
}

int check_partition(const char* function, const PartitionedRequest& request, const Comm* comm, MPI_Request handle,
                    int partition) {
  if (TERN_LIKELY(partition >= 0 && partition < request.partitions())) return MPI_SUCCESS;
  return raise(comm, MPI_ERR_ARG, function, "partition %d out of range: request %d has partitions 0 to %d", partition,
               handle, request.partitions() - 1);
}

int ready_one(const char* function, PartitionedRequest& request, const Comm* comm, MPI_Request handle,
              int partition) {
  switch (request.ready(partition)) {
    case PartitionedRequest::Ready::Ok: return MPI_SUCCESS;
    case PartitionedRequest::Ready::Inactive:
      return raise(comm, MPI_ERR_OTHER, function, "partition %d: request %d is not active (MPI_Start it first)",
                   partition, handle);
    case PartitionedRequest::Ready::Twice:
      return raise(comm, MPI_ERR_OTHER, function, "partition %d of request %d is ready already in this epoch",
                   partition, handle);
  }
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Psend_init(const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return init_partitioned("MPI_Psend_init", buf, partitions, count, datatype, dest, tag, comm, info, request, false);
}

int PMPI_Precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return init_partitioned("MPI_Precv_init", buf, partitions, count, datatype, source, tag, comm, info, request, true);
}

int PMPI_Pready(int partition, MPI_Request request) {
  constexpr const char* kFunction = "MPI_Pready";
  PartitionedRequest* partitioned = nullptr;
  const Comm* comm = nullptr;
  if (int err = find_partitioned(kFunction, request, false, partitioned, comm); TERN_UNLIKELY(err != MPI_SUCCESS)) {
    return err;
  }
  if (int err = check_partition(kFunction, *partitioned, comm, request, partition); TERN_UNLIKELY(err != MPI_SUCCESS)) {
    return err;
  }
  return ready_one(kFunction, *partitioned, comm, request, partition);
}

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  constexpr const char* kFunction = "MPI_Pready_range";
  PartitionedRequest* partitioned = nullptr;
  const Comm* comm = nullptr;
  if (int err = find_partitioned(kFunction, request, false, partitioned, comm); err != MPI_SUCCESS) return err;
  if (int err = check_partition(kFunction, *partitioned, comm, request, partition_low); err != MPI_SUCCESS) return err;
  if (int err = check_partition(kFunction, *partitioned, comm, request, partition_high); err != MPI_SUCCESS) return err;
  if (partition_low > partition_high) {
    return raise(comm, MPI_ERR_ARG, kFunction, "partition_low %d is above partition_high %d", partition_low,
                 partition_high);
  }
  for (int partition = partition_low; partition <= partition_high; ++partition) {
    if (int err = ready_one(kFunction, *partitioned, comm, request, partition); err != MPI_SUCCESS) return err;
  }
  return MPI_SUCCESS;
}

int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request) {
  constexpr const char* kFunction = "MPI_Pready_list";
  PartitionedRequest* partitioned = nullptr;
  const Comm* comm = nullptr;
  if (int err = find_partitioned(kFunction, request, false, partitioned, comm); err != MPI_SUCCESS) return err;
  if (length < 0) return raise(comm, MPI_ERR_ARG, kFunction, "invalid length %d", length);
  if (length > 0 && array_of_partitions == nullptr) {
    return raise(comm, MPI_ERR_ARG, kFunction, "null array_of_partitions for %d partitions", length);
  }
  // All checked before any is marked: a bad entry leaves the epoch as it was.
  for (int i = 0; i < length; ++i) {
    if (int err = check_partition(kFunction, *partitioned, comm, request, array_of_partitions[i]);
        err != MPI_SUCCESS) {
      return err;
    }
  }
  for (int i = 0; i < length; ++i) {
    if (int err = ready_one(kFunction, *partitioned, comm, request, array_of_partitions[i]); err != MPI_SUCCESS) {
      return err;
    }
  }
  return MPI_SUCCESS;
}

int PMPI_Parrived(MPI_Request request, int partition, int* flag) {
  constexpr const char* kFunction = "MPI_Parrived";
  PartitionedRequest* partitioned = nullptr;
  const Comm* comm = nullptr;
  if (int err = find_partitioned(kFunction, request, true, partitioned, comm); TERN_UNLIKELY(err != MPI_SUCCESS)) {
    return err;
  }
  if (TERN_UNLIKELY(flag == nullptr)) return raise(comm, MPI_ERR_ARG, kFunction, "null flag argument");
  if (int err = check_partition(kFunction, *partitioned, comm, request, partition); TERN_UNLIKELY(err != MPI_SUCCESS)) {
    return err;
  }
  if (!partitioned->arrived(partition)) {
    progress_for_test();
    if (int error = partitioned->failure(); TERN_UNLIKELY(error != MPI_SUCCESS)) {
      *flag = 0;
      return raise(comm, error, kFunction, "request %d failed before partition %d arrived", request, partition);
    }
  }
  *flag = partitioned->arrived(partition) ? 1 : 0;
  return MPI_SUCCESS;
}

#pragma weak MPI_Psend_init = PMPI_Psend_init
#pragma weak MPI_Precv_init = PMPI_Precv_init
#pragma weak MPI_Pready = PMPI_Pready
#pragma weak MPI_Pready_range = PMPI_Pready_range
#pragma weak MPI_Pready_list = PMPI_Pready_list
#pragma weak MPI_Parrived = PMPI_Parrived

}  // extern "C"
