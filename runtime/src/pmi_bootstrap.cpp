// PMI keeps text values of a bounded length (vallen_max, 1024 in practice)
// under keys of a bounded length in one space shared by the whole job.
// Values here are bytes, of any length, under keys every rank reuses, so:
//  - the key on the wire is "<key>@<rank>" ("h<hash>@<rank>" for a key too
//    long or with characters PMI does not carry);
//  - the value is hex, "v<hex>" when it fits in one entry, otherwise split
//    into entries "<key>@<rank>#<i>" and announced as "c<count>".
#include "pmi_bootstrap.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>

#include "tern/runtime/name_hash.hpp"
#include "launched_bootstrap.hpp"
#include "pmi_mapping.hpp"
#include "pmi_wire.hpp"
#include "tern/runtime/log.hpp"

namespace tern::runtime {
namespace {

constexpr const char* kMappingKey = "PMI_process_mapping";
// PMI-2 has no get_maxes; these are its header's limits (and hydra's and
// Slurm's), terminating zero included.
constexpr std::size_t kPmi2KeyMax = 64;
constexpr std::size_t kPmi2ValueMax = 1024;
// MPICH's and Slurm's PMI-1 servers read a command into a 1024-byte line.
constexpr std::size_t kPmi1LineMax = 1024;
// Room a command takes besides its key, value and job name.
constexpr std::size_t kCommandOverhead = 48;
constexpr std::size_t kMinChunk = 64;
// A value split in more entries than this is not one Tern put.
constexpr unsigned long kMaxChunks = 1u << 20;
constexpr long long kMaxRanks = 1ll << 24;

bool env_number(const char* name, long long limit, long long& out, std::string& error) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return false;
  std::string_view view(text);
  auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), out);
  if (ec != std::errc() || end != view.data() + view.size() || out < 0 || out >= limit) {
    error = std::string("PMI: ") + name + "='" + pmi_printable(view) + "' is not a number below " +
            std::to_string(limit);
    out = -1;
  }
  return true;
}

bool key_char_is_plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

