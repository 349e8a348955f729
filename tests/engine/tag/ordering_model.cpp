// The receiver's checks of the ordering stress (see ordering_stress_test.cpp
// for what each one proves).
#include "ordering_model.hpp"

#include <map>
#include <tuple>

#include "tag/wire.hpp"
#include "transport/fifo_config.hpp"

namespace tern::engine::tag::stress {
namespace {

inline constexpr uint64_t kSeqMask = (uint64_t{1} << kSeqBits) - 1;

std::string format(const char* pattern, auto... args) {
  char text[512];
  std::snprintf(text, sizeof(text), pattern, args...);
  return text;
}

// Keeps the difference at the smallest op index.
struct FirstDifference {
  uint64_t op = kNoOp;
  std::string text;
  void add(uint64_t at, std::string what) {
    if (at < op) {
      op = at;
      text = std::move(what);
    }
  }
  [[nodiscard]] bool found() const { return op != kNoOp; }
};

struct Model {
  const Setup& setup;
  unsigned receiver;
  const std::vector<std::vector<PlannedMessage>>& plans;
  ReceiverLog& log;
  ModelCounts& counts;
  std::vector<std::vector<std::size_t>> consumer_of;  // [sender][seq] -> index in log.consumers

  static constexpr std::size_t kNone = SIZE_MAX;

  std::string message_name(unsigned sender, uint64_t seq) const {
    const PlannedMessage& m = plans[sender][seq];
    return format("message %llu from rank %u (%s, %zu B%s)", static_cast<unsigned long long>(seq), sender,
                  describe_tag(m.tag).c_str(), m.length, m.sync ? ", synchronous" : "");
  }

  // Every delivery: the outcome is one a receive can have, and the message
  // is one that was sent to this rank, matches the spec, and arrived intact.
  void check_deliveries(FirstDifference& first) {
    std::map<std::tuple<unsigned, uint64_t, std::size_t>, std::vector<std::size_t>> short_classes;
    for (std::size_t i = 0; i < log.consumers.size(); ++i) {
      ConsumeRecord& r = log.consumers[i];
      const std::string who = describe(r);
      if (r.outcome == Outcome::Pending) {
        first.add(r.op, who + " never completed nor was canceled");
        continue;
      }
      if (r.outcome == Outcome::Canceled) {
        ++counts.canceled;
        if (r.cancel_refused) first.add(r.op, who + " was canceled after a cancel had answered Busy");
        if (r.canceled_buffer_touched) first.add(r.op, who + " was canceled but data landed in its buffer");
        if (r.after_peek) first.add(r.op, who + " followed a probe that saw a message, yet stayed posted");
        continue;
      }
      counts.cancel_refused += r.cancel_refused ? 1 : 0;
      const unsigned source = source_of(r.sender_tag);
      const Status expected = r.length > r.capacity ? Status::Truncated : Status::Ok;
      if (r.status != expected) {
        first.add(r.op, who + format(" got %zu B into %zu and ended %s, expected %s", r.length, r.capacity,
                                     to_string(r.status), to_string(expected)));
        continue;
      }
      if ((r.sender_tag & ~(kSourceBits | kUserBits)) != kContext || source >= setup.ranks) {
        first.add(r.op, who + " got a tag nobody sent: " + describe_tag(r.sender_tag));
        continue;
      }
      if (!tag_matches(r.sender_tag, r.tag, r.mask)) {
        first.add(r.op, who + " got " + describe_tag(r.sender_tag) + ", which it does not match");
        continue;
      }
      if (r.overrun) first.add(r.op, who + format(" had bytes written past the message's %zu", r.length));
      if (r.after_peek && (r.sender_tag != r.peek_tag || r.length != r.peek_length)) {
        first.add(r.op, who + format(" followed a probe that saw (%s, %zu B) but got (%s, %zu B)",
                                     describe_tag(r.peek_tag).c_str(), r.peek_length,
                                     describe_tag(r.sender_tag).c_str(), r.length));
      }
      if (r.bad_byte != kNoDifference) {
        first.add(r.op, who + format(" got %zu B from rank %u whose byte %zu differs from what was sent", r.length,
                                     source, r.bad_byte));
        continue;
      }
      ++counts.deliveries;
      counts.bytes += r.length;
      if (r.length < kIdBytes) {
        short_classes[{source, r.sender_tag, r.length}].push_back(i);
        continue;
      }
      const auto id_sender = static_cast<unsigned>(r.header_id >> 56);
      const auto id_receiver = static_cast<unsigned>((r.header_id >> kSeqBits) & 0xff);
      const uint64_t seq = r.header_id & kSeqMask;
      if (id_sender != source || id_receiver != receiver || seq >= plans[source].size()) {
        first.add(r.op, who + format(" got a message whose id names rank %u to rank %u #%llu", id_sender, id_receiver,
                                     static_cast<unsigned long long>(seq)));
        continue;
      }
      const PlannedMessage& planned = plans[source][seq];
      if (planned.tag != r.sender_tag || planned.length != r.length) {
        first.add(r.op, who + format(" got (%s, %zu B) with the id of ", describe_tag(r.sender_tag).c_str(), r.length) +
                            message_name(source, seq));
        continue;
      }
      if (consumer_of[source][seq] != kNone) {
        first.add(r.op, who + " got " + message_name(source, seq) + " again (first " +
                            describe(log.consumers[consumer_of[source][seq]]) + ")");
        continue;
      }
      consumer_of[source][seq] = i;
      r.source = source;
      r.seq = seq;
    }
    name_short_messages(short_classes, first);
  }

