// Cuts one rank's output stream into whole lines, so lines of different
// ranks never mix, and puts the rank tag (--tag-output) in front of each.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tern::launcher {

class LineSplitter {
 public:
  // A line that grows past this without a newline is passed on in pieces:
  // holding it whole would let one rank exhaust ternrun's memory.
  static constexpr std::size_t kMaxPending = std::size_t{1} << 20;

  // `prefix` goes in front of every line ("" for none).
  explicit LineSplitter(std::string prefix = {}) : prefix_(std::move(prefix)) {}

  // Takes bytes read from the rank; appends every line they complete (with
  // its prefix and newline) to `out`, and keeps the rest for later.
  void feed(std::string_view data, std::string& out);

  // The stream ended: appends a last line that had no newline, with one added.
  void finish(std::string& out);

  [[nodiscard]] std::size_t pending() const noexcept { return pending_.size(); }

 private:
  void emit(std::string_view piece, bool ends_line, std::string& out);

  std::string prefix_;
  std::string pending_;
  bool at_line_start_ = true;  // false after a piece of an overlong line went out
};

}  // namespace tern::launcher
