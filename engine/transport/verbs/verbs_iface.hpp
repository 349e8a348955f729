// The verbs transport: RC queue pairs on one shared receive queue.
//
// Active messages are SENDs with immediate data (the AM id) into the
// iface's SRQ of pre-registered bounce buffers; small ones go inline, the
// rest from registered send buffers. Get and put are RDMA READ and WRITE
// between buffers registered on first use (verbs_mr_cache.hpp) and the
// peer's memory named by its rkey (the key an offer or mem_register gave).
// One CQ takes every completion; progress() polls it, delivers arrived
// messages to the handlers in arrival order (which RC keeps per sender) and
// retires each QP's operations in the order they were posted.
//
// Flow control: receiver-not-ready retries, not credits. The SRQ is shared
// by every peer, so per-peer credits would have to split it among peers
// that may never send; instead QPs retry for ever on RNR (rnr_retry 7, as
// UCX does by default) while progress() reposts each buffer as soon as its
// handler returns. A receiver that stops polling stalls its senders in
// hardware, and each sender's own bound is its send queue: a full one makes
// sends return WouldBlock until completions free slots, and then the
// pending entries run. (The emulation models the same retry.)
//
// Connection set-up (why a UD connection service): RC needs one QP per
// pair of workers, connected to the peer's QPN, and the issue wants no
// sockets beside the worker address exchange. The address published
// through that exchange therefore carries the port (LID, GID), a secret,
// and the QPN of one UD queue pair per iface: the connection service.
// The first create_ep to a peer makes a QP, sends the peer a Request
// datagram {our QPN, PSN, port, the peer's secret, a nonce}; the peer's
// progress creates (or reuses) its QP for us, brings it to RTR/RTS and
// answers with its QPN; ours then goes to RTR/RTS, sends Ready first and
// the connection opens. The peer holds its sends until Ready (or any
// message) arrives (verbs_connection.hpp: Accepted). Datagrams may be lost:
// requests are repeated every 20 ms for 30 s.
// When both sides connect at once, the request of the larger worker uuid
// wins and the other side answers it with the QP it had made. A pool of
// QPNs published in the address (one per peer index) would avoid the
// datagrams but needs every worker's index in the job and every QP made
// up front, which grows start-up with the job size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "transport/iface.hpp"
#include "transport/iface_params.hpp"
#include "tern/runtime/intrusive_list.hpp"
#include "verbs_api.hpp"
#include "verbs_connection.hpp"
#include "verbs_ep.hpp"
#include "verbs_mr_cache.hpp"
#include "verbs_tag_device.hpp"
#include "verbs_wire.hpp"

namespace tern::engine::transport::verbs {

// What a completion is for: the top byte of its wr_id.
// kWrTag: a tagged buffer of the tag device (index: its slot); kWrTagOp:
// one of its list operations.
enum WrKind : uint64_t { kWrRx = 1, kWrUdRx = 2, kWrUdTx = 3, kWrRc = 4, kWrTag = 5, kWrTagOp = 6 };
constexpr uint64_t wr_id(WrKind kind, uint64_t index) { return (uint64_t{kind} << 56) | index; }
constexpr WrKind wr_kind(uint64_t id) { return static_cast<WrKind>(id >> 56); }
constexpr uint32_t wr_index(uint64_t id) { return static_cast<uint32_t>(id); }

// The immediate data of the message a requester sends first on a new
// connection, to say its QP is ready (beyond every AM id).
inline constexpr uint32_t kImmReady = 0xffffff00u;

// The connection service's datagram buffers: a GRH and a wire-up message,
// rounded up.
inline constexpr uint32_t kServiceBuffers = 64;
inline constexpr std::size_t kServiceBufferBytes = 256;
// What peers may do on an RC QP of ours (each region says what it allows).
inline constexpr uint32_t kRcAccess =
    kAccessLocalWrite | kAccessRemoteWrite | kAccessRemoteRead | kAccessRemoteAtomic;

// The sizes of an iface's queues and buffers.
struct VerbsLimits {
  uint32_t buffer_size = 8192;   // one bounce buffer: the largest bcopy
  uint32_t rx_buffers = 256;     // posted to the SRQ
  uint32_t tx_buffers = 256;     // send buffers for bcopy and large shorts
  uint32_t send_queue = 64;      // per QP
  uint32_t max_connections = 256;
  uint32_t max_inline = 128;     // asked for; the QP says what it grants
  uint32_t atomic_slots = 256;
  // Receives the hardware tag-matching device holds (verbs_tag_device.hpp);
  // 0, or a device without tag matching: none, and the SRQ is a basic one.
  uint32_t tag_capacity = 0;
};

class VerbsIface final : public Iface {
 public:
  // Unsupported (with `why`) when `provider` has no usable device.
  [[nodiscard]] static std::unique_ptr<VerbsIface> create(const IfaceParams& params,
                                                          std::unique_ptr<Provider> provider,
                                                          const VerbsLimits& limits, Status& status,
                                                          std::string* why = nullptr);
  ~VerbsIface() override;
  VerbsIface(const VerbsIface&) = delete;
  VerbsIface& operator=(const VerbsIface&) = delete;

