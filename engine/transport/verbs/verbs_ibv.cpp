// The verbs interface over libibverbs. Only this file includes
// <infiniband/verbs.h>; it translates the transport's plain structs into
// ibverbs calls one for one, so that what the emulation tests is what runs
// here. No part of it has run on an RDMA device yet.
#include <arpa/inet.h>
#include <fcntl.h>
#include <infiniband/verbs.h>

// Tag matching came with rdma-core 15 (its header with it).
#if __has_include(<infiniband/tm_types.h>)
#define TERN_IBV_TAG_MATCHING 1
#else
#define TERN_IBV_TAG_MATCHING 0
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "tern/runtime/log.hpp"
#include "verbs_api.hpp"

namespace tern::engine::transport::verbs {
namespace {

Status from_errno(int error) {
  switch (error) {
    case 0: return Status::Ok;
    case ENOMEM: return Status::WouldBlock;  // a full queue, for posts
    case EINVAL: return Status::InvalidParam;
    default: return Status::IoError;
  }
}

uint32_t mtu_bytes(ibv_mtu mtu) {
  switch (mtu) {
    case IBV_MTU_256: return 256;
    case IBV_MTU_512: return 512;
    case IBV_MTU_1024: return 1024;
    case IBV_MTU_2048: return 2048;
    case IBV_MTU_4096: return 4096;
  }
  return 1024;
}

ibv_mtu mtu_enum(uint32_t bytes) {
  if (bytes >= 4096) return IBV_MTU_4096;
  if (bytes >= 2048) return IBV_MTU_2048;
  if (bytes >= 1024) return IBV_MTU_1024;
  if (bytes >= 512) return IBV_MTU_512;
  return IBV_MTU_256;
}

int access_flags(uint32_t access) {
  int flags = 0;
  if ((access & kAccessLocalWrite) != 0) flags |= IBV_ACCESS_LOCAL_WRITE;
  if ((access & kAccessRemoteWrite) != 0) flags |= IBV_ACCESS_REMOTE_WRITE;
  if ((access & kAccessRemoteRead) != 0) flags |= IBV_ACCESS_REMOTE_READ;
  if ((access & kAccessRemoteAtomic) != 0) flags |= IBV_ACCESS_REMOTE_ATOMIC;
  return flags;
}

WcStatus from_wc_status(ibv_wc_status status) {
  switch (status) {
    case IBV_WC_SUCCESS: return WcStatus::Success;
    case IBV_WC_LOC_LEN_ERR: return WcStatus::LocalLengthError;
    case IBV_WC_LOC_PROT_ERR: return WcStatus::LocalProtectionError;
    case IBV_WC_REM_ACCESS_ERR: return WcStatus::RemoteAccessError;
    case IBV_WC_REM_INV_REQ_ERR: return WcStatus::RemoteInvalidRequest;
    case IBV_WC_RNR_RETRY_EXC_ERR: return WcStatus::RnrRetryExceeded;
    case IBV_WC_RETRY_EXC_ERR: return WcStatus::RetryExceeded;
    case IBV_WC_WR_FLUSH_ERR: return WcStatus::Flushed;
#if TERN_IBV_TAG_MATCHING
    case IBV_WC_TM_ERR: return WcStatus::TagListError;
#endif
    default: return WcStatus::GeneralError;
  }
}

WcOpcode from_wc_opcode(ibv_wc_opcode opcode) {
  switch (opcode) {
    case IBV_WC_RDMA_WRITE: return WcOpcode::RdmaWrite;
    case IBV_WC_RDMA_READ: return WcOpcode::RdmaRead;
    case IBV_WC_FETCH_ADD: return WcOpcode::FetchAdd;
    case IBV_WC_COMP_SWAP: return WcOpcode::CompareSwap;
    case IBV_WC_RECV:
    case IBV_WC_RECV_RDMA_WITH_IMM: return WcOpcode::Recv;
#if TERN_IBV_TAG_MATCHING
    case IBV_WC_TM_ADD: return WcOpcode::TagAdd;
    case IBV_WC_TM_DEL: return WcOpcode::TagDel;
    case IBV_WC_TM_SYNC: return WcOpcode::TagSync;
    case IBV_WC_TM_RECV: return WcOpcode::TagRecv;
    case IBV_WC_TM_NO_TAG: return WcOpcode::Recv;
#endif
    default: return WcOpcode::Send;
  }
}

ibv_ah_attr ah_attributes(const PortAddress& to, uint8_t port) {
  ibv_ah_attr attr{};
  attr.dlid = to.lid;
  attr.port_num = port;
  // Ethernet (RoCE) has no LIDs: every packet carries a GRH.
  if (to.link_layer == LinkLayer::Ethernet) {
    attr.is_global = 1;
    std::memcpy(attr.grh.dgid.raw, to.gid.data(), to.gid.size());
    attr.grh.sgid_index = to.gid_index;
    attr.grh.hop_limit = 64;
  }
  return attr;
}

// One receive of one buffer, to an SRQ or a QP.
template <typename Queue>
Status post_one_recv(const RecvWr& wr, int (*post)(Queue*, ibv_recv_wr*, ibv_recv_wr**), Queue* queue) {
  ibv_sge sge{wr.sge.address, wr.sge.length, wr.sge.lkey};
  ibv_recv_wr recv{};
  recv.wr_id = wr.wr_id;
  recv.sg_list = &sge;
  recv.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  return from_errno(post(queue, &recv, &bad));
}

// Wraps what an ibverbs constructor returned, or says why it returned null.
template <typename Wrapper, typename Interface, typename Raw, typename... Args>
std::unique_ptr<Interface> wrap(Raw* raw, const char* call, Status& status, Args&&... args) {
  if (raw == nullptr) {
    TERN_LOG(Error, "verbs: %s: %s", call, std::strerror(errno));
    status = Status::IoError;
    return nullptr;
  }
  status = Status::Ok;
  return std::make_unique<Wrapper>(raw, std::forward<Args>(args)...);
}

class IbvMr final : public Mr {
 public:
  explicit IbvMr(ibv_mr* mr) : mr_(mr) {}
  ~IbvMr() override { ibv_dereg_mr(mr_); }
  [[nodiscard]] uint32_t lkey() const noexcept override { return mr_->lkey; }
  [[nodiscard]] uint32_t rkey() const noexcept override { return mr_->rkey; }
  [[nodiscard]] uintptr_t address() const noexcept override { return reinterpret_cast<uintptr_t>(mr_->addr); }
  [[nodiscard]] std::size_t length() const noexcept override { return mr_->length; }

