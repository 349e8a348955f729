// The communicator hints Tern acts on. MPI_Comm_set_info keeps every hint
// as given (MPI_Comm_get_info returns them); of those, tern_critical_tags
// names the tags whose sends are held (smart progression: engine's
// kSendHeld), in TERN_CRITICAL_TAGS's syntax, for that communicator only.
#include "comm/comm.hpp"
#include "tern/runtime/config.hpp"

namespace tern::mpi {
namespace {

constexpr const char* kCriticalTagsKey = "tern_critical_tags";

const std::string* find_hint(const InfoEntries& entries, const char* key) {
  const std::string* found = nullptr;
  for (const auto& [name, value] : entries) {
    if (name == key) found = &value;  // the last one set wins, as in merge_info
  }
  return found;
}

}  // namespace

static_assert(kTagUb == static_cast<int>(runtime::kMaxMpiTag), "tag sets name the tags MPI carries");

int check_comm_hints(const Comm* comm, const char* function, const InfoEntries& entries) {
  if (const std::string* value = find_hint(entries, kCriticalTagsKey)) {
    runtime::TagSet tags;
    if (!runtime::parse_tag_set(*value, runtime::kMaxMpiTag, tags)) {
      return raise(comm, MPI_ERR_INFO_VALUE, function,
                   "invalid value \"%s\" of hint %s (tags and ranges of tags 0..%d such as 5,7-9, or none)",
                   value->c_str(), kCriticalTagsKey, kTagUb);
    }
  }
  return MPI_SUCCESS;
}

void adopt_comm_hints(Comm& comm) {
  comm.critical_tags = nullptr;
  if (const std::string* value = find_hint(comm.info, kCriticalTagsKey)) {
    runtime::TagSet tags;
    if (runtime::parse_tag_set(*value, runtime::kMaxMpiTag, tags)) {
      comm.critical_tags = std::make_shared<const runtime::TagSet>(std::move(tags));
    }
  }
}

}  // namespace tern::mpi
