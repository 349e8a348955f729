// Matched probes: MPI_Mprobe/MPI_Improbe take the message out of matching
// (engine tag_probe with a Message**), so no other receive can take it;
// MPI_Mrecv/MPI_Imrecv receive exactly that message (tag_msg_recv_nb).
// Message handles index a small table.
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "p2p/p2p.hpp"

namespace tern::mpi {
namespace {

struct MessageEntry {
  engine::Message* message = nullptr;  // null: free
  MPI_Comm comm = MPI_COMM_NULL;
  int source = 0;
  int next_free = 0;        // position (slot + 1) of the next free entry, 0: none
  uint32_t generation = 0;  // of the handle that names this entry now
};

// A handle is an entry's position with the entry's generation (handle.hpp):
// a message received once and its handle reused refuses the old copy.
class MessageTable {
 public:
  using Handle = GenerationalHandle<20>;

  MPI_Message add(engine::Message* message, MPI_Comm comm, int source) {
    std::lock_guard<std::mutex> lock(mutex_);
    int position = free_head_;
    if (position == 0) {
      if (entries_.size() >= static_cast<std::size_t>(Handle::kSlotMask)) return MPI_MESSAGE_NULL;
      entries_.emplace_back();
      position = static_cast<int>(entries_.size());
    } else {
      free_head_ = entries_[position - 1].next_free;
    }
    MessageEntry& entry = entries_[position - 1];
    entry = MessageEntry{message, comm, source, 0, entry.generation};
    return Handle::make(position, entry.generation);
  }
  // Removes and returns the entry; false when `handle` is not a message.
  bool take(MPI_Message handle, MessageEntry& out) {
    std::lock_guard<std::mutex> lock(mutex_);
    const int position = Handle::slot(handle);
    if (position <= 0 || position > static_cast<int>(entries_.size())) return false;
    MessageEntry& entry = entries_[position - 1];
    if (entry.message == nullptr || !Handle::names(handle, position, entry.generation)) return false;
    out = entry;
    entry = MessageEntry{nullptr, MPI_COMM_NULL, 0, free_head_, Handle::next(entry.generation)};
    free_head_ = position;
    return true;
  }