 private:
  ibv_mr* mr_;
};

class IbvCq final : public Cq {
 public:
  IbvCq(ibv_comp_channel* channel, ibv_cq* cq, ibv_cq_ex* extended = nullptr)
      : channel_(channel), cq_(cq), extended_(extended) {}
  ~IbvCq() override {
    if (unacked_ != 0) ibv_ack_cq_events(cq_, unacked_);
    ibv_destroy_cq(cq_);
    ibv_destroy_comp_channel(channel_);
  }
  int poll(std::span<WorkCompletion> out) override {
    if (extended_ != nullptr) return poll_extended(out);
    ibv_wc wcs[32];
    const int want = static_cast<int>(std::min<std::size_t>(out.size(), 32));
    const int n = ibv_poll_cq(cq_, want, wcs);
    if (n < 0) return -1;
    for (int i = 0; i < n; ++i) {
      const ibv_wc& wc = wcs[i];
      WorkCompletion& to = out[static_cast<std::size_t>(i)];
      to.wr_id = wc.wr_id;
      to.status = from_wc_status(wc.status);
      to.opcode = from_wc_opcode(wc.opcode);
      to.byte_len = wc.byte_len;
      to.qp_num = wc.qp_num;
      to.src_qp = wc.src_qp;
      to.has_imm = (wc.wc_flags & IBV_WC_WITH_IMM) != 0;
      to.imm = to.has_imm ? ntohl(wc.imm_data) : 0;
    }
    return n;
  }
  // The extended CQ of a TM SRQ: completions with their tag-matching fields.
  int poll_extended(std::span<WorkCompletion> out) {
    ibv_poll_cq_attr attr{};
    int rc = ibv_start_poll(extended_, &attr);
    if (rc == ENOENT) return 0;
    if (rc != 0) return -1;
    std::size_t n = 0;
    while (true) {
      read_extended(out[n++]);
      if (n == out.size()) break;
      rc = ibv_next_poll(extended_);
      if (rc != 0) break;
    }
    ibv_end_poll(extended_);
    return rc == 0 || rc == ENOENT ? static_cast<int>(n) : -1;
  }
  void read_extended(WorkCompletion& to) {
    to = {};
    to.wr_id = extended_->wr_id;
    to.status = from_wc_status(extended_->status);
    const ibv_wc_opcode opcode = ibv_wc_read_opcode(extended_);
    to.opcode = from_wc_opcode(opcode);
    to.byte_len = ibv_wc_read_byte_len(extended_);
    to.qp_num = ibv_wc_read_qp_num(extended_);
    to.src_qp = ibv_wc_read_src_qp(extended_);
    const unsigned flags = static_cast<unsigned>(ibv_wc_read_wc_flags(extended_));
    to.has_imm = (flags & IBV_WC_WITH_IMM) != 0;
    to.imm = to.has_imm ? ntohl(ibv_wc_read_imm_data(extended_)) : 0;
#if TERN_IBV_TAG_MATCHING
    if ((flags & IBV_WC_TM_SYNC_REQ) != 0) to.tag_flags |= kWcSyncRequest;
    if (opcode == IBV_WC_TM_RECV && to.status == WcStatus::Success) {
      ibv_wc_tm_info info{};
      ibv_wc_read_tm_info(extended_, &info);
      to.tag_flags |= kWcTagged;
      if ((flags & IBV_WC_TM_DATA_VALID) != 0) to.tag_flags |= kWcTagDataValid;
      to.tag = info.tag;
      to.app_context = info.priv;
    }
#endif
  }
  [[nodiscard]] int event_fd() const noexcept override { return channel_->fd; }
  [[nodiscard]] ibv_cq* raw() const noexcept { return cq_; }
  Status request_notify() override { return from_errno(ibv_req_notify_cq(cq_, 0)); }
  void consume_event() override {
    ibv_cq* cq = nullptr;
    void* context = nullptr;
    if (ibv_get_cq_event(channel_, &cq, &context) == 0) {
      // Acknowledged in batches: each ack takes a lock in the library.
      if (++unacked_ == 64) {
        ibv_ack_cq_events(cq_, unacked_);
        unacked_ = 0;
      }
    }
  }

