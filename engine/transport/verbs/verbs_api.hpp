// The narrow interface between the verbs transport and an RDMA provider.
//
// Every ibverbs call the transport makes goes through these classes, so the
// transport's logic (wire-up, flow control, registration, completion order)
// runs the same over the real library (verbs_ibv.cpp) and over the
// in-process emulation the tests use (verbs_emulated.hpp), which follows
// verbs semantics: RNR retries, key and range checks, per-QP completion
// order, the QP state machine. Nothing here names an ibverbs type: the
// transport never sees one, and a machine without an RDMA device still
// builds and tests it.
//
// The shapes are the verbs ones cut down to what the transport uses: one
// scatter/gather entry per work request, RC queue pairs on one shared
// receive queue, one UD queue pair for connection set-up, 8-byte atomics.
// Objects are owned by unique_ptr and must be destroyed children first
// (QPs and MRs before their PD, QPs before their CQs and SRQ), as verbs
// requires.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tern/runtime/status.hpp"

namespace tern::engine::transport::verbs {

using Gid = std::array<uint8_t, 16>;

enum class LinkLayer : uint8_t { InfiniBand = 1, Ethernet = 2 };

// What a device and its first active port offer; the tag-matching fields
// are zero where the device has no TM support.
struct DeviceInfo {
  std::string name;
  uint64_t node_guid = 0;
  uint8_t port = 1;
  LinkLayer link_layer = LinkLayer::InfiniBand;
  uint16_t lid = 0;
  Gid gid{};
  uint8_t gid_index = 0;
  uint32_t active_mtu = 1024;   // bytes
  uint32_t max_qp_wr = 0;
  uint32_t max_srq_wr = 0;
  uint32_t max_cqe = 0;
  uint64_t max_mr_size = 0;
  uint32_t max_msg_size = 0;    // largest message of one work request
  bool atomics = false;         // 8-byte fetch-add and compare-swap
  // Hardware tag matching (ibv_query_device_ex's tm_caps).
  uint32_t tm_max_tags = 0;     // receives a TM SRQ can hold
  uint32_t tm_max_ops = 0;      // outstanding list operations
  uint32_t tm_max_rndv_header = 0;
  uint32_t tm_max_sge = 0;
};

// Where a peer's port is: enough to address it (UD) or connect to it (RC).
struct PortAddress {
  LinkLayer link_layer = LinkLayer::InfiniBand;
  uint16_t lid = 0;
  Gid gid{};
  uint8_t gid_index = 0;  // ours, used as the source GID where routing is global
};

enum Access : uint32_t {
  kAccessLocalWrite = 1u << 0,
  kAccessRemoteWrite = 1u << 1,
  kAccessRemoteRead = 1u << 2,
  kAccessRemoteAtomic = 1u << 3,
};

enum class WcStatus : uint8_t {
  Success,
  LocalLengthError,     // a receive buffer too small for the message
  LocalProtectionError, // a bad lkey, or a range outside the local region
  RemoteAccessError,    // a bad rkey, a range outside the region, or access it does not allow
  RemoteInvalidRequest,
  RnrRetryExceeded,     // the peer had no receive posted, retries ran out
  RetryExceeded,        // the peer did not answer (no such QP, not ready)
  Flushed,              // the QP went to the error state before this ran
  TagListError,         // a tag-list operation refused: its entry was consumed, or its count stale
  GeneralError,
};

[[nodiscard]] const char* to_string(WcStatus status) noexcept;

// TagAdd/TagDel/TagSync: a tag-list operation finished (on the TM SRQ's
// CQ). TagRecv: a message matched a tagged buffer and its data is there.
// A tagged message that matched nothing arrives as Recv with kWcTagged.
enum class WcOpcode : uint8_t { Send, RdmaWrite, RdmaRead, FetchAdd, CompareSwap, Recv, TagAdd, TagDel, TagSync, TagRecv };

// WorkCompletion::tag_flags.
enum WcTagFlags : uint8_t {
  kWcTagged = 1u << 0,    // tag and app_context below are the message's (its tag-matching header)
  kWcSyncRequest = 1u << 1,  // the device asks for a SYNC: software's count of unexpected messages is behind
  kWcTagDataValid = 1u << 2,  // TagRecv: the data is in the buffer (not only matched, as a rendezvous first is)
};

struct WorkCompletion {
  uint64_t wr_id = 0;
  WcStatus status = WcStatus::Success;
  WcOpcode opcode = WcOpcode::Send;
  uint32_t byte_len = 0;   // receives: bytes placed (UD: the 40-byte GRH included)
  uint32_t qp_num = 0;     // the local QP
  uint32_t src_qp = 0;     // UD receives: the sender's QP
  bool has_imm = false;
  uint32_t imm = 0;
  uint8_t tag_flags = 0;     // WcTagFlags
  uint64_t tag = 0;
  uint32_t app_context = 0;
};

// Bytes the provider puts before every UD payload in the receive buffer.
inline constexpr std::size_t kGrhBytes = 40;

struct Sge {
  uint64_t address = 0;
  uint32_t length = 0;
  uint32_t lkey = 0;
};

enum class SendOp : uint8_t { Send, SendWithImm, RdmaWrite, RdmaRead, FetchAdd, CompareSwap };

class AddressHandle;

struct SendWr {
  uint64_t wr_id = 0;
  SendOp op = SendOp::Send;
  Sge sge;                   // inline sends: lkey ignored
  bool inline_data = false;  // the data is copied at post time (up to the QP's max_inline)
  bool signaled = true;      // a completion on success too (errors always complete)
  bool fence = false;        // wait for earlier reads and atomics first
  uint32_t imm = 0;
  uint64_t remote_address = 0;  // RDMA and atomics
  uint32_t rkey = 0;
  uint64_t compare_add = 0;     // FetchAdd: the addend; CompareSwap: the expected value
  uint64_t swap = 0;
  // UD only.
  AddressHandle* ah = nullptr;
  uint32_t remote_qpn = 0;
  uint32_t qkey = 0;
};

struct RecvWr {
  uint64_t wr_id = 0;
  Sge sge;
};

enum class QpType : uint8_t { Rc, Ud };
enum class QpState : uint8_t { Reset, Init, Rtr, Rts, Error };

// Connection parameters of an RC QP (RTR and RTS).
struct RcConnect {
  PortAddress remote;
  uint32_t remote_qpn = 0;
  uint32_t remote_psn = 0;   // the peer's first send sequence number
  uint32_t local_psn = 0;
  uint32_t mtu = 1024;
  uint8_t rnr_retry = 7;     // 7: retry for ever (the verbs convention)
  uint8_t retry_count = 7;
  uint8_t min_rnr_timer = 12;
  uint8_t timeout = 14;
  uint8_t max_rd_atomic = 4;
};

class Mr {
 public:
  virtual ~Mr() = default;
  [[nodiscard]] virtual uint32_t lkey() const noexcept = 0;
  [[nodiscard]] virtual uint32_t rkey() const noexcept = 0;
  [[nodiscard]] virtual uintptr_t address() const noexcept = 0;
  [[nodiscard]] virtual std::size_t length() const noexcept = 0;
};

class Cq {
 public:
  virtual ~Cq() = default;
  // Fills `out` with up to out.size() completions, oldest first; the count,
  // or -1 when the CQ overran (completions were lost: the transport fails).
  [[nodiscard]] virtual int poll(std::span<WorkCompletion> out) = 0;
  // Readable once a completion arrives after request_notify().
  [[nodiscard]] virtual int event_fd() const noexcept = 0;
  [[nodiscard]] virtual Status request_notify() = 0;
  // Consumes the event that made event_fd() readable.
  virtual void consume_event() = 0;
};

class Srq {
 public:
  virtual ~Srq() = default;
  [[nodiscard]] virtual Status post_recv(const RecvWr& wr) = 0;
};

// --- Hardware tag matching (IBV_SRQT_TM; the kernel's tag_matching.rst and
// man ibv_post_srq_ops).
//
// Every message to a QP on a TM SRQ starts with a tag-matching header. The
// device matches an Eager one against its list of tagged buffers in the
// order they were added (the earliest whose (tag & mask) == entry tag
// wins): matched, the payload after the header lands in that buffer and a
// TagRecv completion carries the tag; unmatched, the whole message (header
// included) lands in one of the SRQ's ordinary buffers as a Recv with
// kWcTagged, and the device counts one more unexpected message.
//
// The sync rule: list operations that carry software's count of unexpected
// messages it has handled (`sync`) are refused (TagListError, with
// kWcSyncRequest) when that count is behind the device's, so that a buffer
// is never added while an unexpected message that software has not seen
// could have matched it. A DEL races with the device: when a message
// consumed the entry first, the DEL fails and the TagRecv completes.
enum class TagOpcode : uint8_t { NoTag = 0, Rendezvous = 1, Fin = 2, Eager = 3 };

inline constexpr std::size_t kTagHeaderBytes = 16;

// The wire header (struct ibv_tmh): opcode, 3 zero bytes, the application
// context and the tag, both big-endian.
struct TagHeader {
  TagOpcode opcode = TagOpcode::Eager;
  uint32_t app_context = 0;
  uint64_t tag = 0;
};
void pack_tag_header(const TagHeader& header, std::byte* out) noexcept;
// False when `length` is short of a header or the reserved bytes are not zero.
[[nodiscard]] bool unpack_tag_header(const std::byte* data, std::size_t length, TagHeader& out) noexcept;

enum class TagListOp : uint8_t { Add, Del, Sync };

struct TagListWr {
  TagListOp op = TagListOp::Add;
  uint64_t wr_id = 0;          // of the operation's own completion
  bool signaled = true;        // a completion on success too (errors always complete)
  bool sync = false;           // carries `unexpected_count` (the sync rule; Sync always does)
  uint32_t unexpected_count = 0;  // unexpected messages software has handled, modulo 2^32
  uint32_t handle = 0;         // Del: what Add returned
  // Add:
  uint64_t recv_wr_id = 0;     // of the TagRecv completion
  Sge sge;
  uint64_t tag = 0;
  uint64_t mask = 0;
};

class TagSrq : public Srq {
 public:
  // Posts one list operation; Add returns the entry's handle in `handle`.
  // WouldBlock when the list is full (Add) or max_ops operations are
  // outstanding; InvalidParam for a Del of no handle given out.
  [[nodiscard]] virtual Status post_tag_op(const TagListWr& wr, uint32_t& handle) = 0;
};

struct TagSrqParams {
  uint32_t max_wr = 0;     // ordinary buffers (unexpected messages)
  uint32_t max_tags = 0;   // tagged buffers the list holds
  uint32_t max_ops = 0;    // list operations outstanding
  Cq* cq = nullptr;        // where list operations complete
};

class AddressHandle {
 public:
  virtual ~AddressHandle() = default;
};

class Qp {
 public:
  virtual ~Qp() = default;
  [[nodiscard]] virtual uint32_t qpn() const noexcept = 0;
  [[nodiscard]] virtual QpState state() const noexcept = 0;
  [[nodiscard]] virtual uint32_t max_inline() const noexcept = 0;
  // Reset -> Init (RC: with the access rights peers get; UD: with the qkey).
  [[nodiscard]] virtual Status to_init(uint32_t access_or_qkey) = 0;
  // Init -> Rtr; UD ignores `connect` beyond the local PSN.
  [[nodiscard]] virtual Status to_rtr(const RcConnect& connect) = 0;
  [[nodiscard]] virtual Status to_rts(const RcConnect& connect) = 0;
  // Any state -> Error: what is queued completes as Flushed.
  [[nodiscard]] virtual Status to_error() = 0;
  // WouldBlock when the send queue is full; InvalidParam when the QP is not
  // in RTS or the request is malformed (nothing posted).
  [[nodiscard]] virtual Status post_send(const SendWr& wr) = 0;
  // UD QPs (and RC QPs without an SRQ) have their own receive queue.
  [[nodiscard]] virtual Status post_recv(const RecvWr& wr) = 0;
};

struct QpParams {
  QpType type = QpType::Rc;
  Cq* send_cq = nullptr;
  Cq* recv_cq = nullptr;
  Srq* srq = nullptr;        // RC: receives come from it
  uint32_t max_send_wr = 128;
  uint32_t max_recv_wr = 0;  // without an SRQ
  uint32_t max_inline = 0;
};

class Pd {
 public:
  virtual ~Pd() = default;
  [[nodiscard]] virtual std::unique_ptr<Mr> reg_mr(void* address, std::size_t length, uint32_t access,
                                                   Status& status) = 0;
  [[nodiscard]] virtual std::unique_ptr<Srq> create_srq(uint32_t max_wr, Status& status) = 0;
  // Unsupported where the device has no tag matching (DeviceInfo::tm_max_tags 0).
  [[nodiscard]] virtual std::unique_ptr<TagSrq> create_tag_srq(const TagSrqParams& params, Status& status) = 0;
  [[nodiscard]] virtual std::unique_ptr<Qp> create_qp(const QpParams& params, Status& status) = 0;
  [[nodiscard]] virtual std::unique_ptr<AddressHandle> create_ah(const PortAddress& to, Status& status) = 0;
};

// An opened device.
class Context {
 public:
  virtual ~Context() = default;
  [[nodiscard]] virtual const DeviceInfo& info() const noexcept = 0;
  [[nodiscard]] virtual std::unique_ptr<Pd> alloc_pd(Status& status) = 0;
  [[nodiscard]] virtual std::unique_ptr<Cq> create_cq(uint32_t entries, Status& status) = 0;
  // A CQ whose completions carry the tag-matching fields: the CQ of a TM
  // SRQ and of the QPs on it.
  [[nodiscard]] virtual std::unique_ptr<Cq> create_tag_cq(uint32_t entries, Status& status) {
    return create_cq(entries, status);
  }
};

// A source of devices: the real library or the emulation.
class Provider {
 public:
  virtual ~Provider() = default;
  [[nodiscard]] virtual const char* name() const noexcept = 0;
  // The usable devices (an active port each). When there is none, `why`
  // says so in words tern_info can print.
  [[nodiscard]] virtual std::vector<DeviceInfo> list_devices(std::string& why) = 0;
  [[nodiscard]] virtual std::unique_ptr<Context> open(const std::string& device, Status& status) = 0;
};

// The provider over libibverbs.
[[nodiscard]] std::unique_ptr<Provider> make_ibv_provider();

}  // namespace tern::engine::transport::verbs