  // Messages under 8 bytes with equal (sender, tag, length) carry equal
  // bytes, so no observation tells them apart. The only naming under which
  // the consumers could satisfy non-overtaking gives the earliest sent to
  // the earliest consumer; any other naming fails check_overtaking no less.
  void name_short_messages(const std::map<std::tuple<unsigned, uint64_t, std::size_t>, std::vector<std::size_t>>& classes,
                           FirstDifference& first) {
    for (const auto& [key, records] : classes) {
      const auto& [source, tag, length] = key;
      std::vector<uint64_t> sent;
      for (uint64_t seq = 0; seq < plans[source].size(); ++seq) {
        if (plans[source][seq].tag == tag && plans[source][seq].length == length) sent.push_back(seq);
      }
      counts.ambiguous += records.size();
      for (std::size_t k = 0; k < records.size(); ++k) {
        ConsumeRecord& r = log.consumers[records[k]];
        if (k >= sent.size()) {
          first.add(r.op, describe(r) + format(" got a %zu B message (%s) from rank %u, which sent only %zu such", length,
                                               describe_tag(tag).c_str(), source, sent.size()));
          break;
        }
        consumer_of[source][sent[k]] = records[k];
        r.source = source;
        r.seq = sent[k];
      }
    }
  }

  // Every message sent to this rank was delivered (exactly once: above).
  void check_complete(FirstDifference& first) {
    for (unsigned sender = 0; sender < setup.ranks; ++sender) {
      for (uint64_t seq = 0; seq < plans[sender].size(); ++seq) {
        if (consumer_of[sender][seq] == kNone) first.add(kNoOp - 1, message_name(sender, seq) + " was never delivered");
      }
    }
  }