 private:
  ibv_comp_channel* channel_;
  ibv_cq* cq_;
  ibv_cq_ex* extended_;
  unsigned unacked_ = 0;
};

// A basic SRQ, or a TM one (made by create_tag_srq) that takes list operations.
class IbvSrq final : public TagSrq {
 public:
  explicit IbvSrq(ibv_srq* srq, bool tag_matching = false) : srq_(srq), tag_matching_(tag_matching) {}
  ~IbvSrq() override { ibv_destroy_srq(srq_); }
  Status post_recv(const RecvWr& wr) override { return post_one_recv(wr, ibv_post_srq_recv, srq_); }
  Status post_tag_op(const TagListWr& wr, uint32_t& handle) override {
#if TERN_IBV_TAG_MATCHING
    if (!tag_matching_) return Status::Unsupported;
    ibv_sge sge{wr.sge.address, wr.sge.length, wr.sge.lkey};
    ibv_ops_wr op{};
    op.wr_id = wr.wr_id;
    op.flags = (wr.signaled ? IBV_OPS_SIGNALED : 0) | (wr.sync || wr.op == TagListOp::Sync ? IBV_OPS_TM_SYNC : 0);
    op.tm.unexpected_cnt = wr.unexpected_count;
    switch (wr.op) {
      case TagListOp::Add:
        op.opcode = IBV_WR_TAG_ADD;
        op.tm.add.recv_wr_id = wr.recv_wr_id;
        // A receive of no bytes names no buffer.
        op.tm.add.sg_list = wr.sge.length != 0 ? &sge : nullptr;
        op.tm.add.num_sge = wr.sge.length != 0 ? 1 : 0;
        op.tm.add.tag = wr.tag & wr.mask;
        op.tm.add.mask = wr.mask;
        break;
      case TagListOp::Del:
        op.opcode = IBV_WR_TAG_DEL;
        op.tm.handle = wr.handle;
        break;
      case TagListOp::Sync: op.opcode = IBV_WR_TAG_SYNC; break;
    }
    ibv_ops_wr* bad = nullptr;
    const Status status = from_errno(ibv_post_srq_ops(srq_, &op, &bad));
    if (status == Status::Ok && wr.op == TagListOp::Add) handle = op.tm.handle;
    return status;
#else
    (void)wr;
    (void)handle;
    return Status::Unsupported;
#endif
  }
  [[nodiscard]] ibv_srq* raw() const noexcept { return srq_; }