std::string hex_of(std::span<const std::byte> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (std::byte b : bytes) {
    out.push_back(kDigits[static_cast<unsigned>(b) >> 4]);
    out.push_back(kDigits[static_cast<unsigned>(b) & 0xf]);
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool bytes_of_hex(std::string_view hex, std::vector<std::byte>& out) {
  if (hex.size() % 2 != 0) return false;
  out.clear();
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int high = hex_digit(hex[i]);
    const int low = hex_digit(hex[i + 1]);
    if (high < 0 || low < 0) return false;
    out.push_back(static_cast<std::byte>(high * 16 + low));
  }
  return true;
}

class PmiBootstrap final : public LaunchedBootstrap {
 public:
  explicit PmiBootstrap(int fd) : wire_(fd) {}
  ~PmiBootstrap() override {
    if (initialized_ && !finalized_) (void)finalize();
  }
  PmiBootstrap(const PmiBootstrap&) = delete;
  PmiBootstrap& operator=(const PmiBootstrap&) = delete;

  Status init(BootstrapMode mode, unsigned reply_timeout_seconds, std::string& error);

  const char* name() const noexcept override { return v2() ? "pmi2" : "pmi1"; }

  Status put(const char* key, std::span<const std::byte> value) override;
  Status commit() override;
  Status fence(bool collect) override;
  Status get(unsigned rank, const char* key, std::vector<std::byte>& value) override;
  [[noreturn]] void abort(int exit_code, const char* message) override;
  Status finalize() override;

 private:
  bool v2() const noexcept { return wire_.framing() == PmiFraming::V2; }
  Status init_v1(long long env_rank, long long env_size, std::string& error);
  Status init_v2(long long env_rank, long long env_size, std::string& error);
  // The job facts both versions share: nodes from the mapping, job id, limits.
  Status learn_layout(const std::string* mapping, std::string& error);
  // One command and its reply, with rc checked.
  Status request(const std::string& command, std::string_view expected, PmiReply& reply, std::string& error);
  Status kvs_put(const std::string& key, const std::string& value, std::string& error);
  // NotFound when no rank put `key`.
  Status kvs_get(const std::string& key, std::string& value, std::string& error);
  std::string wire_key(const char* key, unsigned rank, long chunk = -1) const;
  Status check_key(const char* what, const char* key) {
    if (is_valid_bootstrap_key(key)) return Status::Ok;
    last_error_ = std::string(what) + ": invalid key (empty, longer than 511 characters or starting with 'pmix')";
    return Status::InvalidParam;
  }

  PmiConnection wire_;
  std::string kvs_name_;  // PMI-1's key-value space, PMI-2's job id
  std::size_t key_max_ = kPmi2KeyMax - 1;
  std::size_t chunk_max_ = kMinChunk;  // hex characters in one entry
  // Put since the last commit, and everything this rank put (its own keys
  // are read back without asking the server).
  std::map<std::string, std::vector<std::byte>, std::less<>> uncommitted_;
  std::map<std::string, std::vector<std::byte>, std::less<>> own_;
  unsigned reply_timeout_seconds_ = 0;  // for the answers that wait for no other rank
};

Status PmiBootstrap::request(const std::string& command, std::string_view expected, PmiReply& reply,
                             std::string& error) {
  if (Status s = wire_.call(command, expected, reply, error); s != Status::Ok) return s;
  return check_pmi_rc(reply, command, error);
}

Status PmiBootstrap::init(BootstrapMode mode, unsigned reply_timeout_seconds, std::string& error) {
  wire_.set_reply_timeout(reply_timeout_seconds);
  long long env_rank = -1, env_size = -1;
  (void)env_number("PMI_RANK", kMaxRanks, env_rank, error);
  (void)env_number("PMI_SIZE", kMaxRanks + 1, env_size, error);
  if (!error.empty()) return Status::InvalidParam;

  // Each launcher's own version: Slurm's pmi2 plugin is a PMI-2 server
  // first; hydra's default (and every PMI server's common ground) is PMI-1,
  // and hydra 4.0 knows no PMI-2 abort.
  if (mode == BootstrapMode::Pmi && std::getenv("SLURM_STEP_ID") == nullptr) mode = BootstrapMode::Pmi1;
  PmiReply reply;
  bool speaks_v2 = false;
  if (mode != BootstrapMode::Pmi1) {
    const std::string hello = "cmd=init pmi_version=2 pmi_subversion=0";
    if (Status s = wire_.call(hello, "response_to_init", reply, error); s != Status::Ok) return s;
    const std::string* version = reply.find("pmi_version");
    std::string declined;
    speaks_v2 = check_pmi_rc(reply, hello, declined) == Status::Ok && version != nullptr && *version == "2";
    if (!speaks_v2 && mode == BootstrapMode::Pmi2) {
      error = "PMI: the launcher does not speak PMI-2 (TERN_BOOTSTRAP=pmi2): it answered '" + reply.text() + "'";
      return Status::Unsupported;
    }
  }
  Status s = speaks_v2 ? init_v2(env_rank, env_size, error) : init_v1(env_rank, env_size, error);
  if (s != Status::Ok) return s;
  initialized_ = true;
  reply_timeout_seconds_ = reply_timeout_seconds;
  // From here on, answers wait for the other ranks (a fence) as long as they take.
  wire_.set_reply_timeout(0);
  TERN_LOG(Debug, "bootstrap: %s job %s rank %u of %u, local rank %u of %zu, node %u, values in entries of %zu",
           name(), kvs_name_.c_str(), rank_, size_, local_rank_, local_peers_.size(), node_id_, chunk_max_);
  return Status::Ok;
}

Status PmiBootstrap::init_v1(long long env_rank, long long env_size, std::string& error) {
  const std::string hello = "cmd=init pmi_version=1 pmi_subversion=1";
  PmiReply reply;
  if (Status s = request(hello, "response_to_init", reply, error); s != Status::Ok) return s;
  if (const std::string* version = reply.find("pmi_version"); version == nullptr || *version != "1") {
    error = "PMI: the launcher does not speak PMI-1 either: '" + hello + "' was answered by '" + reply.text() + "'";
    return Status::Unsupported;
  }
  // PMI-1 hands rank and size over in the environment only.
  if (env_rank < 0 || env_size <= 0) {
    error = "PMI: PMI_FD is set but PMI_RANK or PMI_SIZE is not (a PMI-1 server sets all three)";
    return Status::InvalidParam;
  }
  rank_ = static_cast<unsigned>(env_rank);
  size_ = static_cast<unsigned>(env_size);
  if (rank_ >= size_) {
    error = "PMI: PMI_RANK=" + std::to_string(rank_) + " is not below PMI_SIZE=" + std::to_string(size_);
    return Status::InvalidParam;
  }
  long long keylen = 0, vallen = 0;
  if (Status s = request("cmd=get_maxes", "maxes", reply, error); s != Status::Ok) return s;
  if (!pmi_field_number(reply, "keylen_max", 1 << 20, keylen) ||
      !pmi_field_number(reply, "vallen_max", 1 << 20, vallen)) {
    error = "PMI: 'cmd=get_maxes' was answered without usable keylen_max and vallen_max: '" + reply.text() + "'";
    return Status::IoError;
  }
  if (Status s = request("cmd=get_my_kvsname", "my_kvsname", reply, error); s != Status::Ok) return s;
  const std::string* kvs = reply.find("kvsname");
  if (kvs == nullptr || kvs->empty()) {
    error = "PMI: 'cmd=get_my_kvsname' was answered without a kvsname: '" + reply.text() + "'";
    return Status::IoError;
  }
  kvs_name_ = *kvs;
  key_max_ = static_cast<std::size_t>(std::max(keylen, 1ll)) - 1;
  const std::size_t line_used = kCommandOverhead + kvs_name_.size() + key_max_;
  const std::size_t line_room = line_used < kPmi1LineMax ? kPmi1LineMax - line_used : 0;
  chunk_max_ = std::min(static_cast<std::size_t>(std::max(vallen, 1ll)) - 1, line_room);
  std::string mapping;
  std::string ignored;
  const bool have_mapping = kvs_get(kMappingKey, mapping, ignored) == Status::Ok;
  return learn_layout(have_mapping ? &mapping : nullptr, error);
}

Status PmiBootstrap::init_v2(long long env_rank, long long env_size, std::string& error) {
  wire_.set_framing(PmiFraming::V2);
  if (env_rank < 0) {
    error = "PMI: PMI_FD is set but PMI_RANK is not (a PMI-2 server sets both)";
    return Status::InvalidParam;
  }
  // Slurm's server wants the job named (PMI_JOBID, which it sets); hydra
  // sets none and asks for none.
  std::string named_job;
  if (const char* given = std::getenv("PMI_JOBID"); given != nullptr && *given != '\0') {
    if (std::strpbrk(given, ";=\n") != nullptr) {
      error = "PMI-2: PMI_JOBID='" + pmi_printable(given) + "' holds a character PMI-2 cannot carry (';', '=')";
      return Status::InvalidParam;
    }
    named_job = std::string("pmijobid=") + given + ";";
  }
  PmiReply reply;
  const std::string hello = "cmd=fullinit;" + named_job + "pmirank=" + std::to_string(env_rank) + ";threaded=FALSE;";
  if (Status s = request(hello, "fullinit-response", reply, error); s != Status::Ok) return s;
  long long rank = 0, size = 0;
  if (!pmi_field_number(reply, "size", kMaxRanks + 1, size) || size == 0 ||
      !pmi_field_number(reply, "rank", size, rank)) {
    error = "PMI-2: '" + hello + "' was answered without a rank below a size: '" + reply.text() + "'";
    return Status::IoError;
  }
  if (rank != env_rank || (env_size > 0 && size != env_size)) {
    error = "PMI-2: the server says rank " + std::to_string(rank) + " of " + std::to_string(size) +
            ", the environment PMI_RANK=" + std::to_string(env_rank) + " PMI_SIZE=" + std::to_string(env_size);
    return Status::IoError;
  }
  rank_ = static_cast<unsigned>(rank);
  size_ = static_cast<unsigned>(size);
  if (Status s = request("cmd=job-getid;", "job-getid-response", reply, error); s != Status::Ok) return s;
  const std::string* job = reply.find("jobid");
  if (job == nullptr || job->empty()) {
    error = "PMI-2: 'cmd=job-getid;' was answered without a jobid: '" + reply.text() + "'";
    return Status::IoError;
  }
  kvs_name_ = *job;
  key_max_ = kPmi2KeyMax - 1;
  chunk_max_ = kPmi2ValueMax - kCommandOverhead;
  const std::string ask = std::string("cmd=info-getjobattr;key=") + kMappingKey + ";";
  if (Status s = request(ask, "info-getjobattr-response", reply, error); s != Status::Ok) return s;
  const std::string* found = reply.find("found");
  const std::string* mapping = reply.find("value");
  return learn_layout(found != nullptr && *found == "TRUE" ? mapping : nullptr, error);
}

Status PmiBootstrap::learn_layout(const std::string* mapping, std::string& error) {
  chunk_max_ &= ~std::size_t{1};  // whole bytes per entry
  if (chunk_max_ < kMinChunk || key_max_ < 24) {
    error = "PMI: the server's limits (keys of " + std::to_string(key_max_) + " characters, entries of " +
            std::to_string(chunk_max_) + ") leave no room for Tern's keys and values";
    return Status::Unsupported;
  }
  std::vector<unsigned> node_of_rank;
  std::string why = "the launcher did not give it";
  if (mapping != nullptr && parse_pmi_process_mapping(*mapping, size_, node_of_rank, why)) {
    node_id_ = node_of_rank[rank_];
    for (unsigned r = 0; r < size_; ++r) {
      if (node_of_rank[r] == node_id_) local_peers_.push_back(r);
    }
  } else {
    // Without the map only a job wholly on this node can be described (hydra
    // says how many ranks share it); otherwise claim no local peers, which
    // is slower (no shared memory) but never wrong.
    const char* local = std::getenv("MPI_LOCALNRANKS");
    const bool whole_job_here = local != nullptr && std::to_string(size_) == local;
    for (unsigned r = 0; r < size_; ++r) {
      if (whole_job_here || r == rank_) local_peers_.push_back(r);
    }
    TERN_LOG(Debug, "bootstrap: no usable %s ('%s': %s); assuming %zu local peers", kMappingKey,
             mapping != nullptr ? pmi_printable(*mapping).c_str() : "", why.c_str(), local_peers_.size());
  }
  local_rank_ = static_cast<unsigned>(std::lower_bound(local_peers_.begin(), local_peers_.end(), rank_) -
                                      local_peers_.begin());
  const char* from_env = std::getenv("TERN_JOB_ID");
  job_id_ = sanitize_job_id((from_env != nullptr && *from_env != '\0') ? std::string_view(from_env)
                                                                       : std::string_view(kvs_name_));
  return Status::Ok;
}

std::string PmiBootstrap::wire_key(const char* key, unsigned rank, long chunk) const {
  std::string suffix = "@" + std::to_string(rank);
  if (chunk >= 0) suffix += "#" + std::to_string(chunk);
  std::string_view name(key);
  const bool plain = std::all_of(name.begin(), name.end(), key_char_is_plain);
  if (plain && name.size() + suffix.size() <= key_max_) return std::string(name) + suffix;
  return "h" + name_hash_hex(name) + suffix;
}

Status PmiBootstrap::kvs_put(const std::string& key, const std::string& value, std::string& error) {
  PmiReply reply;
  if (v2()) return request("cmd=kvs-put;key=" + key + ";value=" + value + ";", "kvs-put-response", reply, error);
  return request("cmd=put kvsname=" + kvs_name_ + " key=" + key + " value=" + value, "put_result", reply, error);
}

Status PmiBootstrap::kvs_get(const std::string& key, std::string& value, std::string& error) {
  PmiReply reply;
  const std::string command = v2() ? "cmd=kvs-get;jobid=" + kvs_name_ + ";srcid=-1;key=" + key + ";"
                                   : "cmd=get kvsname=" + kvs_name_ + " key=" + key;
  if (Status s = wire_.call(command, v2() ? "kvs-get-response" : "get_result", reply, error); s != Status::Ok) {
    return s;
  }
  if (v2()) {
    if (Status s = check_pmi_rc(reply, command, error); s != Status::Ok) return s;
    const std::string* found = reply.find("found");
    if (found == nullptr || (*found != "TRUE" && *found != "FALSE")) {
      error = "PMI-2: '" + command + "' was answered without found=TRUE or FALSE: '" + reply.text() + "'";
      return Status::IoError;
    }
    if (*found == "FALSE") return Status::NotFound;
  } else if (std::string rc_error; check_pmi_rc(reply, command, rc_error) != Status::Ok) {
    // PMI-1 servers answer a missing key with a non-zero rc and nothing else
    // tells it apart from a failure.
    return Status::NotFound;
  }
  const std::string* text = reply.find("value");
  if (text == nullptr) {
    error = "PMI: '" + command + "' was answered without a value: '" + reply.text() + "'";
    return Status::IoError;
  }
  value = *text;
  return Status::Ok;
}

Status PmiBootstrap::put(const char* key, std::span<const std::byte> value) {
  if (Status s = check_usable("put"); s != Status::Ok) return s;
  if (Status s = check_key("put", key); s != Status::Ok) return s;
  uncommitted_[key].assign(value.begin(), value.end());
  own_[key].assign(value.begin(), value.end());
  return Status::Ok;
}

Status PmiBootstrap::commit() {
  if (Status s = check_usable("commit"); s != Status::Ok) return s;
  for (const auto& [key, value] : uncommitted_) {
    const std::string hex = hex_of(value);
    std::string error;
    Status s = Status::Ok;
    if (hex.size() + 1 <= chunk_max_) {
      s = kvs_put(wire_key(key.c_str(), rank_), "v" + hex, error);
    } else {
      const std::size_t chunks = (hex.size() + chunk_max_ - 1) / chunk_max_;
      for (std::size_t i = 0; i < chunks && s == Status::Ok; ++i) {
        s = kvs_put(wire_key(key.c_str(), rank_, static_cast<long>(i)), hex.substr(i * chunk_max_, chunk_max_),
                    error);
      }
      if (s == Status::Ok) s = kvs_put(wire_key(key.c_str(), rank_), "c" + std::to_string(chunks), error);
    }
    if (s != Status::Ok) {
      last_error_ = "commit of " + key + ": " + error;
      return s;
    }
  }
  uncommitted_.clear();
  return Status::Ok;
}

Status PmiBootstrap::fence(bool /*collect*/) {
  // A PMI server's fence always makes every committed entry gettable; the
  // gets ask the server either way.
  if (Status s = check_usable("fence"); s != Status::Ok) return s;
  PmiReply reply;
  std::string error;
  Status s = v2() ? request("cmd=kvs-fence;", "kvs-fence-response", reply, error)
                  : request("cmd=barrier_in", "barrier_out", reply, error);
  if (s != Status::Ok) last_error_ = error;
  return s;
}

Status PmiBootstrap::get(unsigned rank, const char* key, std::vector<std::byte>& value) {
  if (Status s = check_usable("get"); s != Status::Ok) return s;
  if (Status s = check_key("get", key); s != Status::Ok) return s;
  if (rank >= size_) {
    last_error_ = "get: rank " + std::to_string(rank) + " out of range for a job of size " + std::to_string(size_);
    return Status::InvalidParam;
  }
  if (rank == rank_) {
    auto it = own_.find(key);
    if (it == own_.end()) return Status::NotFound;
    value = it->second;
    return Status::Ok;
  }
  std::string head, error;
  if (Status s = kvs_get(wire_key(key, rank), head, error); s != Status::Ok) {
    if (s != Status::NotFound) last_error_ = "get of rank " + std::to_string(rank) + "'s " + key + ": " + error;
    return s;
  }
  const auto bad = [&](const std::string& why) {
    last_error_ = "get of rank " + std::to_string(rank) + "'s " + key + ": " + why;
    return Status::IoError;
  };
  std::string hex;
  if (!head.empty() && head[0] == 'v') {
    hex = head.substr(1);
  } else if (!head.empty() && head[0] == 'c') {
    unsigned long chunks = 0;
    auto [end, ec] = std::from_chars(head.data() + 1, head.data() + head.size(), chunks);
    if (ec != std::errc() || end != head.data() + head.size() || chunks == 0 || chunks > kMaxChunks) {
      return bad("the entry '" + pmi_printable(head) + "' is neither v<hex> nor c<count>");
    }
    std::string part;
    for (unsigned long i = 0; i < chunks; ++i) {
      Status s = kvs_get(wire_key(key, rank, static_cast<long>(i)), part, error);
      if (s == Status::NotFound) {
        return bad("part " + std::to_string(i) + " of " + std::to_string(chunks) + " is missing");
      }
      if (s != Status::Ok) return bad(error);
      hex += part;
    }
  } else {
    return bad("the entry '" + pmi_printable(head) + "' is neither v<hex> nor c<count>");
  }
  if (!bytes_of_hex(hex, value)) return bad("the value is not hex");
  return Status::Ok;
}

void PmiBootstrap::abort(int exit_code, const char* message) {
  const char* text = message != nullptr ? message : "";
  // A PMI launcher does not print the reason; the rank's last words must
  // not die in a buffer either.
  std::fflush(nullptr);
  std::fprintf(stderr, "tern: rank %u: abort (exit code %d): %s\n", rank_, exit_code, text);
  std::fflush(stderr);
  if (initialized_ && !finalized_) {
    // The launcher forwards the rank's output through a pipe it stops
    // reading once it ends the job: a moment lets these last words out.
    constexpr useconds_t kOutputGrace = 50000;
    usleep(kOutputGrace);
    std::string error;
    std::string reason(text);
    // PMI-2 fields end at ';', PMI-1 commands at the line's end.
    std::replace_if(reason.begin(), reason.end(), [](char c) { return c == ';' || c == '\n' || c == '\r'; }, ',');
    Status s = v2() ? wire_.send("cmd=abort;isworldabort=TRUE;msg=" + reason + ";", error)
                    : wire_.send("cmd=abort exitcode=" + std::to_string(exit_code), error);
    if (s != Status::Ok) std::fprintf(stderr, "tern: %s; exiting with %d\n", error.c_str(), exit_code);
  }
  // The server ends the other ranks; this one does not wait for it.
  _exit(exit_code);
}

Status PmiBootstrap::finalize() {
  if (finalized_ || !initialized_) return Status::Ok;
  finalized_ = true;
  PmiReply reply;
  std::string error;
  // A launcher that does not acknowledge must not keep the rank from exiting.
  wire_.set_reply_timeout(reply_timeout_seconds_);
  Status s = v2() ? request("cmd=finalize;", "finalize-response", reply, error)
                  : request("cmd=finalize", "finalize_ack", reply, error);
  wire_.close();
  if (s != Status::Ok) last_error_ = error;
  return s;
}

}  // namespace

Status create_pmi_bootstrap(std::unique_ptr<Bootstrap>& out, std::string& error, BootstrapMode mode,
                            unsigned reply_timeout_seconds) {
  const char* fd_text = std::getenv("PMI_FD");
  int fd = -1;
  std::string_view view(fd_text != nullptr ? fd_text : "");
  auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), fd);
  if (view.empty() || ec != std::errc() || end != view.data() + view.size() || fd < 0 || fcntl(fd, F_GETFD) < 0) {
    error = "PMI: PMI_FD='" + pmi_printable(view) + "' is not an open file descriptor of this process";
    return Status::InvalidParam;
  }
  // Programs this rank starts are no part of the job.
  (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
  std::unique_ptr<PmiBootstrap> bootstrap(new (std::nothrow) PmiBootstrap(fd));
  if (!bootstrap) return Status::NoMemory;
  if (Status s = bootstrap->init(mode, reply_timeout_seconds, error); s != Status::Ok) return s;
  out = std::move(bootstrap);
  return Status::Ok;
}

}  // namespace tern::runtime
