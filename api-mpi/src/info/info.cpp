// MPI_Info objects: a table of entry lists under one lock (info calls may
// come before MPI_Init and from any thread). MPI_INFO_ENV is built on first
// use from what the process knows of its start.
#include "info/info.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>

#include "state.hpp"

namespace tern::mpi {
namespace {

constexpr int kMaxInfos = 4096;
using InfoHandle = GenerationalHandle<12>;
static_assert(kMaxInfos - 1 == InfoHandle::kSlotMask);

struct InfoTable {
  std::mutex mutex;
  std::unique_ptr<InfoEntries> objects[kMaxInfos];  // by slot; 0: MPI_INFO_NULL, 1: MPI_INFO_ENV
  uint32_t generations[kMaxInfos] = {};
  bool env_built = false;
  bool env_after_init = false;  // built once MPI ran: knows the job
};

InfoTable& table() {
  static InfoTable instance;
  return instance;
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "MPI_THREAD_SINGLE";
  }
}

// MPI_INFO_ENV's keys that Tern knows: the command and its arguments, the
// job size, host, working directory and thread level.
InfoEntries environment_entries() {
  InfoEntries entries;
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
  std::vector<std::string> words;
  for (std::size_t start = 0; start < all.size();) {
    const std::size_t end = std::min(all.find('\0', start), all.size());
    words.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  if (!words.empty()) entries.emplace_back("command", words[0]);
  if (words.size() > 1) {
    std::string argv;
    for (std::size_t i = 1; i < words.size(); ++i) argv += (i > 1 ? " " : "") + words[i];
    entries.emplace_back("argv", argv);
  }
  if (g_state != nullptr) entries.emplace_back("maxprocs", std::to_string(g_state->job->size()));
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) entries.emplace_back("host", host);
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) != nullptr) entries.emplace_back("wdir", cwd);
  if (g_state != nullptr) entries.emplace_back("thread_level", thread_level_name(g_state->thread_level));
  return entries;
}

// The entries of `handle`, under the table's lock; null when invalid.
InfoEntries* find_locked(InfoTable& t, MPI_Info handle) {
  const int slot = InfoHandle::slot(handle);
  if (slot == 0 || !InfoHandle::names(handle, slot, t.generations[slot])) return nullptr;
  // Built on first use, and again once MPI_Init has told the job's size.
  if (handle == MPI_INFO_ENV && (!t.env_built || (!t.env_after_init && g_state != nullptr))) {
    t.objects[slot] = std::make_unique<InfoEntries>(environment_entries());
    t.env_built = true;
    t.env_after_init = g_state != nullptr;
  }
  return t.objects[slot].get();
}

MPI_Info add_locked(InfoTable& t, InfoEntries entries) {
  for (int slot = MPI_INFO_ENV + 1; slot < kMaxInfos; ++slot) {
    if (t.objects[slot] != nullptr) continue;
    t.objects[slot] = std::make_unique<InfoEntries>(std::move(entries));
    return InfoHandle::make(slot, t.generations[slot]);
  }
  return MPI_INFO_NULL;
}

// Errors of the info calls go to MPI_COMM_WORLD's handler once MPI runs;
// before MPI_Init they are returned.
int info_error(int error_class, const char* function, const char* format, const char* what) {
  if (g_state == nullptr) return error_class;
  return raise(nullptr, error_class, function, format, what);
}

int invalid_info(const char* function, MPI_Info handle) {
  char text[32];
  std::snprintf(text, sizeof(text), "%d", handle);
  return info_error(MPI_ERR_INFO, function, "invalid info object %s", text);
}

int check_key(const char* function, const char* key) {
  if (key == nullptr) return info_error(MPI_ERR_INFO_KEY, function, "null key%s", "");
  const std::size_t length = std::strlen(key);
  if (length == 0 || length > MPI_MAX_INFO_KEY) {
    return info_error(MPI_ERR_INFO_KEY, function, "key \"%s\" is empty or longer than MPI_MAX_INFO_KEY", key);
  }
  return MPI_SUCCESS;
}

InfoEntries::iterator find_key(InfoEntries& entries, const char* key) {
  return std::find_if(entries.begin(), entries.end(), [key](const auto& entry) { return entry.first == key; });
}

// Copies `text` into `out` of `capacity` bytes (the terminating null
// included, truncating).
void copy_out(const std::string& text, char* out, std::size_t capacity) {
  if (capacity == 0) return;
  const std::size_t length = std::min(text.size(), capacity - 1);
  std::memcpy(out, text.data(), length);
  out[length] = '\0';
}