 private:
  ibv_srq* srq_;
  bool tag_matching_;
};

class IbvAh final : public AddressHandle {
 public:
  explicit IbvAh(ibv_ah* ah) : ah(ah) {}
  ~IbvAh() override { ibv_destroy_ah(ah); }
  ibv_ah* ah;
};

class IbvQp final : public Qp {
 public:
  IbvQp(ibv_qp* qp, QpType type, uint8_t port, uint32_t max_inline)
      : qp_(qp), type_(type), port_(port), max_inline_(max_inline) {}
  ~IbvQp() override { ibv_destroy_qp(qp_); }
  [[nodiscard]] uint32_t qpn() const noexcept override { return qp_->qp_num; }
  [[nodiscard]] QpState state() const noexcept override { return state_; }
  [[nodiscard]] uint32_t max_inline() const noexcept override { return max_inline_; }

  Status to_init(uint32_t access_or_qkey) override {
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = 0;
    attr.port_num = port_;
    int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
    if (type_ == QpType::Rc) {
      attr.qp_access_flags = static_cast<unsigned>(access_flags(access_or_qkey));
      mask |= IBV_QP_ACCESS_FLAGS;
    } else {
      attr.qkey = access_or_qkey;
      mask |= IBV_QP_QKEY;
    }
    return modify(attr, mask, QpState::Init);
  }

  Status to_rtr(const RcConnect& connect) override {
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_RTR;
    if (type_ == QpType::Ud) return modify(attr, IBV_QP_STATE, QpState::Rtr);
    attr.path_mtu = mtu_enum(connect.mtu);
    attr.dest_qp_num = connect.remote_qpn;
    attr.rq_psn = connect.remote_psn;
    attr.max_dest_rd_atomic = connect.max_rd_atomic;
    attr.min_rnr_timer = connect.min_rnr_timer;
    attr.ah_attr = ah_attributes(connect.remote, port_);
    return modify(attr,
                  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
                  QpState::Rtr);
  }

  Status to_rts(const RcConnect& connect) override {
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_RTS;
    attr.sq_psn = connect.local_psn;
    if (type_ == QpType::Ud) return modify(attr, IBV_QP_STATE | IBV_QP_SQ_PSN, QpState::Rts);
    attr.timeout = connect.timeout;
    attr.retry_cnt = connect.retry_count;
    attr.rnr_retry = connect.rnr_retry;
    attr.max_rd_atomic = connect.max_rd_atomic;
    return modify(attr,
                  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                      IBV_QP_MAX_QP_RD_ATOMIC,
                  QpState::Rts);
  }

  Status to_error() override {
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_ERR;
    return modify(attr, IBV_QP_STATE, QpState::Error);
  }

