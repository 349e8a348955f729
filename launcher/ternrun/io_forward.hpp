// Forwarding of one rank's stdout or stderr to ternrun's own, line by line.
// Only the main thread writes ternrun's stdout and stderr, one whole batch of
// lines per write, so a line never has another one in its middle.
#pragma once

#include <string>
#include <string_view>

#include "ternrun/line_splitter.hpp"

namespace tern::launcher {

// Writes all of `data` to `fd` (blocking), retrying after EINTR and short
// writes. A closed reader (EPIPE) drops the rest: the job goes on without it.
void write_all(int fd, std::string_view data);

class OutputForwarder {
 public:
  // Takes ownership of `read_fd` (the parent's end of the rank's pipe, made
  // non-blocking here); lines go to `write_fd`, each after `prefix`.
  OutputForwarder(int read_fd, int write_fd, std::string prefix);
  ~OutputForwarder();
  OutputForwarder(const OutputForwarder&) = delete;
  OutputForwarder& operator=(const OutputForwarder&) = delete;

  // Reads what the pipe holds and forwards the complete lines. At end of
  // file (or a read error) it forwards the unfinished last line, closes the
  // pipe and returns false.
  bool pump();

  // Stops at once: forwards the unfinished last line and closes the pipe.
  void close();

  [[nodiscard]] int fd() const noexcept { return read_fd_; }
  [[nodiscard]] bool is_open() const noexcept { return read_fd_ >= 0; }

 private:
  int read_fd_;
  int write_fd_;
  LineSplitter splitter_;
};

}  // namespace tern::launcher
