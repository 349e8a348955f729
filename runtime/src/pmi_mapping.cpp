#include "pmi_mapping.hpp"

#include <charconv>

namespace tern::runtime {
namespace {

struct Block {
  unsigned first_node = 0;
  unsigned nodes = 0;
  unsigned ranks_per_node = 0;
};

// Node numbers and counts beyond this are not a real job's.
constexpr unsigned kMaxNodeNumber = 1u << 24;

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}
  void skip_blanks() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t')) ++at_;
  }
  bool take(char c) {
    skip_blanks();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  bool take(std::string_view word) {
    skip_blanks();
    if (text_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }
  bool number(unsigned& out) {
    skip_blanks();
    auto [end, ec] = std::from_chars(text_.data() + at_, text_.data() + text_.size(), out);
    if (ec != std::errc() || out > kMaxNodeNumber) return false;
    at_ = static_cast<std::size_t>(end - text_.data());
    return true;
  }
  bool at_end() {
    skip_blanks();
    return at_ == text_.size();
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace

bool parse_pmi_process_mapping(std::string_view text, unsigned size, std::vector<unsigned>& node_of_rank,
                               std::string& why) {
  node_of_rank.clear();
  Reader in(text);
  std::vector<Block> blocks;
  if (!in.take('(') || !in.take("vector")) {
    why = "it does not start with '(vector'";
    return false;
  }
  while (in.take(',')) {
    Block block;
    if (!in.take('(') || !in.number(block.first_node) || !in.take(',') || !in.number(block.nodes) ||
        !in.take(',') || !in.number(block.ranks_per_node) || !in.take(')')) {
      why = "block " + std::to_string(blocks.size() + 1) + " is not (first node,nodes,ranks per node)";
      return false;
    }
    if (block.first_node + block.nodes > kMaxNodeNumber) {
      why = "block " + std::to_string(blocks.size() + 1) + " names nodes past " + std::to_string(kMaxNodeNumber);
      return false;
    }
    blocks.push_back(block);
  }
  if (!in.take(')') || !in.at_end()) {
    why = "it does not end with ')' after the blocks";
    return false;
  }
  node_of_rank.reserve(size);
  while (node_of_rank.size() < size) {
    const std::size_t before = node_of_rank.size();
    for (const Block& block : blocks) {
      for (unsigned n = 0; n < block.nodes && node_of_rank.size() < size; ++n) {
        for (unsigned k = 0; k < block.ranks_per_node && node_of_rank.size() < size; ++k) {
          node_of_rank.push_back(block.first_node + n);
        }
      }
    }
    if (node_of_rank.size() == before) {
      why = "its blocks place no rank";
      node_of_rank.clear();
      return false;
    }
  }
  return true;
}

}  // namespace tern::runtime