  Status post_send(const SendWr& wr) override {
    ibv_sge sge{wr.sge.address, wr.sge.length, wr.sge.lkey};
    ibv_send_wr send{};
    send.wr_id = wr.wr_id;
    send.sg_list = &sge;
    send.num_sge = wr.sge.length == 0 ? 0 : 1;
    unsigned flags = 0;
    if (wr.signaled) flags |= IBV_SEND_SIGNALED;
    if (wr.inline_data) flags |= IBV_SEND_INLINE;
    if (wr.fence) flags |= IBV_SEND_FENCE;
    send.send_flags = flags;
    switch (wr.op) {
      case SendOp::Send: send.opcode = IBV_WR_SEND; break;
      case SendOp::SendWithImm:
        send.opcode = IBV_WR_SEND_WITH_IMM;
        send.imm_data = htonl(wr.imm);
        break;
      case SendOp::RdmaWrite:
      case SendOp::RdmaRead:
        send.opcode = wr.op == SendOp::RdmaWrite ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
        send.wr.rdma.remote_addr = wr.remote_address;
        send.wr.rdma.rkey = wr.rkey;
        break;
      case SendOp::FetchAdd:
      case SendOp::CompareSwap:
        send.opcode = wr.op == SendOp::FetchAdd ? IBV_WR_ATOMIC_FETCH_AND_ADD : IBV_WR_ATOMIC_CMP_AND_SWP;
        send.wr.atomic.remote_addr = wr.remote_address;
        send.wr.atomic.rkey = wr.rkey;
        send.wr.atomic.compare_add = wr.compare_add;
        send.wr.atomic.swap = wr.swap;
        break;
    }
    if (type_ == QpType::Ud) {
      if (wr.ah == nullptr) return Status::InvalidParam;
      send.wr.ud.ah = static_cast<IbvAh*>(wr.ah)->ah;
      send.wr.ud.remote_qpn = wr.remote_qpn;
      send.wr.ud.remote_qkey = wr.qkey;
    }
    ibv_send_wr* bad = nullptr;
    return from_errno(ibv_post_send(qp_, &send, &bad));
  }

  Status post_recv(const RecvWr& wr) override { return post_one_recv(wr, ibv_post_recv, qp_); }

 private:
  Status modify(ibv_qp_attr& attr, int mask, QpState next) {
    const int error = ibv_modify_qp(qp_, &attr, mask);
    if (error != 0) {
      TERN_LOG(Error, "verbs: ibv_modify_qp of QP %u: %s", qp_->qp_num, std::strerror(error));
      return Status::IoError;
    }
    state_ = next;
    return Status::Ok;
  }

  ibv_qp* qp_;
  QpType type_;
  uint8_t port_;
  uint32_t max_inline_;
  QpState state_ = QpState::Reset;
};

class IbvPd final : public Pd {
 public:
  IbvPd(ibv_pd* pd, uint8_t port) : pd_(pd), port_(port) {}
  ~IbvPd() override { ibv_dealloc_pd(pd_); }

  std::unique_ptr<Mr> reg_mr(void* address, std::size_t length, uint32_t access, Status& status) override {
    return wrap<IbvMr, Mr>(ibv_reg_mr(pd_, address, length, access_flags(access)), "ibv_reg_mr", status);
  }

  std::unique_ptr<Srq> create_srq(uint32_t max_wr, Status& status) override {
    ibv_srq_init_attr attr{};
    attr.attr.max_wr = max_wr;
    attr.attr.max_sge = 1;
    return wrap<IbvSrq, Srq>(ibv_create_srq(pd_, &attr), "ibv_create_srq", status);
  }

  std::unique_ptr<TagSrq> create_tag_srq(const TagSrqParams& params, Status& status) override {
#if TERN_IBV_TAG_MATCHING
    ibv_srq_init_attr_ex attr{};
    attr.attr.max_wr = params.max_wr;
    attr.attr.max_sge = 1;
    attr.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_TM;
    attr.srq_type = IBV_SRQT_TM;
    attr.pd = pd_;
    attr.cq = native_cq(params.cq);
    attr.tm_cap.max_num_tags = params.max_tags;
    attr.tm_cap.max_ops = params.max_ops;
    return wrap<IbvSrq, TagSrq>(ibv_create_srq_ex(pd_->context, &attr), "ibv_create_srq_ex (tag matching)", status,
                                true);
#else
    (void)params;
    status = Status::Unsupported;
    return nullptr;
#endif
  }