  [[nodiscard]] const IfaceAttr& attr() const noexcept override { return attr_; }
  unsigned progress() override;
  void set_am_handler(uint8_t id, AmHandler handler, void* arg) override;
  [[nodiscard]] std::vector<std::byte> address() const override { return pack_address(own_); }
  [[nodiscard]] bool is_reachable(std::span<const std::byte> remote_address) const override;
  [[nodiscard]] Ep* create_ep(std::span<const std::byte> remote_address, Status& status) override;
  void destroy_ep(Ep* ep) override;
  [[nodiscard]] int event_fd() const noexcept override { return cq_->event_fd(); }
  [[nodiscard]] Status arm() override;
  void disarm() override { cq_->consume_event(); }
  [[nodiscard]] uint64_t mem_register(const void* base, std::size_t length) override;
  [[nodiscard]] TagDevice* tag_device() noexcept override { return tag_device_.get(); }

  // --- for endpoints
  [[nodiscard]] Status send_am(Connection& c, uint8_t id, const void* first, std::size_t first_length,
                               const void* second, std::size_t second_length);
  [[nodiscard]] ssize_t send_bcopy(Connection& c, uint8_t id, PackCallback pack, void* arg);
  [[nodiscard]] Status start_rdma(Connection& c, const VerbsEp* ep, SendOp op, const void* local, std::size_t length,
                                  RemoteMemory remote, Completion* comp);
  [[nodiscard]] Status start_atomic(Connection& c, const VerbsEp* ep, const AtomicArgs& args, RemoteMemory remote,
                                    Completion* comp);
  [[nodiscard]] Status start_flush(Connection& c, Completion* comp);
  // A tagged eager send that the peer's tag device may match (verbs_iface_tags.cpp):
  // NotFound when the peer has none, the message does not fit one buffer
  // or the connection cannot send now.
  [[nodiscard]] Status send_tagged(Connection& c, uint64_t tag, const void* buffer, std::size_t length);
  // For the tag device: polls the CQ once while it waits for a list
  // operation, and keeps what else came for the next progress().
  void poll_for_tag_device();
  [[nodiscard]] uint64_t offer(const void* local, std::size_t length);
  // Whether a send on `c` would find a send-queue slot and a buffer.
  [[nodiscard]] bool has_room(const Connection& c) const noexcept { return c.can_send() && !free_tx_.empty(); }
  // `c` has pending entries now: run them once resources free up.
  void wait_for_room(Connection& c);

  // For tests and tern_info.
  [[nodiscard]] const DeviceInfo& device() const noexcept { return context_->info(); }
  [[nodiscard]] const MrCache& mr_cache() const noexcept { return *mr_cache_; }
  // "on mlx5_0 port 1", for the log line that says how a peer is reached.
  [[nodiscard]] std::string route() const;
  [[nodiscard]] std::size_t connections() const noexcept { return by_uuid_.size(); }
  [[nodiscard]] const VerbsTagDevice* verbs_tag_device() const noexcept { return tag_device_.get(); }

 private:
  struct Handler {
    AmHandler fn = nullptr;
    void* arg = nullptr;
  };

  VerbsIface(const IfaceParams& params, std::unique_ptr<Provider> provider, const VerbsLimits& limits);
  [[nodiscard]] Status open(const std::string& device, std::string& why);
  [[nodiscard]] Status open_service();
  void drain() noexcept;
  [[nodiscard]] std::byte* slab_at(std::size_t offset) noexcept { return slab_.data() + offset; }
  [[nodiscard]] uint64_t slab_address(std::size_t offset) const noexcept {
    return reinterpret_cast<uint64_t>(slab_.data() + offset);
  }
  [[nodiscard]] Status post_rx(uint32_t index);
  [[nodiscard]] Status post_ud_rx(uint32_t index);

