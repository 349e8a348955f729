// Buffered sends: MPI_Bsend copies the message into the buffer the program
// attached and sends from the copy, so the call returns as soon as the copy
// is made. Blocks of the buffer in use are kept in offset order and given
// back once their send has ended.
#include <climits>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include "p2p/p2p.hpp"

namespace tern::mpi {
namespace {

struct Block {
  std::size_t offset;
  std::size_t length;  // the message plus MPI_BSEND_OVERHEAD
  engine::Request* request;
};

struct AttachedBuffer {
  std::mutex mutex;
  unsigned char* base = nullptr;
  std::size_t size = 0;
  bool attached = false;
  std::vector<Block> blocks;  // in use, by offset
};

AttachedBuffer g_buffer;

// Gives back the blocks whose send has ended.
void reclaim(AttachedBuffer& buffer) {
  std::erase_if(buffer.blocks, [](const Block& block) {
    if (block.request != nullptr && !engine_done(block.request)) return false;
    if (block.request != nullptr) g_state->worker->release(block.request);
    return true;
  });
}

// First fit: the offset of `length` free bytes, or SIZE_MAX.
std::size_t find_room(const AttachedBuffer& buffer, std::size_t length, std::size_t& position) {
  std::size_t start = 0;
  for (position = 0; position < buffer.blocks.size(); ++position) {
    const Block& block = buffer.blocks[position];
    if (block.offset - start >= length) return start;
    start = block.offset + block.length;
  }
  if (buffer.size >= start && buffer.size - start >= length) return start;
  return SIZE_MAX;
}

}  // namespace

int buffered_send(const char* function, Comm& comm, const void* data, std::size_t bytes, int dest, int tag) {
  AttachedBuffer& buffer = g_buffer;
  std::lock_guard<std::mutex> lock(buffer.mutex);
  if (TERN_UNLIKELY(!buffer.attached)) {
    return raise(&comm, MPI_ERR_BUFFER, function, "no buffer attached (MPI_Buffer_attach) for %zu bytes", bytes);
  }
  const std::size_t length = bytes + MPI_BSEND_OVERHEAD;
  std::size_t position = 0;
  reclaim(buffer);
  std::size_t offset = find_room(buffer, length, position);
  // Sends in flight may be about to end: progress while events come (not
  // until they end, which could wait for a receiver waiting for us).
  for (int round = 0; offset == SIZE_MAX && !buffer.blocks.empty() && round < 64; ++round) {
    const unsigned events = g_state->worker->progress();
    reclaim(buffer);
    offset = find_room(buffer, length, position);
    if (events == 0) break;
  }
  if (TERN_UNLIKELY(offset == SIZE_MAX)) {
    return raise(&comm, MPI_ERR_BUFFER, function,
                 "%zu bytes (with MPI_BSEND_OVERHEAD) do not fit in the attached buffer of %zu bytes "
                 "(%zu blocks in use)",
                 length, buffer.size, buffer.blocks.size());
  }
  unsigned char* copy = buffer.base + offset;
  if (bytes != 0) std::memcpy(copy, data, bytes);
  engine::Request* request = nullptr;
  const Status s = start_send(comm, copy, bytes, dest, tag, 0, request);
  if (s == Status::Ok) return MPI_SUCCESS;  // sent (or copied by the engine) already
  if (TERN_UNLIKELY(s != Status::InProgress)) {
    return raise(&comm, error_class_of(s), function, "sending %zu bytes to rank %d failed: %s", bytes, dest,
                 to_string(s));
  }
  buffer.blocks.insert(buffer.blocks.begin() + static_cast<std::ptrdiff_t>(position), Block{offset, length, request});
  return MPI_SUCCESS;
}

// Waits for every buffered send (MPI_Buffer_detach, MPI_Finalize).
void buffered_flush() {
  AttachedBuffer& buffer = g_buffer;
  std::lock_guard<std::mutex> lock(buffer.mutex);
  progress_until([&] {
    reclaim(buffer);
    return buffer.blocks.empty();
  });
}

void buffered_finalize() {
  buffered_flush();
  std::lock_guard<std::mutex> lock(g_buffer.mutex);
  g_buffer.base = nullptr;
  g_buffer.size = 0;
  g_buffer.attached = false;
}

namespace {

int attach(const char* kFunction, void* buffer, MPI_Count size) {
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(size < 0)) return raise(nullptr, MPI_ERR_ARG, kFunction, "invalid size %lld", size);
  if (TERN_UNLIKELY(buffer == nullptr && size > 0)) {
    return raise(nullptr, MPI_ERR_BUFFER, kFunction, "null buffer of %lld bytes", size);
  }
  std::lock_guard<std::mutex> lock(g_buffer.mutex);
  if (TERN_UNLIKELY(g_buffer.attached)) {
    return raise(nullptr, MPI_ERR_BUFFER, kFunction, "a buffer is already attached (detach it first)");
  }
  g_buffer.base = static_cast<unsigned char*>(buffer);
  g_buffer.size = static_cast<std::size_t>(size);
  g_buffer.attached = true;
  g_buffer.blocks.clear();
  return MPI_SUCCESS;
}

// buffer_addr: a void** in C (MPI's signature keeps void*). `limit`: the
// largest size the caller's size argument holds.
int detach(const char* kFunction, void* buffer_addr, MPI_Count* size, MPI_Count limit) {
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(kFunction);
  if (TERN_UNLIKELY(buffer_addr == nullptr || size == nullptr)) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null buffer address or size argument");
  }
  buffered_flush();
  std::lock_guard<std::mutex> lock(g_buffer.mutex);
  if (!g_buffer.attached) {
    *static_cast<void**>(buffer_addr) = nullptr;
    *size = 0;
    return MPI_SUCCESS;
  }
  // Refused before detaching: the buffer stays attached for MPI_Buffer_detach_c.
  if (TERN_UNLIKELY(g_buffer.size > static_cast<std::size_t>(limit))) {
    return raise(nullptr, MPI_ERR_VALUE_TOO_LARGE, kFunction,
                 "the attached buffer of %zu bytes exceeds INT_MAX, more than an int size returns (use "
                 "MPI_Buffer_detach_c)",
                 g_buffer.size);
  }
  *static_cast<void**>(buffer_addr) = g_buffer.base;
  *size = static_cast<MPI_Count>(g_buffer.size);
  g_buffer.base = nullptr;
  g_buffer.size = 0;
  g_buffer.attached = false;
  return MPI_SUCCESS;
}

}  // namespace

}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Buffer_attach(void* buffer, int size) { return attach("MPI_Buffer_attach", buffer, size); }

int PMPI_Buffer_attach_c(void* buffer, MPI_Count size) { return attach("MPI_Buffer_attach_c", buffer, size); }

int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  MPI_Count detached = 0;
  const int err = detach("MPI_Buffer_detach", buffer_addr, size != nullptr ? &detached : nullptr, INT_MAX);
  if (err == MPI_SUCCESS) *size = static_cast<int>(detached);
  return err;
}

int PMPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  return detach("MPI_Buffer_detach_c", buffer_addr, size, std::numeric_limits<MPI_Count>::max());
}

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
#pragma weak MPI_Buffer_attach_c = PMPI_Buffer_attach_c
#pragma weak MPI_Buffer_detach_c = PMPI_Buffer_detach_c

}  // extern "C"
