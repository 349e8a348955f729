// A Tern program that only bootstraps: run by hand it is a singleton; under a
// PMIx launcher (ternrun, mpirun) every rank publishes keys, fences, and reads
// every other rank's keys, after a collecting fence and after a plain one
// (where each get asks the server). Prints "probe: <bootstrap> rank R of N ok"
// and exits 0, or names the first failed check and exits 1.
#include <cstdio>
#include <string>
#include <vector>

#include "tern/runtime/bootstrap.hpp"

namespace {

using tern::Status;
using tern::runtime::Bootstrap;

int fail(const Bootstrap* bootstrap, const std::string& what) {
  std::fprintf(stderr, "probe: rank %d: %s%s%s\n", bootstrap != nullptr ? static_cast<int>(bootstrap->rank()) : -1,
               what.c_str(), bootstrap != nullptr && !bootstrap->last_error().empty() ? ": " : "",
               bootstrap != nullptr ? bootstrap->last_error().c_str() : "");
  return 1;
}

std::span<const std::byte> bytes_of(const std::string& text) { return std::as_bytes(std::span(text.data(), text.size())); }

std::string text_of(const std::vector<std::byte>& bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// Large enough to need more than one socket read in the server.
std::string big_value(unsigned rank) {
  std::string value(100000, '\0');
  for (std::size_t i = 0; i < value.size(); ++i) value[i] = static_cast<char>((i * 7 + rank * 13) & 0xff);
  return value;
}

std::string small_value(unsigned rank, const std::string& job_id) {
  return "rank " + std::to_string(rank) + " of job " + job_id;
}

}  // namespace

int main() {
  std::unique_ptr<Bootstrap> bootstrap;
  std::string error;
  if (tern::runtime::create_bootstrap(bootstrap, error) != Status::Ok) return fail(nullptr, error);
  Bootstrap& b = *bootstrap;
  const bool launched = tern::runtime::pmix_environment_present();
  if (launched && std::string(b.name()) != "pmix") return fail(&b, "started by a PMIx launcher but not a PMIx bootstrap");
  if (b.rank() >= b.size()) return fail(&b, "rank out of range");
  const auto& peers = b.local_peers();
  if (peers.size() != b.local_size() || peers.empty()) return fail(&b, "local_peers and local_size disagree");
  for (std::size_t i = 0; i < peers.size(); ++i) {
    if (peers[i] >= b.size() || (i > 0 && peers[i] <= peers[i - 1])) return fail(&b, "local_peers not ascending ranks");
  }
  if (b.local_rank() >= peers.size() || peers[b.local_rank()] != b.rank())
    return fail(&b, "local_rank is not this rank's place in local_peers");

  // Round 1: collect everything at the fence.
  if (b.put("tern.probe.small", bytes_of(small_value(b.rank(), b.job_id()))) != Status::Ok) return fail(&b, "put small");
  if (b.put("tern.probe.big", bytes_of(big_value(b.rank()))) != Status::Ok) return fail(&b, "put big");
  if (b.put("tern.probe.empty", {}) != Status::Ok) return fail(&b, "put empty");
  if (b.commit() != Status::Ok) return fail(&b, "commit");
  if (b.fence(true) != Status::Ok) return fail(&b, "fence(collect)");
  std::vector<std::byte> value;
  for (unsigned peer = 0; peer < b.size(); ++peer) {
    // The job id is in the value: every rank must have derived the same one.
    if (b.get(peer, "tern.probe.small", value) != Status::Ok) return fail(&b, "get small of " + std::to_string(peer));
    if (text_of(value) != small_value(peer, b.job_id()))
      return fail(&b, "rank " + std::to_string(peer) + " sent '" + text_of(value) + "'");
    if (b.get(peer, "tern.probe.big", value) != Status::Ok) return fail(&b, "get big of " + std::to_string(peer));
    if (text_of(value) != big_value(peer)) return fail(&b, "big value of rank " + std::to_string(peer) + " differs");
    value.resize(3);
    if (b.get(peer, "tern.probe.empty", value) != Status::Ok) return fail(&b, "get empty of " + std::to_string(peer));
    if (!value.empty()) return fail(&b, "empty value of rank " + std::to_string(peer) + " is not empty");
  }
  if (b.get((b.rank() + 1) % b.size(), "tern.probe.never", value) != Status::NotFound)
    return fail(&b, "a key nobody put was not NotFound after a collecting fence");

  // Round 2: a plain fence; each get of a peer's key goes to the server.
  if (b.put("tern.probe.lazy", bytes_of("lazy " + std::to_string(b.rank()))) != Status::Ok) return fail(&b, "put lazy");
  if (b.commit() != Status::Ok) return fail(&b, "commit lazy");
  if (b.fence(false) != Status::Ok) return fail(&b, "fence");
  for (unsigned peer = 0; peer < b.size(); ++peer) {
    if (b.get(peer, "tern.probe.lazy", value) != Status::Ok) return fail(&b, "get lazy of " + std::to_string(peer));
    if (text_of(value) != "lazy " + std::to_string(peer)) return fail(&b, "lazy value of " + std::to_string(peer));
  }

  // Nobody leaves while another rank may still ask the server about it.
  if (b.fence(false) != Status::Ok) return fail(&b, "last fence");
  std::printf("probe: %s rank %u of %u ok (local rank %u of %u, node %u, job %s)\n", b.name(), b.rank(), b.size(),
              b.local_rank(), b.local_size(), b.node_id(), b.job_id().c_str());
  std::fflush(stdout);
  if (b.finalize() != Status::Ok) return fail(&b, "finalize");
  return 0;
}
