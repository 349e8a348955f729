#include "tern/runtime/bootstrap.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tern/runtime/name_hash.hpp"
#include "pmi_bootstrap.hpp"
#include "pmix_bootstrap.hpp"

extern char** environ;

namespace tern::runtime {
namespace {

// Segment names (/dev/shm, NAME_MAX) and abstract socket names (107 bytes)
// are built from the job id plus a suffix; this leaves room for the suffix.
constexpr std::size_t kMaxJobIdLength = 48;
constexpr std::size_t kKeptPrefix = 31;
// PMIX_MAX_KEYLEN; the singleton keeps it too, so a key that works alone also
// works under a launcher.
constexpr std::size_t kMaxKeyLength = 511;

bool env_set(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0';
}

}  // namespace

bool pmix_environment_present() noexcept {
  if (env_set("PMIX_NAMESPACE") || env_set("PMIX_RANK")) return true;
  // Servers set one URI variable per protocol version they speak
  // (PMIX_SERVER_URI2, ...URI21, ...URI3, ...URI4, ...URI41).
  static constexpr char kUriPrefix[] = "PMIX_SERVER_URI";
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    if (std::strncmp(*entry, kUriPrefix, sizeof(kUriPrefix) - 1) == 0) return true;
  }
  return false;
}

bool is_valid_bootstrap_key(const char* key) noexcept {
  return key != nullptr && *key != '\0' && std::strlen(key) <= kMaxKeyLength && std::strncmp(key, "pmix", 4) != 0;
}

std::string sanitize_job_id(std::string_view raw) {
  if (raw.empty()) return "job";
  std::string id;
  const bool shorten = raw.size() > kMaxJobIdLength;
  std::string_view kept = shorten ? raw.substr(0, kKeptPrefix) : raw;
  id.reserve(kMaxJobIdLength);
  for (char c : kept) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_';
    id.push_back(safe ? c : '_');
  }
  if (shorten) {
    id += '-';
    id += name_hash_hex(raw);
  }
  return id;
}

Status create_bootstrap(std::unique_ptr<Bootstrap>& out, std::string& error) {
  Config config;
  if (Status s = load_config(config, error); s != Status::Ok) return s;
  BootstrapOptions options;
  options.mode = config.bootstrap;
  options.init_timeout_seconds = config.bootstrap_timeout;
  return create_bootstrap(options, out, error);
}

Status create_bootstrap(const BootstrapOptions& options, std::unique_ptr<Bootstrap>& out, std::string& error) {
  out.reset();
  error.clear();
  switch (options.mode) {
    case BootstrapMode::Singleton:
      return create_singleton_bootstrap(out);
    case BootstrapMode::Pmix:
      if (!pmix_environment_present()) {
        error =
            "TERN_BOOTSTRAP=pmix, but no PMIx server started this process (none of PMIX_NAMESPACE, PMIX_RANK, "
            "PMIX_SERVER_URI* is set); start it with ternrun or another PMIx launcher";
        return Status::Unreachable;
      }
      return create_pmix_bootstrap(out, error, options.init_timeout_seconds);
    case BootstrapMode::Pmi:
    case BootstrapMode::Pmi1:
    case BootstrapMode::Pmi2:
      if (!pmi_environment_present()) {
        error =
            "TERN_BOOTSTRAP=pmi, but no PMI server started this process (PMI_FD is not set); start it with "
            "MPICH's mpirun (mpirun.mpich) or srun --mpi=pmi2";
        return Status::Unreachable;
      }
      return create_pmi_bootstrap(out, error, options.mode, options.init_timeout_seconds);
    case BootstrapMode::Auto:
      break;
  }
  if (pmix_environment_present()) return create_pmix_bootstrap(out, error, options.init_timeout_seconds);
  if (pmi_environment_present()) {
    return create_pmi_bootstrap(out, error, BootstrapMode::Pmi, options.init_timeout_seconds);
  }
  if (std::string launcher = unsupported_launcher(); !launcher.empty()) {
    error = std::move(launcher);
    return Status::Unreachable;
  }
  return create_singleton_bootstrap(out);
}

}  // namespace tern::runtime
