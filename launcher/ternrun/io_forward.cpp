#include "ternrun/io_forward.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace tern::launcher {
namespace {

// One pipe's worth and then some: a chatty rank is drained in few reads, and
// the poll loop still gets around to the others between reads.
constexpr std::size_t kReadChunk = 64 * 1024;

}  // namespace

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data.remove_prefix(static_cast<std::size_t>(written));
  }
}

OutputForwarder::OutputForwarder(int read_fd, int write_fd, std::string prefix)
    : read_fd_(read_fd), write_fd_(write_fd), splitter_(std::move(prefix)) {
  int flags = fcntl(read_fd_, F_GETFL);
  if (flags >= 0) fcntl(read_fd_, F_SETFL, flags | O_NONBLOCK);
}

OutputForwarder::~OutputForwarder() { close(); }

bool OutputForwarder::pump() {
  if (read_fd_ < 0) return false;
  char buffer[kReadChunk];
  ssize_t got = ::read(read_fd_, buffer, sizeof(buffer));
  if (got < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (got <= 0) {
    close();
    return false;
  }
  std::string lines;
  splitter_.feed(std::string_view(buffer, static_cast<std::size_t>(got)), lines);
  write_all(write_fd_, lines);
  return true;
}

void OutputForwarder::close() {
  if (read_fd_ < 0) return;
  std::string last;
  splitter_.finish(last);
  write_all(write_fd_, last);
  ::close(read_fd_);
  read_fd_ = -1;
}

}  // namespace tern::launcher
