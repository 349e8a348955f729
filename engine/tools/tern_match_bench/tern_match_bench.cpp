// Tag-matching depth: the cost per message when N receives with distinct
// tags are posted and the messages arrive in the reverse order, so each one
// is matched against a queue of up to N entries. Runs on one worker over the
// self transport, so the whole engine path is measured (post, send, progress,
// match, copy, completion) without a second process's noise.
//
// Prints one row per depth with the time per message and its ratio to depth 1.
#include <getopt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tern/engine/worker.hpp"

namespace {

using tern::Status;
using tern::engine::Endpoint;
using tern::engine::Request;
using tern::engine::Worker;

struct Options {
  std::vector<std::size_t> depths = {1, 64, 1024, 16384, 65536};
  std::size_t messages = 65536;  // per round, at every depth
  int rounds = 5;                // the best round is reported
};

void usage() {
  std::printf(
      "Usage: tern_match_bench [--depths 1,1024,65536] [--messages N] [--rounds R]\n"
      "  Posts N receives with distinct tags, sends N messages in reverse tag order\n"
      "  and reports the time per message (best of R rounds) for each depth N.\n");
}

bool parse(int argc, char** argv, Options& options) {
  static const option kLong[] = {{"depths", required_argument, nullptr, 'd'},
                                 {"messages", required_argument, nullptr, 'n'},
                                 {"rounds", required_argument, nullptr, 'r'},
                                 {"help", no_argument, nullptr, 'h'},
                                 {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "d:n:r:h", kLong, nullptr)) != -1) {
    switch (c) {
      case 'd': {
        options.depths.clear();
        std::stringstream list(optarg);
        std::string item;
        while (std::getline(list, item, ',')) {
          char* end = nullptr;
          unsigned long value = std::strtoul(item.c_str(), &end, 10);
          if (end == item.c_str() || *end != '\0' || value == 0) {
            std::fprintf(stderr, "tern_match_bench: bad depth '%s'\n", item.c_str());
            return false;
          }
          options.depths.push_back(value);
        }
        break;
      }
      case 'n': options.messages = std::strtoul(optarg, nullptr, 10); break;
      case 'r': options.rounds = std::atoi(optarg); break;
      case 'h': usage(); std::exit(0);
      default: usage(); return false;
    }
  }
  return options.messages > 0 && options.rounds > 0;
}

// Nanoseconds per message for one round at `depth`.
double run_round(Worker& worker, Endpoint* ep, std::size_t depth, std::size_t messages, bool& ok) {
  std::vector<uint64_t> slots(depth, 0);
  std::vector<Request*> requests(depth, nullptr);
  std::size_t done = 0;
  const auto start = std::chrono::steady_clock::now();
  while (done < messages) {
    const std::size_t batch = std::min(depth, messages - done);
    for (std::size_t i = 0; i < batch; ++i) {
      if (worker.tag_recv_nb(&slots[i], sizeof(uint64_t), i, tern::engine::kTagMaskAll, requests[i]) !=
          Status::InProgress) {
        ok = false;
        return 0;
      }
    }
    for (std::size_t i = batch; i-- > 0;) {
      uint64_t value = i * 7 + 1;
      if (worker.tag_send(ep, &value, sizeof(value), i) != Status::Ok) {
        ok = false;
        return 0;
      }
      // Deliver as we go so each arrival is matched against the full queue.
      worker.progress();
    }
    for (std::size_t i = 0; i < batch; ++i) {
      if (worker.wait(requests[i]) != Status::Ok || slots[i] != i * 7 + 1) {
        ok = false;
        return 0;
      }
    }
    done += batch;
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  return std::chrono::duration<double, std::nano>(elapsed).count() / static_cast<double>(messages);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse(argc, argv, options)) return 2;
  tern::engine::WorkerParams params;
  params.config.transports = "self";
  std::unique_ptr<Worker> worker;
  Endpoint* ep = nullptr;
  if (Worker::create(params, worker) != Status::Ok || worker->connect(worker->address(), ep) != Status::Ok) {
    std::fprintf(stderr, "tern_match_bench: cannot create a worker\n");
    return 1;
  }
  std::printf("# Tern tag-matching depth (self transport, %zu messages per round, best of %d)\n",
              options.messages, options.rounds);
  std::printf("%-12s %14s %12s\n", "# depth", "ns/message", "ratio");
  double base = 0;
  for (std::size_t depth : options.depths) {
    double best = 0;
    for (int round = 0; round < options.rounds; ++round) {
      bool ok = true;
      double ns = run_round(*worker, ep, depth, std::max(options.messages, depth), ok);
      if (!ok) {
        std::fprintf(stderr, "tern_match_bench: wrong result at depth %zu\n", depth);
        return 1;
      }
      best = round == 0 ? ns : std::min(best, ns);
    }
    if (base == 0) base = best;
    std::printf("%-12zu %14.1f %12.2f\n", depth, best, best / base);
  }
  return 0;
}