// Checks `key`, finds `handle` and passes `use` the value of `key` there
// (null when absent), all under the table's lock.
template <typename Use>
int with_value(const char* function, MPI_Info handle, const char* key, Use&& use) {
  if (int err = check_key(function, key); err != MPI_SUCCESS) return err;
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  InfoEntries* entries = find_locked(t, handle);
  if (entries == nullptr) return invalid_info(function, handle);
  auto it = find_key(*entries, key);
  use(it == entries->end() ? nullptr : &it->second);
  return MPI_SUCCESS;
}

}  // namespace

bool info_entries(MPI_Info handle, InfoEntries& entries) {
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  const InfoEntries* found = find_locked(t, handle);
  if (found == nullptr) return false;
  entries = *found;
  return true;
}

MPI_Info make_info(InfoEntries entries) {
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  return add_locked(t, std::move(entries));
}

void merge_info(InfoEntries& into, const InfoEntries& from) {
  for (const auto& [key, value] : from) {
    auto it = std::find_if(into.begin(), into.end(), [&](const auto& entry) { return entry.first == key; });
    if (it != into.end()) {
      it->second = value;
    } else {
      into.emplace_back(key, value);
    }
  }
}

}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Info_create(MPI_Info* info) {
  if (info == nullptr) return info_error(MPI_ERR_ARG, "MPI_Info_create", "null info argument%s", "");
  *info = make_info({});
  if (*info == MPI_INFO_NULL) return info_error(MPI_ERR_NO_MEM, "MPI_Info_create", "out of info objects%s", "");
  return MPI_SUCCESS;
}

int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  constexpr const char* kFunction = "MPI_Info_set";
  if (int err = check_key(kFunction, key); err != MPI_SUCCESS) return err;
  if (value == nullptr || std::strlen(value) > MPI_MAX_INFO_VAL) {
    return info_error(MPI_ERR_INFO_VALUE, kFunction, "value for key \"%s\" is null or longer than MPI_MAX_INFO_VAL",
                      key);
  }
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  InfoEntries* entries = find_locked(t, info);
  if (entries == nullptr || info == MPI_INFO_ENV) return invalid_info(kFunction, info);
  if (auto it = find_key(*entries, key); it != entries->end()) {
    it->second = value;
  } else {
    entries->emplace_back(key, value);
  }
  return MPI_SUCCESS;
}

int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  if (flag == nullptr || valuelen < 0 || (value == nullptr && valuelen > 0)) {
    return info_error(MPI_ERR_ARG, "MPI_Info_get", "invalid value, valuelen or flag argument for key %s",
                      key != nullptr ? key : "(null)");
  }
  return with_value("MPI_Info_get", info, key, [&](const std::string* found) {
    *flag = found != nullptr;
    if (found != nullptr) copy_out(*found, value, static_cast<std::size_t>(valuelen) + 1);
  });
}

int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  if (flag == nullptr || buflen == nullptr || *buflen < 0 || (value == nullptr && *buflen > 0)) {
    return info_error(MPI_ERR_ARG, "MPI_Info_get_string", "invalid value, buflen or flag argument for key %s",
                      key != nullptr ? key : "(null)");
  }
  return with_value("MPI_Info_get_string", info, key, [&](const std::string* found) {
    *flag = found != nullptr;
    if (found == nullptr) return;
    copy_out(*found, value, static_cast<std::size_t>(*buflen));
    *buflen = static_cast<int>(found->size()) + 1;
  });
}

int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  if (flag == nullptr || valuelen == nullptr) {
    return info_error(MPI_ERR_ARG, "MPI_Info_get_valuelen", "null valuelen or flag argument for key %s",
                      key != nullptr ? key : "(null)");
  }
  return with_value("MPI_Info_get_valuelen", info, key, [&](const std::string* found) {
    *flag = found != nullptr;
    if (found != nullptr) *valuelen = static_cast<int>(found->size());
  });
}

int PMPI_Info_delete(MPI_Info info, const char* key) {
  constexpr const char* kFunction = "MPI_Info_delete";
  if (int err = check_key(kFunction, key); err != MPI_SUCCESS) return err;
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  InfoEntries* entries = find_locked(t, info);
  if (entries == nullptr || info == MPI_INFO_ENV) return invalid_info(kFunction, info);
  auto it = find_key(*entries, key);
  if (it == entries->end()) return info_error(MPI_ERR_INFO_NOKEY, kFunction, "no key \"%s\" in the info object", key);
  entries->erase(it);
  return MPI_SUCCESS;
}