  std::unique_ptr<Qp> create_qp(const QpParams& params, Status& status) override {
    ibv_qp_init_attr attr{};
    attr.send_cq = native_cq(params.send_cq);
    attr.recv_cq = native_cq(params.recv_cq);
    attr.srq = params.srq != nullptr ? static_cast<IbvSrq*>(params.srq)->raw() : nullptr;
    attr.cap.max_send_wr = params.max_send_wr;
    attr.cap.max_recv_wr = params.srq != nullptr ? 0 : params.max_recv_wr;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = params.srq != nullptr ? 0 : 1;
    attr.cap.max_inline_data = params.max_inline;
    attr.qp_type = params.type == QpType::Rc ? IBV_QPT_RC : IBV_QPT_UD;
    // ibv_create_qp reports the inline size it granted in attr.cap.
    ibv_qp* qp = ibv_create_qp(pd_, &attr);
    return wrap<IbvQp, Qp>(qp, "ibv_create_qp", status, params.type, port_, attr.cap.max_inline_data);
  }

  std::unique_ptr<AddressHandle> create_ah(const PortAddress& to, Status& status) override {
    ibv_ah_attr attr = ah_attributes(to, port_);
    return wrap<IbvAh, AddressHandle>(ibv_create_ah(pd_, &attr), "ibv_create_ah", status);
  }

  // Every Cq a QP of ours is given was made by IbvContext.
  static ibv_cq* native_cq(Cq* cq) { return cq == nullptr ? nullptr : static_cast<IbvCq*>(cq)->raw(); }

 private:
  ibv_pd* pd_;
  uint8_t port_;
};

class IbvContext final : public Context {
 public:
  IbvContext(ibv_context* context, DeviceInfo info) : context_(context), info_(std::move(info)) {}
  ~IbvContext() override { ibv_close_device(context_); }
  [[nodiscard]] const DeviceInfo& info() const noexcept override { return info_; }

  std::unique_ptr<Pd> alloc_pd(Status& status) override {
    return wrap<IbvPd, Pd>(ibv_alloc_pd(context_), "ibv_alloc_pd", status, info_.port);
  }

  // The worker polls the fd with the others; reading it must not block.
  ibv_comp_channel* nonblocking_channel(Status& status) {
    ibv_comp_channel* channel = ibv_create_comp_channel(context_);
    if (channel == nullptr) {
      status = Status::IoError;
      return nullptr;
    }
    const int flags = fcntl(channel->fd, F_GETFL);
    if (flags < 0 || fcntl(channel->fd, F_SETFL, flags | O_NONBLOCK) != 0) {
      ibv_destroy_comp_channel(channel);
      status = Status::IoError;
      return nullptr;
    }
    return channel;
  }

  std::unique_ptr<Cq> create_cq(uint32_t entries, Status& status) override {
    ibv_comp_channel* channel = nonblocking_channel(status);
    if (channel == nullptr) return nullptr;
    ibv_cq* cq = ibv_create_cq(context_, static_cast<int>(entries), nullptr, channel, 0);
    if (cq == nullptr) {
      TERN_LOG(Error, "verbs: ibv_create_cq of %u entries: %s", entries, std::strerror(errno));
      ibv_destroy_comp_channel(channel);
      status = Status::IoError;
      return nullptr;
    }
    status = Status::Ok;
    return std::make_unique<IbvCq>(channel, cq);
  }

  std::unique_ptr<Cq> create_tag_cq(uint32_t entries, Status& status) override {
#if TERN_IBV_TAG_MATCHING
    ibv_comp_channel* channel = nonblocking_channel(status);
    if (channel == nullptr) return nullptr;
    ibv_cq_init_attr_ex attr{};
    attr.cqe = entries;
    attr.channel = channel;
    attr.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_IMM |
                    IBV_WC_EX_WITH_TM_INFO;
    ibv_cq_ex* cq = ibv_create_cq_ex(context_, &attr);
    if (cq == nullptr) {
      TERN_LOG(Error, "verbs: ibv_create_cq_ex of %u entries with tag-matching fields: %s", entries,
               std::strerror(errno));
      ibv_destroy_comp_channel(channel);
      status = Status::IoError;
      return nullptr;
    }
    status = Status::Ok;
    return std::make_unique<IbvCq>(channel, ibv_cq_ex_to_cq(cq), cq);
#else
    return create_cq(entries, status);
#endif
  }