  void handle(const WorkCompletion& wc);
  void on_receive(const WorkCompletion& wc);
  // Tag matching (verbs_iface_tags.cpp).
  [[nodiscard]] Status open_tag_matching(std::string& why);
  // Writes the tag-matching header a message on `c` needs (if any) at `to`; its size.
  std::size_t put_tag_header(const Connection& c, uint32_t app_context, uint64_t tag, std::byte* to) const noexcept;
  // A message to our TM SRQ: finds its active-message id after the header.
  // False for one without a valid header.
  [[nodiscard]] bool strip_tag_header(const std::byte*& data, uint32_t& length, uint32_t& id) const noexcept;
  void on_tag_completion(const WorkCompletion& wc);
  // As a TM receiver: counts an ordinary message of `c` handled, and tells
  // the sender at the end of progress (report_handled).
  void count_ordinary(Connection& c);
  void report_handled();
  void on_send_done(Connection& c, const WorkCompletion& wc);
  void retire_flushes(Connection& c);
  void post_waiting(Connection& c);
  [[nodiscard]] Status post(Connection& c, Op& op);
  void enqueue(Connection& c, Op&& op);
  void connection_failed(Connection& c, const char* why);
  void schedule(Connection& c);

  // Connection set-up (verbs_wireup.cpp).
  [[nodiscard]] Connection* new_connection(uint64_t peer_uuid, Status& status);
  // Brings c's QP to RTS against the peer's; the requester's side opens and
  // says Ready, the acceptor's waits for it (Accepted).
  [[nodiscard]] Status connect_qp(Connection& c, const PortAddress& port, uint32_t remote_qpn, uint32_t remote_psn,
                                  uint32_t mtu, bool requester);
  void open_connection(Connection& c);
  // Ours about `c`: `secret` is what the receiver checks, `peer_qpn` the
  // QP a reply answers.
  [[nodiscard]] WireupMessage wireup(WireupType type, const Connection& c, const Secret& secret,
                                     uint32_t peer_qpn) const;
  void send_request(Connection& c);
  void send_wireup(const WireupMessage& message, AddressHandle& to, uint32_t qpn);
  void on_wireup(const std::byte* data, std::size_t length);
  void on_request(const WireupMessage& message);
  void on_reply(const WireupMessage& message);
  void repeat_requests();
  [[nodiscard]] std::unique_ptr<AddressHandle> peer_service(const PortAddress& port);

  IfaceAttr attr_;
  VerbsLimits limits_;
  uint64_t uuid_;
  FailureHandler on_failure_;
  void* failure_arg_;
  VerbsAddress own_;
  Handler handlers_[kMaxAmId];

  // Declared parents first: destroyed children first, as verbs requires.
  std::vector<std::byte> slab_;  // rx | tx | ud rx | ud tx | atomic results
  std::vector<uint64_t> handled_words_;  // one per connection: what its TM peer has handled of ours
  std::unique_ptr<Provider> provider_;
  std::unique_ptr<Context> context_;
  std::unique_ptr<Pd> pd_;
  std::unique_ptr<Cq> cq_;
  std::unique_ptr<Srq> srq_;
  TagSrq* tag_srq_ = nullptr;  // srq_, when the device matches tags
  std::unique_ptr<Mr> slab_mr_;
  std::unique_ptr<Mr> handled_mr_;  // handled_words_, which peers write
  std::unique_ptr<Qp> ud_qp_;
  std::unique_ptr<MrCache> mr_cache_;
  std::unique_ptr<VerbsTagDevice> tag_device_;
  std::unordered_map<uint64_t, std::unique_ptr<Connection>> by_uuid_;
  std::unordered_map<uint32_t, Connection*> by_qpn_;

  std::size_t tx_offset_ = 0;
  std::size_t ud_rx_offset_ = 0;
  std::size_t ud_tx_offset_ = 0;
  std::size_t atomic_offset_ = 0;
  std::vector<int32_t> free_tx_;
  std::vector<int32_t> free_results_;
  uint32_t ud_outstanding_ = 0;
  unsigned idle_polls_ = 0;
  uint32_t ud_next_ = 0;
  unsigned connecting_ = 0;
  std::vector<WorkCompletion> stash_;  // polled by arm(), handled by the next progress()
  std::vector<Connection*> ready_;     // connections whose pending entries may run now
  std::vector<Connection*> blocked_;   // ... once a completion frees resources
  std::vector<Connection*> ready_scratch_;
  std::vector<Connection*> unreported_;  // connections whose handled count the sender has not been told
  bool dispatching_ = false;
  runtime::IntrusiveList<VerbsEp, &VerbsEp::iface_hook> eps_;
};

// The limits an iface of the job uses: the defaults, and the tag device's
// capacity from TERN_TM_OFFLOAD (on) and TERN_TM_CAPACITY.
[[nodiscard]] VerbsLimits limits_for(const runtime::Config& config);

// Why no verbs iface can open here ("" when one can): what tern_info prints.
[[nodiscard]] std::string unavailable_reason(const runtime::Config& config);

// The provider the transport uses: the emulation under TERN_VERBS_EMULATION,
// libibverbs otherwise.
[[nodiscard]] std::unique_ptr<Provider> default_provider(const runtime::Config& config);

}  // namespace tern::engine::transport::verbs