  // Non-overtaking: when a consumer got message j of a sender, every earlier
  // message of that sender which it also matches went to an earlier consumer.
  void check_overtaking(FirstDifference& first) {
    for (unsigned sender = 0; sender < setup.ranks; ++sender) {
      struct Group {
        uint64_t tag;
        std::vector<uint64_t> seqs;
        std::vector<uint64_t> latest_consumer;  // prefix maximum of the consumers' op
        std::vector<uint64_t> latest_seq;       // the message that consumer got
      };
      std::map<uint64_t, Group> groups;
      for (uint64_t seq = 0; seq < plans[sender].size(); ++seq) {
        Group& g = groups[plans[sender][seq].tag];
        g.tag = plans[sender][seq].tag;
        const uint64_t op = log.consumers[consumer_of[sender][seq]].op;
        const bool later = g.seqs.empty() || op > g.latest_consumer.back();
        g.latest_consumer.push_back(later ? op : g.latest_consumer.back());
        g.latest_seq.push_back(later ? seq : g.latest_seq.back());
        g.seqs.push_back(seq);
      }
      for (uint64_t seq = 0; seq < plans[sender].size(); ++seq) {
        const ConsumeRecord& r = log.consumers[consumer_of[sender][seq]];
        for (const auto& [tag, g] : groups) {
          if (!tag_matches(tag, r.tag, r.mask)) continue;
          const std::size_t earlier =
              static_cast<std::size_t>(std::lower_bound(g.seqs.begin(), g.seqs.end(), seq) - g.seqs.begin());
          counts.overtaking_checks += earlier;
          if (earlier == 0 || g.latest_consumer[earlier - 1] < r.op) continue;
          const uint64_t overtaken = g.latest_seq[earlier - 1];
          first.add(r.op, describe(r) + " got " + message_name(sender, seq) + ", but " +
                              message_name(sender, overtaken) + ", sent before it and matching it too, went to " +
                              describe(log.consumers[consumer_of[sender][overtaken]]) + ", started after it");
        }
      }
    }
  }

  // Within an epoch nothing enters the unexpected queue. A probe that found
  // nothing, or a receive that was queued as posted, proves no message
  // matching its spec was there; a later call of the same epoch that finds
  // one (a receive done at once, a probe) contradicts it.
  void check_epochs(FirstDifference& first) {
    struct Event {
      uint64_t op, epoch, tag, mask;
      bool empty;
    };
    std::vector<Event> events;
    const std::size_t whole_at_once = setup.sizes.one_cell / 2;
    for (const ConsumeRecord& r : log.consumers) {
      const bool queued = !r.is_probe && (r.outcome == Outcome::Canceled ||
                                          (r.outcome == Outcome::Delivered && !r.done_at_once && r.length <= whole_at_once));
      const bool found_at_once = r.is_probe || (r.outcome == Outcome::Delivered && r.done_at_once);
      if (queued) events.push_back({r.op, r.epoch, r.tag, r.mask, true});
      if (found_at_once) events.push_back({r.op, r.epoch, r.sender_tag, 0, false});
    }
    for (const ProbeRecord& p : log.probes) {
      events.push_back(p.found ? Event{p.op, p.epoch, p.seen_tag, 0, false} : Event{p.op, p.epoch, p.tag, p.mask, true});
    }
    std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.op < b.op; });
    std::size_t epoch_start = 0;
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (events[i].epoch != events[epoch_start].epoch) epoch_start = i;
      if (events[i].empty) continue;
      for (std::size_t j = epoch_start; j < i; ++j) {
        if (!events[j].empty) continue;
        ++counts.epoch_checks;
        if (tag_matches(events[i].tag, events[j].tag, events[j].mask)) {
          first.add(events[i].op, format("op %llu found a message (%s) that op %llu of the same epoch, spec (%s, mask "
                                         "%016llx), matches but did not find",
                                         static_cast<unsigned long long>(events[i].op), describe_tag(events[i].tag).c_str(),
                                         static_cast<unsigned long long>(events[j].op), describe_tag(events[j].tag).c_str(),
                                         static_cast<unsigned long long>(events[j].mask)));
        }
      }
    }
  }

  // Earliest posted receive wins: while a receive stays posted (until its
  // successful cancel), no message it matches may go to a consumer started
  // after it and seen done before that cancel, nor be seen by a probe.
  void check_canceled_receives(FirstDifference& first) {
    const auto& consumers = log.consumers;
    for (const ConsumeRecord& a : consumers) {
      if (a.outcome != Outcome::Canceled) continue;
      auto it = std::upper_bound(consumers.begin(), consumers.end(), a.op,
                                 [](uint64_t op, const ConsumeRecord& r) { return op < r.op; });
      for (; it != consumers.end() && it->op < a.cancel_op; ++it) {
        // A probe saw its message when it removed it; a receive, when seen done.
        const uint64_t observed = it->is_probe ? it->op : it->seen_done_op;
        if (it->outcome != Outcome::Delivered || observed >= a.cancel_op) continue;
        if (tag_matches(it->sender_tag, a.tag, a.mask)) {
          first.add(it->op, describe(*it) + " got " + message_name(it->source, it->seq) + " while " + describe(a) +
                                ", posted before it and matching it, stayed posted until its cancel at op " +
                                std::to_string(a.cancel_op));
        }
      }
      auto probe = std::upper_bound(log.probes.begin(), log.probes.end(), a.op,
                                    [](uint64_t op, const ProbeRecord& p) { return op < p.op; });
      for (; probe != log.probes.end() && probe->op < a.cancel_op; ++probe) {
        if (probe->found && tag_matches(probe->seen_tag, a.tag, a.mask)) {
          first.add(probe->op, format("probe %llu saw an unexpected message (%s) that ",
                                      static_cast<unsigned long long>(probe->op), describe_tag(probe->seen_tag).c_str()) +
                                   describe(a) + ", posted and matching it, should have taken");
        }
      }
    }
  }
};

}  // namespace