 private:
  std::mutex mutex_;
  std::vector<MessageEntry> entries_;
  int free_head_ = 0;
};

MessageTable g_messages;

int too_many_messages(const char* function, const Comm* comm) {
  return raise(comm, MPI_ERR_INTERN, function, "too many matched messages not yet received (%d)",
               MessageTable::Handle::kSlotMask);
}

// Shared checks of Mprobe/Improbe; `comm` set on success.
int check_probe(const char* function, int source, int tag, MPI_Comm handle, const MPI_Message* message,
                Comm*& comm) {
  std::size_t bytes = 0;
  if (int err = check_args(function, handle, nullptr, 0, MPI_BYTE, source, tag, true, comm, bytes);
      err != MPI_SUCCESS) {
    return err;
  }
  if (TERN_UNLIKELY(message == nullptr)) return raise(comm, MPI_ERR_ARG, function, "null message argument");
  return MPI_SUCCESS;
}

// A probe of MPI_PROC_NULL: the no-process message and an empty status.
int no_proc_message(MPI_Message* message, MPI_Status* status) {
  *message = MPI_MESSAGE_NO_PROC;
  empty_status(status, MPI_PROC_NULL);
  return MPI_SUCCESS;
}

// Shared checks of Mrecv/Imrecv: takes the message out of the table.
int check_mrecv(const char* function, const void* buffer, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                MessageEntry& entry, Comm*& comm, std::size_t& bytes, std::shared_ptr<const DerivedType>& derived) {
  comm = nullptr;
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(function);
  if (TERN_UNLIKELY(message == nullptr)) return raise(nullptr, MPI_ERR_ARG, function, "null message argument");
  if (TERN_UNLIKELY(count < 0)) return raise(nullptr, MPI_ERR_COUNT, function, "invalid count %lld", count);
  const TypeInfo* type = find_type(datatype);
  if (TERN_UNLIKELY(type == nullptr)) {
    // Non-contiguous types set `derived`: received into a temporary, unpacked.
    if (int err = check_derived(function, nullptr, buffer, count, datatype, bytes, &derived); err != MPI_SUCCESS) {
      return err;
    }
  } else if (TERN_UNLIKELY(__builtin_mul_overflow(static_cast<std::size_t>(count), type->size, &bytes))) {
    return count_overflow(nullptr, function, count);
  }
  if (*message == MPI_MESSAGE_NO_PROC) return MPI_SUCCESS;
  if (TERN_UNLIKELY(buffer == nullptr && bytes != 0 && derived == nullptr)) {
    return raise(nullptr, MPI_ERR_BUFFER, function, "null buffer for %zu bytes", bytes);
  }
  if (TERN_UNLIKELY(!g_messages.take(*message, entry))) {
    return raise(nullptr, MPI_ERR_ARG, function, "invalid message %d (not from MPI_Mprobe/MPI_Improbe, or received already)",
                 *message);
  }
  comm = find_comm(entry.comm);
  return MPI_SUCCESS;
}

int mrecv(const char* kFunction, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
          MPI_Status* status) {
  MessageEntry entry;
  Comm* comm = nullptr;
  std::size_t bytes = 0;
  std::shared_ptr<const DerivedType> derived;
  if (int err = check_mrecv(kFunction, buf, count, datatype, message, entry, comm, bytes, derived);
      err != MPI_SUCCESS) {
    return err;
  }
  if (*message == MPI_MESSAGE_NO_PROC) {
    *message = MPI_MESSAGE_NULL;
    empty_status(status, MPI_PROC_NULL);
    return MPI_SUCCESS;
  }
  *message = MPI_MESSAGE_NULL;
  // Non-contiguous: the message lands in a temporary buffer, then unpacked.
  PackedTransfer packed;
  if (TERN_UNLIKELY(derived != nullptr)) {
    packed.temp = std::malloc(bytes == 0 ? 1 : bytes);
    if (packed.temp == nullptr) {
      // The message is ours already; without memory it cannot be received.
      return raise(comm, MPI_ERR_NO_MEM, kFunction, "no memory for %zu bytes of packed data", bytes);
    }
    packed.type = std::move(derived);
    packed.user_buffer = buf;
    packed.count = static_cast<std::size_t>(count);
  }
  engine::TagRecvInfo info;
  engine::Request* request = nullptr;
  Status s = g_state->worker->tag_msg_recv_nb(packed.temp != nullptr ? packed.temp : buf, bytes, entry.message,
                                              request, &info);
  if (s == Status::InProgress) {
    progress_until([request] { return engine_done(request); });
    s = request->status();
    info = request->info();
    g_state->worker->release(request);
  }
  if (TERN_UNLIKELY(packed.temp != nullptr)) {
    complete_transfer(packed, s == Status::Ok || s == Status::Truncated, std::min(info.length, bytes));
  }
  if (fill_recv_status(status, info, bytes, s) != MPI_SUCCESS) {
    return raise_recv(comm, kFunction, s, info, bytes, entry.source);
  }
  return MPI_SUCCESS;
}

int imrecv(const char* kFunction, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
           MPI_Request* request) {
  if (TERN_UNLIKELY(request == nullptr)) return raise(nullptr, MPI_ERR_REQUEST, kFunction, "null request argument");
  MessageEntry entry;
  Comm* comm = nullptr;
  std::size_t bytes = 0;
  std::shared_ptr<const DerivedType> derived;
  if (int err = check_mrecv(kFunction, buf, count, datatype, message, entry, comm, bytes, derived);
      err != MPI_SUCCESS) {
    return err;
  }
  if (*message == MPI_MESSAGE_NO_PROC) {
    *message = MPI_MESSAGE_NULL;
    *request = kRequestProcNull;
    return MPI_SUCCESS;
  }
  *message = MPI_MESSAGE_NULL;
  // Non-contiguous: the message lands in a temporary buffer, unpacked when
  // the request completes (as MPI_Irecv).
  PackedTransfer packed;
  if (TERN_UNLIKELY(derived != nullptr)) {
    packed.temp = std::malloc(bytes == 0 ? 1 : bytes);
    if (packed.temp == nullptr) {
      return raise(comm, MPI_ERR_NO_MEM, kFunction, "no memory for %zu bytes of packed data", bytes);
    }
    packed.type = std::move(derived);
    packed.user_buffer = buf;
    packed.count = static_cast<std::size_t>(count);
  }
  RequestSlot* slot = nullptr;
  const MPI_Request handle_out = g_state->requests.get(slot);
  engine::TagRecvInfo info;
  engine::Request* engine_request = nullptr;
  Status s = g_state->worker->tag_msg_recv_nb(packed.temp != nullptr ? packed.temp : buf, bytes, entry.message,
                                              engine_request, &info);
  if (TERN_UNLIKELY(handle_out == MPI_REQUEST_NULL)) {
    // The message is ours already: receive it here rather than lose it.
    if (s == Status::InProgress) {
      progress_until([engine_request] { return engine_done(engine_request); });
      s = engine_request->status();
      info = engine_request->info();
      g_state->worker->release(engine_request);
    }
    if (packed.temp != nullptr) {
      complete_transfer(packed, s == Status::Ok || s == Status::Truncated, std::min(info.length, bytes));
    }
    return raise(comm, MPI_ERR_NO_MEM, kFunction, "no memory for another request");
  }
  slot->engine = nullptr;
  slot->kind = RequestKind::Recv;
  slot->comm = entry.comm;
  slot->capacity = bytes;
  slot->packed = std::move(packed);
  if (s == Status::InProgress) {
    slot->engine = engine_request;
  } else {
    slot->error = fill_recv_status(&slot->status, info, bytes, s);
    if (TERN_UNLIKELY(slot->packed.temp != nullptr)) {
      complete_transfer(slot->packed, s == Status::Ok || s == Status::Truncated, std::min(info.length, bytes));
    }
  }
  *request = handle_out;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Mprobe(int source, int tag, MPI_Comm handle, MPI_Message* message, MPI_Status* status) {
  constexpr const char* kFunction = "MPI_Mprobe";
  Comm* comm = nullptr;
  if (int err = check_probe(kFunction, source, tag, handle, message, comm); err != MPI_SUCCESS) return err;
  if (source == MPI_PROC_NULL) return no_proc_message(message, status);
  const Match m = match_of(*comm, source, tag);
  engine::TagRecvInfo info;
  engine::Message* taken = nullptr;
  progress_until([&] { return g_state->worker->tag_probe(m.tag, m.mask, info, &taken) == Status::Ok; });
  *message = g_messages.add(taken, handle, tag_source(info.sender_tag));
  if (*message == MPI_MESSAGE_NULL) return too_many_messages(kFunction, comm);
  (void)fill_recv_status(status, info, info.length, Status::Ok);
  return MPI_SUCCESS;
}

int PMPI_Improbe(int source, int tag, MPI_Comm handle, int* flag, MPI_Message* message, MPI_Status* status) {
  constexpr const char* kFunction = "MPI_Improbe";
  Comm* comm = nullptr;
  if (int err = check_probe(kFunction, source, tag, handle, message, comm); err != MPI_SUCCESS) return err;
  if (TERN_UNLIKELY(flag == nullptr)) return raise(comm, MPI_ERR_ARG, kFunction, "null flag argument");
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    return no_proc_message(message, status);
  }
  const Match m = match_of(*comm, source, tag);
  engine::TagRecvInfo info;
  engine::Message* taken = nullptr;
  Status s = g_state->worker->tag_probe(m.tag, m.mask, info, &taken);
  if (s == Status::NotFound) {
    (void)g_state->worker->progress();
    s = g_state->worker->tag_probe(m.tag, m.mask, info, &taken);
  }
  *flag = s == Status::Ok;
  if (!*flag) return MPI_SUCCESS;
  *message = g_messages.add(taken, handle, tag_source(info.sender_tag));
  if (*message == MPI_MESSAGE_NULL) return too_many_messages(kFunction, comm);
  (void)fill_recv_status(status, info, info.length, Status::Ok);
  return MPI_SUCCESS;
}

int PMPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
  return mrecv("MPI_Mrecv", buf, count, datatype, message, status);
}

int PMPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
  return mrecv("MPI_Mrecv_c", buf, count, datatype, message, status);
}

int PMPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) {
  return imrecv("MPI_Imrecv", buf, count, datatype, message, request);
}

int PMPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) {
  return imrecv("MPI_Imrecv_c", buf, count, datatype, message, request);
}

// Message handles are ints already, as every handle.
MPI_Fint PMPI_Message_c2f(MPI_Message message) { return message; }
MPI_Message PMPI_Message_f2c(MPI_Fint message) { return message; }

#pragma weak MPI_Message_c2f = PMPI_Message_c2f
#pragma weak MPI_Message_f2c = PMPI_Message_f2c
#pragma weak MPI_Mprobe = PMPI_Mprobe
#pragma weak MPI_Improbe = PMPI_Improbe
#pragma weak MPI_Mrecv = PMPI_Mrecv
#pragma weak MPI_Imrecv = PMPI_Imrecv
#pragma weak MPI_Mrecv_c = PMPI_Mrecv_c
#pragma weak MPI_Imrecv_c = PMPI_Imrecv_c

}  // extern "C"
