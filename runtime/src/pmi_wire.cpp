#include "pmi_wire.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>

namespace tern::runtime {
namespace {

// PMI-2's length field: six characters, a decimal number padded with spaces.
constexpr std::size_t kLengthField = 6;
// Neither protocol sends more than a few KiB in one reply; a server (or a
// stray writer on the socket) claiming more is not believed.
constexpr std::size_t kMaxReply = 64 * 1024;

std::string_view field_name(std::string_view field) { return field.substr(0, field.find('=')); }

}  // namespace

std::string pmi_printable(std::string_view text) {
  constexpr std::size_t kShown = 200;
  std::string out;
  for (char c : text.substr(0, kShown)) out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  if (text.size() > kShown) out += "...";
  return out;
}

const std::string* PmiReply::find(std::string_view key) const noexcept {
  for (const auto& [name, value] : fields_) {
    if (name == key) return &value;
  }
  return nullptr;
}

bool PmiReply::parse(std::string_view text, PmiFraming framing, std::string& why) {
  fields_.clear();
  text_ = pmi_printable(text);
  const char separator = framing == PmiFraming::V1 ? ' ' : ';';
  std::size_t at = 0;
  while (at < text.size()) {
    if (text[at] == separator) {  // PMI-1 servers pad with spaces; PMI-2 ends with ';'
      ++at;
      continue;
    }
    const std::size_t equals = text.find('=', at);
    if (equals == std::string_view::npos) {
      why = "field '" + pmi_printable(text.substr(at)) + "' has no '='";
      return false;
    }
    std::string name(text.substr(at, equals - at));
    if (name.empty() || name.find(separator) != std::string::npos) {
      why = "field '" + pmi_printable(field_name(text.substr(at))) + "' is not a key=value pair";
      return false;
    }
    std::string value;
    at = equals + 1;
    while (at < text.size()) {
      if (text[at] == separator) {
        // PMI-2 writes a ';' inside a value as ";;".
        if (framing == PmiFraming::V2 && at + 1 < text.size() && text[at + 1] == ';') {
          value.push_back(';');
          at += 2;
          continue;
        }
        break;
      }
      value.push_back(text[at++]);
    }
    fields_.emplace_back(std::move(name), std::move(value));
  }
  if (fields_.empty() || fields_.front().first != "cmd") {
    why = "it does not start with cmd=";
    return false;
  }
  return true;
}

PmiConnection::~PmiConnection() { close(); }

void PmiConnection::close() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status PmiConnection::write_all(const std::string& bytes, std::string& error) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    // Not SIGPIPE when the launcher is gone: that is an error to report.
    ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = "PMI: cannot send '" + pmi_printable(pending_command_) + "' to the launcher: " +
              (n < 0 ? std::strerror(errno) : "nothing written");
      return Status::IoError;
    }
    done += static_cast<std::size_t>(n);
  }
  return Status::Ok;
}

Status PmiConnection::fill(std::string& error) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(reply_timeout_seconds_);
  for (;;) {
    int wait_ms = -1;
    if (reply_timeout_seconds_ != 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        error = "PMI: no answer to '" + pmi_printable(pending_command_) + "' within " +
                std::to_string(reply_timeout_seconds_) + " s (TERN_BOOTSTRAP_TIMEOUT)";
        return Status::TimedOut;
      }
      wait_ms = static_cast<int>(left);
    }
    pollfd waiting{fd_, POLLIN, 0};
    const int ready = ::poll(&waiting, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      error = std::string("PMI: poll on the launcher's socket failed: ") + std::strerror(errno);
      return Status::IoError;
    }
    if (ready == 0) continue;  // the deadline check above ends the wait
    char chunk[4096];
    const ssize_t n = ::read(fd_, chunk, sizeof(chunk));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      error = "PMI: the launcher closed the connection (PMI_FD) while '" + pmi_printable(pending_command_) +
              "' waited for its answer" + (n < 0 ? std::string(": ") + std::strerror(errno) : std::string());
      return Status::IoError;
    }
    buffered_.append(chunk, static_cast<std::size_t>(n));
    return Status::Ok;
  }
}

