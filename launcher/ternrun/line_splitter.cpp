#include "ternrun/line_splitter.hpp"

namespace tern::launcher {

void LineSplitter::emit(std::string_view piece, bool ends_line, std::string& out) {
  if (at_line_start_) out += prefix_;
  out += piece;
  if (ends_line) out += '\n';
  at_line_start_ = ends_line;
}

void LineSplitter::feed(std::string_view data, std::string& out) {
  while (!data.empty()) {
    auto newline = data.find('\n');
    if (newline == std::string_view::npos) {
      pending_ += data;
      if (pending_.size() >= kMaxPending) {
        emit(pending_, false, out);
        pending_.clear();
      }
      return;
    }
    if (pending_.empty()) {
      emit(data.substr(0, newline), true, out);
    } else {
      pending_ += data.substr(0, newline);
      emit(pending_, true, out);
      pending_.clear();
    }
    data.remove_prefix(newline + 1);
  }
}

void LineSplitter::finish(std::string& out) {
  if (!pending_.empty() || !at_line_start_) emit(pending_, true, out);
  pending_.clear();
}

}  // namespace tern::launcher
