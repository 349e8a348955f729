#include "tern/runtime/number_ranges.hpp"

#include <algorithm>

namespace tern::runtime {
namespace {

// Plain decimal digits, no sign or blank, at most `max_value`.
bool parse_number(std::string_view digits, unsigned max_value, unsigned& value) {
  if (digits.empty() || digits.size() > 10) return false;
  unsigned long long parsed = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    parsed = parsed * 10 + static_cast<unsigned>(c - '0');
  }
  if (parsed > max_value) return false;
  value = static_cast<unsigned>(parsed);
  return true;
}

}  // namespace

bool parse_number_ranges(std::string_view text, unsigned max_value, NumberRanges& out) {
  NumberRanges ranges;
  for (;;) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const auto dash = item.find('-');
    unsigned first = 0;
    unsigned last = 0;
    if (!parse_number(item.substr(0, dash), max_value, first)) return false;
    last = first;
    if (dash != std::string_view::npos && (!parse_number(item.substr(dash + 1), max_value, last) || last < first)) {
      return false;
    }
    ranges.emplace_back(first, last);
    if (comma == std::string_view::npos) break;
    text = text.substr(comma + 1);
  }
  std::sort(ranges.begin(), ranges.end());
  NumberRanges merged;
  for (const auto& range : ranges) {
    // Overlapping or adjacent. Sorted, so range.first >= the last first: when
    // it is 0, the first test holds and the second is not reached.
    if (!merged.empty() && (range.first <= merged.back().second || range.first - 1 == merged.back().second)) {
      merged.back().second = std::max(merged.back().second, range.second);
    } else {
      merged.push_back(range);
    }
  }
  out = std::move(merged);
  return true;
}

std::string format_number_ranges(const NumberRanges& ranges) {
  std::string text;
  for (const auto& [first, last] : ranges) {
    if (!text.empty()) text += ',';
    text += std::to_string(first);
    if (last > first) text += '-' + std::to_string(last);
  }
  return text;
}

bool parse_tag_set(std::string_view text, unsigned max_tag, TagSet& out) {
  if (text.empty() || text == "none") {
    out = TagSet{};
    return true;
  }
  NumberRanges ranges;
  if (!parse_number_ranges(text, max_tag, ranges)) return false;
  out = TagSet(std::move(ranges));
  return true;
}

}  // namespace tern::runtime