int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  constexpr const char* kFunction = "MPI_Info_dup";
  if (newinfo == nullptr) return info_error(MPI_ERR_ARG, kFunction, "null newinfo argument%s", "");
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  InfoEntries* entries = find_locked(t, info);
  if (entries == nullptr) return invalid_info(kFunction, info);
  *newinfo = add_locked(t, *entries);
  if (*newinfo == MPI_INFO_NULL) return info_error(MPI_ERR_NO_MEM, kFunction, "out of info objects%s", "");
  return MPI_SUCCESS;
}

// MPI 4.0: a new info object with MPI_INFO_ENV's keys, callable before
// MPI_Init. The program's own argc and argv, when given, name the command
// and its arguments instead of what /proc says.
int PMPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  constexpr const char* kFunction = "MPI_Info_create_env";
  if (info == nullptr) return info_error(MPI_ERR_ARG, kFunction, "null info argument%s", "");
  if (argc < 0) return info_error(MPI_ERR_ARG, kFunction, "negative argc%s", "");
  if (argc > 0 && argv == nullptr) return info_error(MPI_ERR_ARG, kFunction, "argc > 0 with a null argv%s", "");
  InfoEntries entries = environment_entries();
  if (argc > 0 && argv[0] != nullptr) {
    std::string words;
    for (int i = 1; i < argc && argv[i] != nullptr; ++i) words += (i > 1 ? " " : "") + std::string(argv[i]);
    std::erase_if(entries, [](const auto& entry) { return entry.first == "command" || entry.first == "argv"; });
    entries.insert(entries.begin(), {"command", argv[0]});
    if (!words.empty()) entries.insert(entries.begin() + 1, {"argv", words});
  }
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  *info = add_locked(t, std::move(entries));
  if (*info == MPI_INFO_NULL) return info_error(MPI_ERR_NO_MEM, kFunction, "out of info objects%s", "");
  return MPI_SUCCESS;
}

int PMPI_Info_free(MPI_Info* info) {
  constexpr const char* kFunction = "MPI_Info_free";
  if (info == nullptr) return info_error(MPI_ERR_ARG, kFunction, "null info argument%s", "");
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  if (find_locked(t, *info) == nullptr || *info == MPI_INFO_ENV) return invalid_info(kFunction, *info);
  const int slot = InfoHandle::slot(*info);
  t.objects[slot].reset();
  t.generations[slot] = InfoHandle::next(t.generations[slot]);
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  constexpr const char* kFunction = "MPI_Info_get_nkeys";
  if (nkeys == nullptr) return info_error(MPI_ERR_ARG, kFunction, "null nkeys argument%s", "");
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  InfoEntries* entries = find_locked(t, info);
  if (entries == nullptr) return invalid_info(kFunction, info);
  *nkeys = static_cast<int>(entries->size());
  return MPI_SUCCESS;
}

int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  constexpr const char* kFunction = "MPI_Info_get_nthkey";
  if (key == nullptr) return info_error(MPI_ERR_ARG, kFunction, "null key argument%s", "");
  InfoTable& t = table();
  std::lock_guard lock(t.mutex);
  InfoEntries* entries = find_locked(t, info);
  if (entries == nullptr) return invalid_info(kFunction, info);
  if (n < 0 || static_cast<std::size_t>(n) >= entries->size()) {
    char text[64];
    std::snprintf(text, sizeof(text), "%d (the object has %zu keys)", n, entries->size());
    return info_error(MPI_ERR_ARG, kFunction, "invalid key index %s", text);
  }
  copy_out((*entries)[static_cast<std::size_t>(n)].first, key, MPI_MAX_INFO_KEY + 1);
  return MPI_SUCCESS;
}

MPI_Fint PMPI_Info_c2f(MPI_Info info) { return info; }
MPI_Info PMPI_Info_f2c(MPI_Fint info) { return info; }

#pragma weak MPI_Info_create = PMPI_Info_create
#pragma weak MPI_Info_set = PMPI_Info_set
#pragma weak MPI_Info_get = PMPI_Info_get
#pragma weak MPI_Info_get_string = PMPI_Info_get_string
#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
#pragma weak MPI_Info_delete = PMPI_Info_delete
#pragma weak MPI_Info_dup = PMPI_Info_dup
#pragma weak MPI_Info_create_env = PMPI_Info_create_env
#pragma weak MPI_Info_free = PMPI_Info_free
#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
#pragma weak MPI_Info_c2f = PMPI_Info_c2f
#pragma weak MPI_Info_f2c = PMPI_Info_f2c

}  // extern "C"
