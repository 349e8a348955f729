// MPI_T_init_thread and MPI_T_finalize, and what every MPI_T call shares:
// the lock, the nesting count, string outputs and handle values.
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "tern/runtime/log.hpp"
#include "tool/tool.hpp"

namespace tern::mpi::tool {
namespace {

std::mutex g_tool_mutex;
int g_init_count = 0;  // MPI_T_init_thread calls not yet finalized
int g_last_handle = 0;

}  // namespace

Call::Call(const char* function) : lock_(g_tool_mutex), function_(function) {}

int Call::check_initialized() {
  if (g_init_count > 0) return MPI_SUCCESS;
  return fail(MPI_T_ERR_NOT_INITIALIZED, "called outside MPI_T_init_thread ... MPI_T_finalize");
}

int Call::fail(int error_class, const char* format, ...) {
  if (runtime::log_enabled(runtime::LogLevel::Debug)) {
    char detail[256];
    va_list args;
    va_start(args, format);
    std::vsnprintf(detail, sizeof(detail), format, args);
    va_end(args);
    runtime::log_message(runtime::LogLevel::Debug, "%s: %s", function_, detail);
  }
  return error_class;
}

int copy_string(Call& call, const char* what, const char* text, char* buffer, int* length) {
  if (length == nullptr) return MPI_SUCCESS;
  const int room = *length;
  if (room < 0) return call.fail(MPI_T_ERR_INVALID, "negative %s length %d", what, room);
  const std::size_t full = std::strlen(text);
  if (room == 0) {
    *length = static_cast<int>(full + 1);
    return MPI_SUCCESS;
  }
  if (buffer == nullptr) return call.fail(MPI_T_ERR_INVALID, "null %s buffer with a length of %d", what, room);
  const std::size_t written = full < static_cast<std::size_t>(room) ? full : static_cast<std::size_t>(room) - 1;
  std::memcpy(buffer, text, written);
  buffer[written] = '\0';
  *length = static_cast<int>(written + 1);
  return MPI_SUCCESS;
}

int next_handle() {
  if (g_last_handle == INT_MAX) return 0;
  return ++g_last_handle;
}

}  // namespace tern::mpi::tool

using namespace tern::mpi;

extern "C" {

int PMPI_T_init_thread(int required, int* provided) {
  tool::Call call("MPI_T_init_thread");
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
    return call.fail(MPI_T_ERR_INVALID, "invalid thread level %d", required);
  }
  if (provided == nullptr) return call.fail(MPI_T_ERR_INVALID, "null provided argument");
  if (tool::g_init_count == INT_MAX) return call.fail(MPI_T_ERR_CANNOT_INIT, "nested too deeply");
  ++tool::g_init_count;
  // Every call takes the interface's lock.
  *provided = MPI_THREAD_MULTIPLE;
  return MPI_SUCCESS;
}

int PMPI_T_finalize(void) {
  tool::Call call("MPI_T_finalize");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (--tool::g_init_count == 0) {
    tool::drop_cvar_handles();
    tool::drop_pvar_sessions();
  }
  return MPI_SUCCESS;
}

}  // extern "C"

#pragma weak MPI_T_init_thread = PMPI_T_init_thread
#pragma weak MPI_T_finalize = PMPI_T_finalize