Status PmiConnection::read_reply(std::string& body, std::string& error) {
  if (framing_ == PmiFraming::V1) {
    std::size_t newline;
    while ((newline = buffered_.find('\n')) == std::string::npos) {
      if (buffered_.size() > kMaxReply) {
        error = "PMI: the answer to '" + pmi_printable(pending_command_) + "' is longer than " +
                std::to_string(kMaxReply) + " bytes without a newline: '" + pmi_printable(buffered_) + "'";
        return Status::IoError;
      }
      if (Status s = fill(error); s != Status::Ok) return s;
    }
    body = buffered_.substr(0, newline);
    buffered_.erase(0, newline + 1);
    return Status::Ok;
  }
  while (buffered_.size() < kLengthField) {
    if (Status s = fill(error); s != Status::Ok) return s;
  }
  std::string_view field(buffered_.data(), kLengthField);
  const std::size_t first = field.find_first_not_of(' ');
  const std::size_t last = field.find_last_not_of(' ');
  std::size_t length = 0;
  const char* digits_end = first == std::string_view::npos ? nullptr : field.data() + last + 1;
  auto parsed = first == std::string_view::npos ? std::from_chars_result{nullptr, std::errc::invalid_argument}
                                                 : std::from_chars(field.data() + first, digits_end, length);
  if (parsed.ec != std::errc() || parsed.ptr != digits_end || length == 0 || length > kMaxReply) {
    error = "PMI-2: the answer to '" + pmi_printable(pending_command_) + "' has a bad length field '" +
            pmi_printable(field) + "'";
    return Status::IoError;
  }
  while (buffered_.size() < kLengthField + length) {
    if (Status s = fill(error); s != Status::Ok) return s;
  }
  body = buffered_.substr(kLengthField, length);
  buffered_.erase(0, kLengthField + length);
  return Status::Ok;
}

Status PmiConnection::send(const std::string& command, std::string& error) {
  if (fd_ < 0) {
    error = "PMI: '" + pmi_printable(command) + "' after the connection was closed";
    return Status::InvalidParam;
  }
  pending_command_ = command;
  if (framing_ == PmiFraming::V1) return write_all(command + "\n", error);
  if (command.size() > 999999) {
    error = "PMI-2: command too long for the length field (" + std::to_string(command.size()) + " bytes)";
    return Status::InvalidParam;
  }
  std::string length = std::to_string(command.size());
  length.resize(kLengthField, ' ');
  return write_all(length + command, error);
}

Status PmiConnection::call(const std::string& command, std::string_view expected_cmd, PmiReply& reply,
                           std::string& error) {
  if (Status s = send(command, error); s != Status::Ok) return s;
  std::string body;
  if (Status s = read_reply(body, error); s != Status::Ok) return s;
  std::string why;
  if (!reply.parse(body, framing_, why)) {
    error = "PMI: the answer to '" + pmi_printable(command) + "' is malformed (" + why + "): '" +
            pmi_printable(body) + "'";
    return Status::IoError;
  }
  if (*reply.find("cmd") != expected_cmd) {
    error = "PMI: '" + pmi_printable(command) + "' was answered by '" + reply.text() + "', not cmd=" +
            std::string(expected_cmd);
    return Status::IoError;
  }
  return Status::Ok;
}

bool pmi_field_number(const PmiReply& reply, std::string_view key, long long limit, long long& out) {
  const std::string* text = reply.find(key);
  if (text == nullptr || text->empty()) return false;
  long long value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value < 0 || value >= limit) return false;
  out = value;
  return true;
}

Status check_pmi_rc(const PmiReply& reply, std::string_view command, std::string& error) {
  const std::string* rc = reply.find("rc");
  if (rc == nullptr || *rc == "0") return Status::Ok;
  const std::string* message = reply.find("msg");
  if (message == nullptr) message = reply.find("errmsg");
  error = "PMI: '" + pmi_printable(command) + "' failed with rc=" + pmi_printable(*rc) +
          (message != nullptr ? " (" + pmi_printable(*message) + ")" : std::string()) + ": '" + reply.text() + "'";
  return Status::IoError;
}

}  // namespace tern::runtime
