// A short, stable stand-in for a name too long (or too odd) for where it
// must go: segment names, socket names, PMI keys. Two long names that share
// a prefix stay apart.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace tern::runtime {

// FNV-1a of `name`, as 16 lowercase hex digits.
inline std::string name_hash_hex(std::string_view name) {
  uint64_t hash = 14695981039346656037ULL;
  for (char c : name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

}  // namespace tern::runtime
