// Leveled logging to stderr. The level comes from TERN_LOG_LEVEL
// (error, warn, info, debug, trace); messages below it cost one branch.
#pragma once

namespace tern::runtime {

enum class LogLevel : int { Error = 0, Warn = 1, Info = 2, Debug = 3, Trace = 4 };

// The current level; read from the environment on first use.
LogLevel log_level() noexcept;
void set_log_level(LogLevel level) noexcept;

void log_message(LogLevel level, const char* format, ...) noexcept __attribute__((format(printf, 2, 3)));

inline bool log_enabled(LogLevel level) noexcept {
  return static_cast<int>(level) <= static_cast<int>(log_level());
}

}  // namespace tern::runtime

#define TERN_LOG(level, ...)                                                     \
  do {                                                                           \
    if (::tern::runtime::log_enabled(::tern::runtime::LogLevel::level))          \
      ::tern::runtime::log_message(::tern::runtime::LogLevel::level, __VA_ARGS__); \
  } while (0)
