// An in-process emulation of the verbs interface (verbs_api.hpp), for tests
// on machines without an RDMA device. It is not a transport of its own: the
// verbs transport runs on it unchanged, and what it does is what the verbs
// documents promise, so that the transport's logic is tested against the
// behaviour it will meet on hardware:
//
// - Several devices in one process share a fabric; a QP is found by
//   (device, QPN), the device by its LID (InfiniBand) or GID (Ethernet).
// - RC: a QP sends only in RTS. A request that finds no answer (no such
//   QP, one not connected to it, or one not yet in RTR) is tried again
//   until `retry_count` timeouts of 4.096 us * 2^timeout have passed, then
//   completes RetryExceeded: a peer that reaches RTR in time loses nothing,
//   as with the hardware's transport retries. SENDs land in the peer's
//   SRQ (or receive queue) in order; with none posted the send waits (RNR):
//   it is retried when a receive is posted there, and each poll of the
//   sender's send CQ counts as one RNR timer expiry, which costs one retry
//   of `rnr_retry` (7: for ever), then RnrRetryExceeded. Work requests of a
//   QP run and complete in the order posted; an error moves the QP to Error
//   and flushes what follows.
// - RDMA READ/WRITE and atomics copy between registered regions: the lkey
//   and rkey must name regions of the right protection domains, the range
//   must lie inside them and their access flags must allow the operation
//   (else LocalProtectionError / RemoteAccessError).
// - UD: datagrams to (device, QPN) with the right qkey; with no receive
//   posted they are dropped; each lands after a 40-byte GRH.
// - Send queue slots free only when the completion that covers them is
//   polled; a CQ that overflows reports it on the next poll.
// - TM SRQs (TagSrq) match the tag-matching header of arriving messages
//   against their tag list (verbs_emulated_tags.hpp); the rendezvous
//   offload (the device's own RDMA READ on an RNDV header) is not modelled.
//
// Tests create a fabric and a provider on it directly; TERN_VERBS_EMULATION
// makes the transport use the process's shared fabric (a test facility: no
// data leaves the process).
#pragma once

#include <cstdint>
#include <memory>

#include "verbs_api.hpp"

namespace tern::engine::transport::verbs {

struct EmulatedFabricParams {
  unsigned devices = 2;
  LinkLayer link_layer = LinkLayer::InfiniBand;
  bool atomics = true;
  uint32_t max_qp_wr = 1024;
  uint32_t max_inline = 256;
  // Hardware tag matching (0: the devices have none).
  uint32_t tm_max_tags = 64;
  uint32_t tm_max_ops = 32;
};

class EmulatedFabric;

[[nodiscard]] std::shared_ptr<EmulatedFabric> make_emulated_fabric(const EmulatedFabricParams& params);
// A provider whose devices are the fabric's ("emu0", "emu1", ...).
[[nodiscard]] std::unique_ptr<Provider> make_emulated_provider(std::shared_ptr<EmulatedFabric> fabric);
// The fabric every emulated provider of the process shares (one device).
[[nodiscard]] std::shared_ptr<EmulatedFabric> shared_emulated_fabric();

// Fault injection for tests: the next `count` UD datagrams sent on the
// fabric are lost.
void emulated_drop_datagrams(EmulatedFabric& fabric, unsigned count);

}  // namespace tern::engine::transport::verbs
