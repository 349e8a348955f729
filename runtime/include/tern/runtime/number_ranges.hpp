// Lists of numbers and ranges as users write them in variables and hints
// ("3", "2-3,6", "5,7-9"): CPU lists (TERN_PROGRESS_CPUS) and tag sets
// (TERN_CRITICAL_TAGS, the tern_critical_tags hint).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tern::runtime {

// Inclusive ranges, ascending, disjoint and not adjacent ("1-3,4" is {1, 4}).
using NumberRanges = std::vector<std::pair<unsigned, unsigned>>;

// Parses numbers and ranges joined by commas, each at most `max_value`, into
// merged ranges. False on junk, an empty list or item, a reversed range or a
// number out of range (`out` is then unchanged).
[[nodiscard]] bool parse_number_ranges(std::string_view text, unsigned max_value, NumberRanges& out);
// The same as text ("2-3,6"); empty for no ranges.
[[nodiscard]] std::string format_number_ranges(const NumberRanges& ranges);

// A set of MPI tags, tested on the send path: a handful of ranges at most,
// so a linear look is the fastest.
class TagSet {
 public:
  TagSet() = default;
  explicit TagSet(NumberRanges ranges) : ranges_(std::move(ranges)) {}
  [[nodiscard]] bool contains(int tag) const noexcept {
    for (const auto& [first, last] : ranges_) {
      if (static_cast<unsigned>(tag) < first) return false;
      if (static_cast<unsigned>(tag) <= last) return true;
    }
    return false;
  }
  [[nodiscard]] bool empty() const noexcept { return ranges_.empty(); }
  [[nodiscard]] std::string to_string() const { return format_number_ranges(ranges_); }

 private:
  NumberRanges ranges_;
};

// A tag set as TERN_CRITICAL_TAGS and the tern_critical_tags hint take it:
// ranges of tags 0..max_tag, or "none" (and the empty text) for no tag.
[[nodiscard]] bool parse_tag_set(std::string_view text, unsigned max_tag, TagSet& out);

}  // namespace tern::runtime