SizeMenu size_menu(const runtime::Config& config, unsigned ranks) {
  transport::FifoGeometry geometry;
  if (!transport::fifo_geometry_from(config, ranks - 1, geometry)) geometry = {64, 20480};
  SizeMenu menu;
  const std::size_t message = geometry.max_message();
  menu.one_cell = message - sizeof(uint64_t);
  menu.tiny = {0, 1, 2, 7, 8, 9, 15, 16, 17};
  menu.one_fragment = message - sizeof(EagerFirstHeader);
  const std::size_t drained = transport::drained_rndv_threshold_from(config);
  menu.max_length = std::min(std::max(std::size_t{1} << 20, drained + 1), std::size_t{4} << 20);
  auto around = [&](std::vector<std::size_t>& into, std::size_t edge) {
    for (std::size_t length : {edge - 1, edge, edge + 1})
      if (length <= menu.max_length) into.push_back(length);
  };
  for (std::size_t edge : {menu.one_cell, menu.one_fragment, message, 2 * message, 3 * message})
    around(menu.cell_edges, edge);
  // The eager/rendezvous thresholds (metered, streaming, drained) and the
  // size from which sends and receives use a tag-matching device.
  for (std::size_t edge : {transport::metered_rndv_threshold_from(config),
                           transport::rndv_threshold_from(config, ranks - 1), drained, config.tm_threshold})
    around(menu.thresholds, edge);
  around(menu.large, menu.max_length - 1);
  menu.offload_threshold = config.tm_threshold;
  for (std::size_t length : {std::size_t{256} << 10, (std::size_t{768} << 10) - 5}) menu.large.push_back(length);
  return menu;
}

std::string describe_tag(uint64_t tag) {
  if ((tag & ~(kSourceBits | kUserBits)) != kContext) return format("tag %016llx", static_cast<unsigned long long>(tag));
  return format("source %u, user tag %08x", source_of(tag), static_cast<unsigned>(tag & kUserBits));
}

std::string describe(const ConsumeRecord& r) {
  return format("%s at op %llu (epoch %llu; %s, mask %016llx, %zu B buffer)",
                r.is_probe ? "probe-and-receive" : "receive", static_cast<unsigned long long>(r.op),
                static_cast<unsigned long long>(r.epoch), describe_tag(r.tag).c_str(),
                static_cast<unsigned long long>(r.mask), r.capacity);
}

std::optional<std::string> check_receiver(const Setup& setup, unsigned receiver,
                                          const std::vector<std::vector<PlannedMessage>>& plans_by_sender,
                                          ReceiverLog& log, ModelCounts& counts) {
  Model model{setup, receiver, plans_by_sender, log, counts, {}};
  for (const auto& plan : plans_by_sender) model.consumer_of.emplace_back(plan.size(), Model::kNone);
  FirstDifference first;
  model.check_deliveries(first);
  if (!first.found()) model.check_complete(first);
  if (!first.found()) model.check_overtaking(first);
  if (!first.found()) model.check_epochs(first);
  if (!first.found()) model.check_canceled_receives(first);
  if (!first.found()) return std::nullopt;
  return first.op >= kNoOp - 1 ? first.text : "op " + std::to_string(first.op) + ": " + first.text;
}

}  // namespace tern::engine::tag::stress
