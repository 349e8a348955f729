// The PMI wire: commands to the launcher's PMI server over the socket it
// handed down in PMI_FD, and its replies, framed as PMI-1 ("cmd=get
// kvsname=K key=N\n": space separated, one line) or PMI-2 (a six-character
// decimal length, then "cmd=kvs-get;key=N;": semicolon separated). Every
// reply is checked before use: its framing and length, that it answers the
// command sent, and its rc; errors name the command and what came back.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tern/runtime/status.hpp"

namespace tern::runtime {

enum class PmiFraming : int { V1, V2 };

// One reply's fields in the order they came; "cmd" is the first.
class PmiReply {
 public:
  // The value of `key`, or nullptr when the reply has no such field.
  [[nodiscard]] const std::string* find(std::string_view key) const noexcept;
  // The reply as received, for error messages (shortened when long).
  [[nodiscard]] const std::string& text() const noexcept { return text_; }

  // Parses `text` (the body, without the PMI-1 newline or the PMI-2 length).
  // False, with `why`, when it is not a list of key=value fields.
  [[nodiscard]] bool parse(std::string_view text, PmiFraming framing, std::string& why);

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
  std::string text_;
};

class PmiConnection {
 public:
  // `fd`: the launcher's socket (PMI_FD); closed by close() or the destructor.
  explicit PmiConnection(int fd) noexcept : fd_(fd) {}
  ~PmiConnection();
  PmiConnection(const PmiConnection&) = delete;
  PmiConnection& operator=(const PmiConnection&) = delete;

  void set_framing(PmiFraming framing) noexcept { framing_ = framing; }
  [[nodiscard]] PmiFraming framing() const noexcept { return framing_; }
  // Replies slower than this fail with TimedOut; 0: wait forever (a fence
  // waits for every rank of the job, however long they compute first).
  void set_reply_timeout(unsigned seconds) noexcept { reply_timeout_seconds_ = seconds; }

  // Sends `command` ("cmd=...", without the framing) and reads the reply,
  // which must be a `expected_cmd` reply. A non-zero rc in it is left to the
  // caller (check_rc): for a PMI-1 get it only means "not found".
  [[nodiscard]] Status call(const std::string& command, std::string_view expected_cmd, PmiReply& reply,
                            std::string& error);
  // Sends `command` and expects no reply (abort).
  [[nodiscard]] Status send(const std::string& command, std::string& error);
  void close() noexcept;

 private:
  [[nodiscard]] Status write_all(const std::string& bytes, std::string& error);
  // Reads until `count` bytes are buffered (PMI-2) or a newline is (PMI-1, count 0).
  [[nodiscard]] Status read_reply(std::string& body, std::string& error);
  [[nodiscard]] Status fill(std::string& error);

  int fd_;
  PmiFraming framing_ = PmiFraming::V1;
  unsigned reply_timeout_seconds_ = 0;
  std::string buffered_;
  std::string pending_command_;  // the command whose reply is being read, for messages
};

// Ok when `reply` carries no rc or rc=0; else IoError with `error` naming
// `command`, the rc and the server's message.
[[nodiscard]] Status check_pmi_rc(const PmiReply& reply, std::string_view command, std::string& error);

// "rank=3" of a reply as a number in [0, limit); false when missing or junk.
[[nodiscard]] bool pmi_field_number(const PmiReply& reply, std::string_view key, long long limit, long long& out);

// What is safe to show of a reply or command in a message: at most 200
// characters, control characters as '?'.
[[nodiscard]] std::string pmi_printable(std::string_view text);

}  // namespace tern::runtime
