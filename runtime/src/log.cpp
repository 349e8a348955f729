#include "tern/runtime/log.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tern::runtime {
namespace {

constexpr int kUnset = -1;
std::atomic<int> g_level{kUnset};

int level_from_environment() {
  const char* value = std::getenv("TERN_LOG_LEVEL");
  if (value == nullptr) return static_cast<int>(LogLevel::Warn);
  static constexpr const char* kNames[] = {"error", "warn", "info", "debug", "trace"};
  for (int i = 0; i < 5; ++i) {
    if (std::strcmp(value, kNames[i]) == 0) return i;
  }
  return static_cast<int>(LogLevel::Warn);  // config validation reports the bad value
}

}  // namespace

LogLevel log_level() noexcept {
  int level = g_level.load(std::memory_order_relaxed);
  if (level == kUnset) {
    level = level_from_environment();
    g_level.store(level, std::memory_order_relaxed);
  }
  return static_cast<LogLevel>(level);
}

void set_log_level(LogLevel level) noexcept { g_level.store(static_cast<int>(level), std::memory_order_relaxed); }

void log_message(LogLevel level, const char* format, ...) noexcept {
  // Callers often log a failed system call and then look at errno again.
  const int saved_errno = errno;
  static constexpr const char* kTags[] = {"error", "warn", "info", "debug", "trace"};
  char line[1024];
  int used = std::snprintf(line, sizeof(line), "[tern %d] %s: ", static_cast<int>(getpid()),
                           kTags[static_cast<int>(level)]);
  va_list args;
  va_start(args, format);
  int body = std::vsnprintf(line + used, sizeof(line) - static_cast<size_t>(used) - 1, format, args);
  va_end(args);
  size_t length = static_cast<size_t>(used) + (body < 0 ? 0 : static_cast<size_t>(body));
  if (length > sizeof(line) - 2) length = sizeof(line) - 2;
  line[length++] = '\n';
  // One write keeps lines from different processes whole.
  ssize_t ignored = write(STDERR_FILENO, line, length);
  (void)ignored;
  errno = saved_errno;
}

}  // namespace tern::runtime