 private:
  ibv_context* context_;
  DeviceInfo info_;
};

// What `device` offers on its first active port; false when none is active.
bool describe(ibv_context* context, DeviceInfo& info) {
  ibv_device_attr_ex attr{};
  if (ibv_query_device_ex(context, nullptr, &attr) != 0) return false;
  const ibv_device_attr& base = attr.orig_attr;
  info.node_guid = base.node_guid;
  info.max_qp_wr = static_cast<uint32_t>(base.max_qp_wr);
  info.max_srq_wr = static_cast<uint32_t>(base.max_srq_wr);
  info.max_cqe = static_cast<uint32_t>(base.max_cqe);
  info.max_mr_size = base.max_mr_size;
  info.atomics = base.atomic_cap != IBV_ATOMIC_NONE;
  // Tag matching on RC QPs, the only kind the transport uses.
  info.tm_max_tags = (attr.tm_caps.flags & IBV_TM_CAP_RC) != 0 ? attr.tm_caps.max_num_tags : 0;
  info.tm_max_ops = attr.tm_caps.max_ops;
  info.tm_max_rndv_header = attr.tm_caps.max_rndv_hdr_size;
  info.tm_max_sge = attr.tm_caps.max_sge;
  for (uint8_t port = 1; port <= base.phys_port_cnt; ++port) {
    ibv_port_attr port_attr{};
    if (ibv_query_port(context, port, &port_attr) != 0 || port_attr.state != IBV_PORT_ACTIVE) continue;
    info.port = port;
    info.link_layer = port_attr.link_layer == IBV_LINK_LAYER_ETHERNET ? LinkLayer::Ethernet : LinkLayer::InfiniBand;
    info.lid = port_attr.lid;
    info.active_mtu = mtu_bytes(port_attr.active_mtu);
    info.max_msg_size = port_attr.max_msg_sz;
    ibv_gid gid{};
    if (ibv_query_gid(context, port, 0, &gid) == 0) std::memcpy(info.gid.data(), gid.raw, info.gid.size());
    info.gid_index = 0;
    return true;
  }
  return false;
}

class IbvProvider final : public Provider {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "libibverbs"; }

  std::vector<DeviceInfo> list_devices(std::string& why) override {
    std::vector<DeviceInfo> usable;
    int count = 0;
    ibv_device** list = ibv_get_device_list(&count);
    if (list == nullptr) {
      // ENOSYS: no RDMA core in the kernel (no /sys/class/infiniband_verbs).
      why = errno == ENOSYS ? "no RDMA device (ibv_get_device_list found none: the kernel has no RDMA support loaded)"
                            : std::string("no RDMA device (ibv_get_device_list: ") + std::strerror(errno) + ")";
      return usable;
    }
    std::string inactive;
    for (int i = 0; i < count; ++i) {
      ibv_context* context = ibv_open_device(list[i]);
      DeviceInfo info;
      info.name = ibv_get_device_name(list[i]);
      if (context != nullptr && describe(context, info)) {
        usable.push_back(info);
      } else {
        inactive += (inactive.empty() ? "" : ",") + info.name;
      }
      if (context != nullptr) ibv_close_device(context);
    }
    ibv_free_device_list(list);
    if (count == 0) {
      why = "no RDMA device (ibv_get_device_list found none)";
    } else if (usable.empty()) {
      why = "no RDMA device with an active port (found " + inactive + ")";
    }
    return usable;
  }

  std::unique_ptr<Context> open(const std::string& device, Status& status) override {
    int count = 0;
    ibv_device** list = ibv_get_device_list(&count);
    status = Status::NotFound;
    if (list == nullptr) return nullptr;
    std::unique_ptr<Context> opened;
    for (int i = 0; i < count && !opened; ++i) {
      if (device != ibv_get_device_name(list[i])) continue;
      ibv_context* context = ibv_open_device(list[i]);
      DeviceInfo info;
      info.name = device;
      if (context == nullptr) {
        status = Status::IoError;
      } else if (!describe(context, info)) {
        ibv_close_device(context);
        status = Status::Unreachable;
      } else {
        opened = std::make_unique<IbvContext>(context, std::move(info));
        status = Status::Ok;
      }
    }
    ibv_free_device_list(list);
    return opened;
  }
};

}  // namespace

std::unique_ptr<Provider> make_ibv_provider() { return std::make_unique<IbvProvider>(); }

}  // namespace tern::engine::transport::verbs
