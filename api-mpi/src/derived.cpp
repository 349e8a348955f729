// Derived datatypes: the constructors, commit/free/dup, the queries, names,
// MPI_Pack/Unpack/Pack_size, MPI_Get_address and the MPI_Aint helpers, and
// the collectives on derived types through pack/unpack.
#include "derived.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>

#include "group.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

struct PairAlign {
  long double v;
  int i;
};

// Alignment of the predefined type `handle` (the C type's alignof).
std::size_t predefined_align(MPI_Datatype handle, std::size_t size) {
  switch (handle) {
    case MPI_FLOAT_INT: return alignof(float);
    case MPI_DOUBLE_INT: return alignof(double);
    case MPI_LONG_INT: return alignof(long);
    case MPI_2INT:
    case MPI_SHORT_INT: return alignof(int);
    case MPI_LONG_DOUBLE_INT: return alignof(PairAlign);
    case MPI_C_FLOAT_COMPLEX: return alignof(float);
    case MPI_C_DOUBLE_COMPLEX: return alignof(double);
    default: break;
  }
  std::size_t a = 1;
  while (a < size && a < alignof(std::max_align_t) && size % (a * 2) == 0) a *= 2;
  return a;
}

struct TypeTable {
  std::mutex mutex;
  std::vector<std::shared_ptr<DerivedType>> predefined;  // by handle
  std::vector<std::shared_ptr<DerivedType>> derived;     // by DerivedHandle slot - kDerivedBase
  std::vector<uint32_t> generations;                     // of each derived slot's handle
  std::vector<int> free_slots;
};

TypeTable& table() {
  static TypeTable* t = [] {
    auto* t = new TypeTable;
    for (MPI_Datatype h = 0; h <= MPI_LONG_DOUBLE_INT; ++h) {
      const TypeInfo* info = find_type(h);
      if (info == nullptr) {
        t->predefined.emplace_back();
        continue;
      }
      auto d = std::make_shared<DerivedType>();
      d->runs.push_back({0, info->size, 1});
      d->blocks.push_back({0, info->size});
      d->size = info->size;
      d->elements = 1;
      d->extent = d->true_extent = static_cast<MPI_Aint>(info->size);
      d->align = predefined_align(h, info->size);
      d->basic = h;
      d->contiguous = d->committed = d->predefined = true;
      d->name = info->name;
      t->predefined.push_back(std::move(d));
    }
    return t;
  }();
  return *t;
}

std::shared_ptr<DerivedType> find_mutable(MPI_Datatype handle) {
  TypeTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (handle > 0 && static_cast<std::size_t>(handle) < t.predefined.size()) return t.predefined[handle];
  const auto index = static_cast<std::size_t>(DerivedHandle::slot(handle) - kDerivedBase);
  if (is_derived_handle(handle) && index < t.derived.size() &&
      DerivedHandle::names(handle, DerivedHandle::slot(handle), t.generations[index])) {
    return t.derived[index];
  }
  return nullptr;
}

MPI_Datatype add_type(std::shared_ptr<DerivedType> type) {
  TypeTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (!t.free_slots.empty()) {
    const int index = t.free_slots.back();
    t.free_slots.pop_back();
    t.derived[static_cast<std::size_t>(index)] = std::move(type);
    return DerivedHandle::make(kDerivedBase + index, t.generations[static_cast<std::size_t>(index)]);
  }
  if (t.derived.size() > static_cast<std::size_t>(DerivedHandle::kSlotMask - kDerivedBase)) return MPI_DATATYPE_NULL;
  t.derived.push_back(std::move(type));
  t.generations.push_back(0);
  return DerivedHandle::make(kDerivedBase + static_cast<int>(t.derived.size() - 1), 0);
}

// Builds a type map from copies of old types at displacements.
class Builder {
 public:
  // `blocklength` copies of `old` from byte displacement `disp`.
  void add(const DerivedType& old, MPI_Aint disp, std::size_t blocklength) {
    if (blocklength == 0) return;
    const MPI_Aint first = disp + old.lb;
    const MPI_Aint last = disp + old.lb + static_cast<MPI_Aint>(blocklength - 1) * old.extent;
    const MPI_Aint lo = std::min(first, last), hi = std::max(first, last) + old.extent;
    if (!bounded_) {
      lb_ = lo;
      ub_ = hi;
      bounded_ = true;
    } else {
      lb_ = std::min(lb_, lo);
      ub_ = std::max(ub_, hi);
    }
    explicit_bounds_ = explicit_bounds_ || old.explicit_bounds;
    align_ = std::max(align_, old.align);
    size_ += old.size * blocklength;
    elements_ += old.elements * blocklength;
    if (old.mixed) {
      mixed_ = true;
    } else if (old.basic != MPI_DATATYPE_NULL) {
      if (basic_ == MPI_DATATYPE_NULL) {
        basic_ = old.basic;
      } else if (basic_ != old.basic) {
        mixed_ = true;
      }
    }
    const bool dense = old.runs.size() == 1 && old.runs[0].offset == 0 &&
                       static_cast<MPI_Aint>(old.runs[0].elem_size * old.runs[0].count) == old.extent;
    if (dense) {
      append({disp, old.runs[0].elem_size, old.runs[0].count * blocklength});
      return;
    }
    for (std::size_t j = 0; j < blocklength; ++j) {
      const MPI_Aint base = disp + static_cast<MPI_Aint>(j) * old.extent;
      for (const TypeRun& r : old.runs) append({base + r.offset, r.elem_size, r.count});
    }
  }

  std::shared_ptr<DerivedType> finish(bool pad_to_alignment) {
    auto t = std::make_shared<DerivedType>();
    t->size = size_;
    t->elements = elements_;
    t->mixed = mixed_;
    t->basic = mixed_ ? MPI_DATATYPE_NULL : basic_;
    t->align = align_;
    t->explicit_bounds = explicit_bounds_;
    if (bounded_) {
      t->lb = lb_;
      MPI_Aint extent = ub_ - lb_;
      if (pad_to_alignment && !explicit_bounds_) {
        const auto a = static_cast<MPI_Aint>(align_);
        if (extent % a != 0) extent += a - extent % a;
      }
      t->extent = extent;
    }
    bool first = true;
    MPI_Aint tlo = 0, thi = 0;
    for (const TypeRun& r : runs_) {
      if (r.count == 0 || r.elem_size == 0) continue;
      const MPI_Aint end = r.offset + static_cast<MPI_Aint>(r.elem_size * r.count);
      tlo = first ? r.offset : std::min(tlo, r.offset);
      thi = first ? end : std::max(thi, end);
      first = false;
      if (!t->blocks.empty() && t->blocks.back().offset + static_cast<MPI_Aint>(t->blocks.back().length) == r.offset) {
        t->blocks.back().length += r.elem_size * r.count;
      } else {
        t->blocks.push_back({r.offset, r.elem_size * r.count});
      }
    }
    t->true_lb = tlo;
    t->true_extent = thi - tlo;
    t->runs = std::move(runs_);
    t->contiguous = (t->blocks.empty() && t->extent == 0) ||
                    (t->blocks.size() == 1 && t->blocks[0].offset == 0 &&
                     static_cast<MPI_Aint>(t->size) == t->extent);
    return t;
  }

 private:
  void append(TypeRun r) {
    if (r.count == 0) return;
    if (!runs_.empty()) {
      TypeRun& last = runs_.back();
      if (last.elem_size == r.elem_size &&
          last.offset + static_cast<MPI_Aint>(last.elem_size * last.count) == r.offset) {
        last.count += r.count;
        return;
      }
    }
    runs_.push_back(r);
  }

  std::vector<TypeRun> runs_;
  std::size_t size_ = 0, elements_ = 0, align_ = 1;
  MPI_Aint lb_ = 0, ub_ = 0;
  MPI_Datatype basic_ = MPI_DATATYPE_NULL;
  bool mixed_ = false;
  bool bounded_ = false, explicit_bounds_ = false;
};

int check_init(const char* function) {
  if (TERN_UNLIKELY(g_state == nullptr)) return not_initialized(function);
  return MPI_SUCCESS;
}

int bad_type(const char* function, MPI_Datatype type) {
  return raise(nullptr, MPI_ERR_TYPE, function, "invalid datatype %d", type);
}

// Common checks of the constructors: count, the output handle, the old type.
int check_ctor(const char* function, int count, MPI_Datatype* newtype, std::shared_ptr<const DerivedType>* old,
               MPI_Datatype oldtype) {
  if (int err = check_init(function); err != MPI_SUCCESS) return err;
  if (count < 0) return raise(nullptr, MPI_ERR_COUNT, function, "invalid count %d", count);
  if (newtype == nullptr) return raise(nullptr, MPI_ERR_ARG, function, "null newtype argument");
  if (old != nullptr) {
    *old = describe_type(oldtype);
    if (*old == nullptr) return bad_type(function, oldtype);
  }
  return MPI_SUCCESS;
}

int publish(const char* function, std::shared_ptr<DerivedType> type, MPI_Datatype* newtype) {
  const MPI_Datatype handle = add_type(std::move(type));
  if (handle == MPI_DATATYPE_NULL) return raise(nullptr, MPI_ERR_NO_MEM, function, "too many datatypes");
  *newtype = handle;
  return MPI_SUCCESS;
}

// Indexed-family constructor: block i of blocklengths[i] (or `fixed`) old
// types at displacement displs[i] * unit bytes.
template <typename Disp>
int build_indexed(const char* function, int count, const int blocklengths[], int fixed, const Disp displs[],
                  MPI_Aint unit, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  std::shared_ptr<const DerivedType> old;
  if (int err = check_ctor(function, count, newtype, &old, oldtype); err != MPI_SUCCESS) return err;
  if (count > 0 && (displs == nullptr || (blocklengths == nullptr && fixed < 0))) {
    return raise(nullptr, MPI_ERR_ARG, function, "null array argument");
  }
  if (blocklengths == nullptr && fixed < 0) {
    return raise(nullptr, MPI_ERR_ARG, function, "invalid blocklength %d", fixed);
  }
  Builder b;
  for (int i = 0; i < count; ++i) {
    const int length = blocklengths != nullptr ? blocklengths[i] : fixed;
    if (length < 0) return raise(nullptr, MPI_ERR_ARG, function, "invalid blocklength %d at index %d", length, i);
    b.add(*old, static_cast<MPI_Aint>(displs[i]) * unit, static_cast<std::size_t>(length));
  }
  return publish(function, b.finish(false), newtype);
}

char* temp_alloc(std::size_t bytes) { return static_cast<char*>(std::malloc(bytes == 0 ? 1 : bytes)); }

}  // namespace

std::shared_ptr<const DerivedType> describe_type(MPI_Datatype type) { return find_mutable(type); }

void pack_data(const DerivedType& type, const void* buffer, std::size_t count, void* out) noexcept {
  const char* in = static_cast<const char*>(buffer);
  char* o = static_cast<char*>(out);
  for (std::size_t i = 0; i < count; ++i) {
    const char* base = in + static_cast<MPI_Aint>(i) * type.extent;
    for (const TypeBlock& b : type.blocks) {
      std::memcpy(o, base + b.offset, b.length);
      o += b.length;
    }
  }
}

void unpack_data(const DerivedType& type, const void* in, std::size_t bytes, void* buffer,
                 std::size_t count) noexcept {
  const char* src = static_cast<const char*>(in);
  char* out = static_cast<char*>(buffer);
  for (std::size_t i = 0; i < count && bytes != 0; ++i) {
    char* base = out + static_cast<MPI_Aint>(i) * type.extent;
    for (const TypeBlock& b : type.blocks) {
      const std::size_t n = std::min(b.length, bytes);
      std::memcpy(base + b.offset, src, n);
      src += n;
      bytes -= n;
      if (bytes == 0) return;
    }
  }
}

long long elements_in(const DerivedType& type, std::size_t bytes) noexcept {
  if (type.size == 0) return 0;
  long long elements = static_cast<long long>(bytes / type.size * type.elements);
  std::size_t rest = bytes % type.size;
  for (const TypeRun& r : type.runs) {
    if (rest == 0) break;
    const std::size_t n = std::min(r.count, rest / r.elem_size);
    elements += static_cast<long long>(n);
    rest -= n * r.elem_size;
    if (n < r.count) break;
  }
  return rest == 0 ? elements : -1;
}

void complete_transfer(PackedTransfer& transfer, bool receive, std::size_t received) noexcept {
  if (receive && transfer.type != nullptr) {
    unpack_data(*transfer.type, transfer.temp, received, transfer.user_buffer, transfer.count);
  }
  std::free(transfer.temp);
  transfer.temp = nullptr;
  transfer.type.reset();
  transfer.user_buffer = nullptr;
}

// --- Collectives through pack/unpack.

namespace {

// Bytes of `count` elements of a committed type, or an error (raised).
int packed_bytes(const char* function, MPI_Comm comm, int count, MPI_Datatype type,
                 std::shared_ptr<const DerivedType>& desc, int& bytes) {
  desc = describe_type(type);
  if (desc == nullptr) return raise(find_comm(comm), MPI_ERR_TYPE, function, "invalid datatype %d", type);
  if (!desc->committed) {
    return raise(find_comm(comm), MPI_ERR_TYPE, function, "datatype %d is not committed", type);
  }
  if (count < 0) return raise(find_comm(comm), MPI_ERR_COUNT, function, "invalid count %d", count);
  const unsigned long long total = static_cast<unsigned long long>(count) * desc->size;
  if (total > static_cast<unsigned long long>(std::numeric_limits<int>::max())) {
    return raise(find_comm(comm), MPI_ERR_COUNT, function, "%llu bytes of derived data exceed an int count", total);
  }
  bytes = static_cast<int>(total);
  return MPI_SUCCESS;
}

// Packs the send side of a collective into `temp` (one byte more, so that
// data() is never null), or raises the error of its type or count.
int pack_send_side(const char* function, MPI_Comm comm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                   std::vector<char>& temp, int& bytes) {
  std::shared_ptr<const DerivedType> desc;
  if (int err = packed_bytes(function, comm, sendcount, sendtype, desc, bytes); err != MPI_SUCCESS) return err;
  temp.resize(static_cast<std::size_t>(bytes) + 1);
  pack_data(*desc, sendbuf, static_cast<std::size_t>(sendcount), temp.data());
  return MPI_SUCCESS;
}

}  // namespace

int derived_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  constexpr const char* kFunction = "MPI_Bcast";
  std::shared_ptr<const DerivedType> desc;
  int bytes = 0;
  if (int err = packed_bytes(kFunction, comm, count, datatype, desc, bytes); err != MPI_SUCCESS) return err;
  int rank = 0;
  if (int err = PMPI_Comm_rank(comm, &rank); err != MPI_SUCCESS) return err;
  if (desc->contiguous) return PMPI_Bcast(buffer, bytes, MPI_BYTE, root, comm);
  char* temp = temp_alloc(static_cast<std::size_t>(bytes));
  if (temp == nullptr) return raise(find_comm(comm), MPI_ERR_NO_MEM, kFunction, "no memory for %d bytes", bytes);
  if (rank == root) pack_data(*desc, buffer, static_cast<std::size_t>(count), temp);
  const int err = PMPI_Bcast(temp, bytes, MPI_BYTE, root, comm);
  if (err == MPI_SUCCESS && rank != root) {
    unpack_data(*desc, temp, static_cast<std::size_t>(bytes), buffer, static_cast<std::size_t>(count));
  }
  std::free(temp);
  return err;
}

int derived_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr const char* kFunction = "MPI_Gather";
  int rank = 0, size = 0;
  if (int err = PMPI_Comm_rank(comm, &rank); err != MPI_SUCCESS) return err;
  if (int err = PMPI_Comm_size(comm, &size); err != MPI_SUCCESS) return err;
  const bool is_root = rank == root;
  const bool in_place = is_root && sendbuf == MPI_IN_PLACE;
  std::shared_ptr<const DerivedType> sdesc, rdesc;
  int send_bytes = 0, recv_bytes = 0;
  char* send_temp = nullptr;
  char* recv_temp = nullptr;
  if (!in_place) {
    if (int err = packed_bytes(kFunction, comm, sendcount, sendtype, sdesc, send_bytes); err != MPI_SUCCESS) {
      return err;
    }
    send_temp = temp_alloc(static_cast<std::size_t>(send_bytes));
    if (send_temp == nullptr) return raise(find_comm(comm), MPI_ERR_NO_MEM, kFunction, "no memory");
    pack_data(*sdesc, sendbuf, static_cast<std::size_t>(sendcount), send_temp);
  }
  if (is_root) {
    if (int err = packed_bytes(kFunction, comm, recvcount, recvtype, rdesc, recv_bytes); err != MPI_SUCCESS) {
      std::free(send_temp);
      return err;
    }
    recv_temp = temp_alloc(static_cast<std::size_t>(recv_bytes) * static_cast<std::size_t>(size));
    if (recv_temp == nullptr) {
      std::free(send_temp);
      return raise(find_comm(comm), MPI_ERR_NO_MEM, kFunction, "no memory");
    }
    if (in_place) {
      const char* mine = static_cast<const char*>(recvbuf) + static_cast<MPI_Aint>(root) * recvcount * rdesc->extent;
      pack_data(*rdesc, mine, static_cast<std::size_t>(recvcount),
                recv_temp + static_cast<std::size_t>(root) * static_cast<std::size_t>(recv_bytes));
    }
  }
  const int err = PMPI_Gather(in_place ? MPI_IN_PLACE : send_temp, send_bytes, MPI_BYTE, recv_temp, recv_bytes,
                              MPI_BYTE, root, comm);
  if (err == MPI_SUCCESS && is_root) {
    for (int r = 0; r < size; ++r) {
      unpack_data(*rdesc, recv_temp + static_cast<std::size_t>(r) * static_cast<std::size_t>(recv_bytes),
                  static_cast<std::size_t>(recv_bytes),
                  static_cast<char*>(recvbuf) + static_cast<MPI_Aint>(r) * recvcount * rdesc->extent,
                  static_cast<std::size_t>(recvcount));
    }
  }
  std::free(send_temp);
  std::free(recv_temp);
  return err;
}

int derived_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr const char* kFunction = "MPI_Scatter";
  int rank = 0, size = 0;
  if (int err = PMPI_Comm_rank(comm, &rank); err != MPI_SUCCESS) return err;
  if (int err = PMPI_Comm_size(comm, &size); err != MPI_SUCCESS) return err;
  const bool is_root = rank == root;
  const bool in_place = is_root && recvbuf == MPI_IN_PLACE;
  std::shared_ptr<const DerivedType> sdesc, rdesc;
  int send_bytes = 0, recv_bytes = 0;
  char* send_temp = nullptr;
  char* recv_temp = nullptr;
  if (is_root) {
    if (int err = packed_bytes(kFunction, comm, sendcount, sendtype, sdesc, send_bytes); err != MPI_SUCCESS) {
      return err;
    }
    send_temp = temp_alloc(static_cast<std::size_t>(send_bytes) * static_cast<std::size_t>(size));
    if (send_temp == nullptr) return raise(find_comm(comm), MPI_ERR_NO_MEM, kFunction, "no memory");
    for (int r = 0; r < size; ++r) {
      if (in_place && r == root) continue;
      pack_data(*sdesc, static_cast<const char*>(sendbuf) + static_cast<MPI_Aint>(r) * sendcount * sdesc->extent,
                static_cast<std::size_t>(sendcount),
                send_temp + static_cast<std::size_t>(r) * static_cast<std::size_t>(send_bytes));
    }
  }
  if (!in_place) {
    if (int err = packed_bytes(kFunction, comm, recvcount, recvtype, rdesc, recv_bytes); err != MPI_SUCCESS) {
      std::free(send_temp);
      return err;
    }
    recv_temp = temp_alloc(static_cast<std::size_t>(recv_bytes));
    if (recv_temp == nullptr) {
      std::free(send_temp);
      return raise(find_comm(comm), MPI_ERR_NO_MEM, kFunction, "no memory");
    }
  }
  const int err = PMPI_Scatter(send_temp, send_bytes, MPI_BYTE, in_place ? MPI_IN_PLACE : recv_temp, recv_bytes,
                               MPI_BYTE, root, comm);
  if (err == MPI_SUCCESS && !in_place) {
    unpack_data(*rdesc, recv_temp, static_cast<std::size_t>(recv_bytes), recvbuf,
                static_cast<std::size_t>(recvcount));
  }
  std::free(send_temp);
  std::free(recv_temp);
  return err;
}


// --- The v-collectives, Allgather and Alltoall through pack/unpack: every
// block r of counts[r] elements at displs[r] extents is packed into a
// contiguous temporary at byte displacement bdispls[r]; the contiguous
// algorithm runs on MPI_BYTE counts.

namespace {

// One side's layout: the type and the blocks' packed byte counts/offsets.
struct VLayout {
  std::shared_ptr<const DerivedType> desc;
  std::vector<int> bcounts, bdispls;
  std::vector<char> temp;
};

int layout_v(const char* function, MPI_Comm comm, int n, const int counts[], const int displs[],
             MPI_Datatype type, const char* what, VLayout& out) {
  if (counts == nullptr || displs == nullptr) {
    return raise(find_comm(comm), MPI_ERR_ARG, function, "null %s counts or displacements", what);
  }
  out.bcounts.resize(static_cast<std::size_t>(n));
  out.bdispls.resize(static_cast<std::size_t>(n));
  unsigned long long total = 0;
  for (int r = 0; r < n; ++r) {
    int bytes = 0;
    if (int err = packed_bytes(function, comm, counts[r], type, out.desc, bytes); err != MPI_SUCCESS) return err;
    out.bcounts[static_cast<std::size_t>(r)] = bytes;
    out.bdispls[static_cast<std::size_t>(r)] = static_cast<int>(total);
    total += static_cast<unsigned long long>(bytes);
    if (total > static_cast<unsigned long long>(std::numeric_limits<int>::max())) {
      return raise(find_comm(comm), MPI_ERR_COUNT, function, "%llu bytes of derived data exceed an int count",
                   total);
    }
  }
  if (n == 0) out.desc = describe_type(type);
  out.temp.resize(static_cast<std::size_t>(total) + 1);
  return MPI_SUCCESS;
}

const char* block_at(const void* buffer, int displ, const DerivedType& type) {
  return static_cast<const char*>(buffer) + static_cast<MPI_Aint>(displ) * type.extent;
}
char* block_at(void* buffer, int displ, const DerivedType& type) {
  return static_cast<char*>(buffer) + static_cast<MPI_Aint>(displ) * type.extent;
}

void pack_block(VLayout& l, const void* buffer, const int counts[], const int displs[], int r) {
  const auto i = static_cast<std::size_t>(r);
  pack_data(*l.desc, block_at(buffer, displs[r], *l.desc), static_cast<std::size_t>(counts[r]),
            l.temp.data() + l.bdispls[i]);
}
void unpack_block(const VLayout& l, void* buffer, const int counts[], const int displs[], int r) {
  const auto i = static_cast<std::size_t>(r);
  unpack_data(*l.desc, l.temp.data() + l.bdispls[i], static_cast<std::size_t>(l.bcounts[i]),
              block_at(buffer, displs[r], *l.desc), static_cast<std::size_t>(counts[r]));
}

int comm_shape(MPI_Comm comm, int& rank, int& size) {
  if (int err = PMPI_Comm_rank(comm, &rank); err != MPI_SUCCESS) return err;
  return PMPI_Comm_size(comm, &size);
}

}  // namespace

int derived_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr const char* kFunction = "MPI_Gatherv";
  int rank = 0, size = 0;
  if (int err = comm_shape(comm, rank, size); err != MPI_SUCCESS) return err;
  const bool is_root = rank == root;
  const bool in_place = is_root && sendbuf == MPI_IN_PLACE;
  int send_bytes = 0;
  std::vector<char> send_temp;
  if (!in_place) {
    if (int err = pack_send_side(kFunction, comm, sendbuf, sendcount, sendtype, send_temp, send_bytes);
        err != MPI_SUCCESS) {
      return err;
    }
  }
  VLayout recv;
  if (is_root) {
    if (int err = layout_v(kFunction, comm, size, recvcounts, displs, recvtype, "receive", recv); err != MPI_SUCCESS) {
      return err;
    }
    if (in_place) pack_block(recv, recvbuf, recvcounts, displs, root);
  }
  const int err = PMPI_Gatherv(in_place ? MPI_IN_PLACE : send_temp.data(), send_bytes, MPI_BYTE,
                               is_root ? recv.temp.data() : nullptr, recv.bcounts.data(), recv.bdispls.data(),
                               MPI_BYTE, root, comm);
  if (err == MPI_SUCCESS && is_root) {
    for (int r = 0; r < size; ++r) unpack_block(recv, recvbuf, recvcounts, displs, r);
  }
  return err;
}

int derived_scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                     void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr const char* kFunction = "MPI_Scatterv";
  int rank = 0, size = 0;
  if (int err = comm_shape(comm, rank, size); err != MPI_SUCCESS) return err;
  const bool is_root = rank == root;
  const bool in_place = is_root && recvbuf == MPI_IN_PLACE;
  VLayout send;
  if (is_root) {
    if (int err = layout_v(kFunction, comm, size, sendcounts, displs, sendtype, "send", send); err != MPI_SUCCESS) {
      return err;
    }
    for (int r = 0; r < size; ++r) {
      if (!(in_place && r == root)) pack_block(send, sendbuf, sendcounts, displs, r);
    }
  }
  std::shared_ptr<const DerivedType> rdesc;
  int recv_bytes = 0;
  std::vector<char> recv_temp;
  if (!in_place) {
    if (int err = packed_bytes(kFunction, comm, recvcount, recvtype, rdesc, recv_bytes); err != MPI_SUCCESS) {
      return err;
    }
    recv_temp.resize(static_cast<std::size_t>(recv_bytes) + 1);
  }
  const int err = PMPI_Scatterv(is_root ? send.temp.data() : nullptr, send.bcounts.data(), send.bdispls.data(),
                                MPI_BYTE, in_place ? MPI_IN_PLACE : recv_temp.data(), recv_bytes, MPI_BYTE, root,
                                comm);
  if (err == MPI_SUCCESS && !in_place) {
    unpack_data(*rdesc, recv_temp.data(), static_cast<std::size_t>(recv_bytes), recvbuf,
                static_cast<std::size_t>(recvcount));
  }
  return err;
}

int derived_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                       bool uniform) {
  const char* kFunction = uniform ? "MPI_Allgather" : "MPI_Allgatherv";
  int rank = 0, size = 0;
  if (int err = comm_shape(comm, rank, size); err != MPI_SUCCESS) return err;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  int send_bytes = 0;
  std::vector<char> send_temp;
  if (!in_place) {
    if (int err = pack_send_side(kFunction, comm, sendbuf, sendcount, sendtype, send_temp, send_bytes);
        err != MPI_SUCCESS) {
      return err;
    }
  }
  VLayout recv;
  if (int err = layout_v(kFunction, comm, size, recvcounts, displs, recvtype, "receive", recv); err != MPI_SUCCESS) {
    return err;
  }
  if (in_place) pack_block(recv, recvbuf, recvcounts, displs, rank);
  const void* out = in_place ? MPI_IN_PLACE : static_cast<const void*>(send_temp.data());
  const int err =
      uniform ? PMPI_Allgather(out, send_bytes, MPI_BYTE, recv.temp.data(), size > 0 ? recv.bcounts[0] : 0,
                               MPI_BYTE, comm)
              : PMPI_Allgatherv(out, send_bytes, MPI_BYTE, recv.temp.data(), recv.bcounts.data(),
                                recv.bdispls.data(), MPI_BYTE, comm);
  if (err == MPI_SUCCESS) {
    for (int r = 0; r < size; ++r) unpack_block(recv, recvbuf, recvcounts, displs, r);
  }
  return err;
}

int derived_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                      void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                      MPI_Comm comm) {
  constexpr const char* kFunction = "MPI_Alltoallv";
  int rank = 0, size = 0;
  if (int err = comm_shape(comm, rank, size); err != MPI_SUCCESS) return err;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  VLayout send, recv;
  if (!in_place) {
    if (int err = layout_v(kFunction, comm, size, sendcounts, sdispls, sendtype, "send", send); err != MPI_SUCCESS) {
      return err;
    }
    for (int r = 0; r < size; ++r) pack_block(send, sendbuf, sendcounts, sdispls, r);
  }
  if (int err = layout_v(kFunction, comm, size, recvcounts, rdispls, recvtype, "receive", recv); err != MPI_SUCCESS) {
    return err;
  }
  if (in_place) {
    for (int r = 0; r < size; ++r) pack_block(recv, recvbuf, recvcounts, rdispls, r);
  }
  const int err = PMPI_Alltoallv(in_place ? MPI_IN_PLACE : send.temp.data(), send.bcounts.data(),
                                 send.bdispls.data(), MPI_BYTE, recv.temp.data(), recv.bcounts.data(),
                                 recv.bdispls.data(), MPI_BYTE, comm);
  if (err == MPI_SUCCESS) {
    for (int r = 0; r < size; ++r) unpack_block(recv, recvbuf, recvcounts, rdispls, r);
  }
  return err;
}

// --- Reductions. Predefined operations see the type's elements as an array
// of its one basic type. User operations (MPI_Op_create) get the datatype
// itself, so their operands are rebuilt in the type's own layout at the root.

namespace {

// `count` instances of `datatype` as `elements` of `basic`, or an error.
// With a user operation, `basic` stays MPI_DATATYPE_NULL: any type map goes.
int reduction_shape(const char* function, MPI_Comm comm, long long count, MPI_Datatype datatype, MPI_Op op,
                    std::shared_ptr<const DerivedType>& desc, MPI_Datatype& basic, int& elements) {
  int bytes = 0;
  if (count > std::numeric_limits<int>::max()) {
    return raise(find_comm(comm), MPI_ERR_COUNT, function, "count %lld exceeds an int", count);
  }
  if (int err = packed_bytes(function, comm, static_cast<int>(count), datatype, desc, bytes); err != MPI_SUCCESS) {
    return err;
  }
  basic = MPI_DATATYPE_NULL;
  elements = 0;
  if (is_user_op(op)) return MPI_SUCCESS;
  if (!valid_op(op)) return raise(find_comm(comm), MPI_ERR_OP, function, "invalid operation %d", op);
  if (desc->basic == MPI_DATATYPE_NULL) {
    return raise(find_comm(comm), MPI_ERR_OP, function,
                 "predefined operation %d on derived datatype %d, which mixes basic types (predefined operations "
                 "take derived datatypes built from one predefined type only)",
                 op, datatype);
  }
  basic = desc->basic;
  elements = static_cast<int>(static_cast<unsigned long long>(count) * desc->elements);
  return MPI_SUCCESS;
}

// Storage for `count` instances of a type laid out as in a user buffer
// (holes included), addressed from the type's origin.
class LayoutBuffer {
 public:
  LayoutBuffer(const DerivedType& type, std::size_t count) {
    if (count == 0) return;
    MPI_Aint first = type.true_lb;
    MPI_Aint last = type.true_lb + type.true_extent;
    const MPI_Aint strides = static_cast<MPI_Aint>(count - 1) * type.extent;
    (strides < 0 ? first : last) += strides;
    storage_.resize(static_cast<std::size_t>(last - first) + 1);
    shift_ = first;
  }
  // Where instance 0 starts (its lower bound may lie before the storage's first byte
  // only by `shift_`, which the storage covers).
  [[nodiscard]] void* origin() noexcept { return storage_.data() - shift_; }

 private:
  std::vector<char> storage_;
  MPI_Aint shift_ = 0;
};

// Reduces everyone's `packed` contribution (count instances, packed) with a
// user operation into `result` at `root` (packed), in rank order:
// x0 op (x1 op (... op x(n-1))), as MPI requires for non-commutative ops.
int user_reduce_packed(const char* function, MPI_Comm comm, const DerivedType& desc, MPI_Datatype datatype,
                       MPI_Op op, int count, const char* packed, char* result, int root) {
  int rank = 0, size = 0;
  if (int err = comm_shape(comm, rank, size); err != MPI_SUCCESS) return err;
  const std::size_t bytes = static_cast<std::size_t>(count) * desc.size;
  if (static_cast<unsigned long long>(bytes) * static_cast<unsigned>(size) >
      static_cast<unsigned long long>(std::numeric_limits<int>::max())) {
    return raise(find_comm(comm), MPI_ERR_COUNT, function,
                 "%zu bytes from each of %d ranks exceed an int count for a user operation on a derived datatype",
                 bytes, size);
  }
  std::vector<char> all(rank == root ? bytes * static_cast<std::size_t>(size) + 1 : 1);
  if (int err = PMPI_Gather(packed, static_cast<int>(bytes), MPI_BYTE, all.data(), static_cast<int>(bytes), MPI_BYTE,
                            root, comm);
      err != MPI_SUCCESS) {
    return err;
  }
  if (rank != root || count == 0) return MPI_SUCCESS;
  LayoutBuffer accumulator(desc, static_cast<std::size_t>(count)), operand(desc, static_cast<std::size_t>(count));
  const auto instances = static_cast<std::size_t>(count);
  unpack_data(desc, all.data() + bytes * static_cast<std::size_t>(size - 1), bytes, accumulator.origin(), instances);
  for (int r = size - 2; r >= 0; --r) {
    unpack_data(desc, all.data() + bytes * static_cast<std::size_t>(r), bytes, operand.origin(), instances);
    if (int err = call_user_op(op, datatype, operand.origin(), accumulator.origin(), count); err != MPI_SUCCESS) {
      return raise(find_comm(comm), err, function, "invalid operation %d", op);
    }
  }
  pack_data(desc, accumulator.origin(), instances, result);
  return MPI_SUCCESS;
}

}  // namespace

int derived_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                   MPI_Comm comm) {
  constexpr const char* kFunction = "MPI_Reduce";
  int rank = 0, size = 0;
  if (int err = comm_shape(comm, rank, size); err != MPI_SUCCESS) return err;
  if (count < 0) return raise(find_comm(comm), MPI_ERR_COUNT, kFunction, "invalid count %d", count);
  std::shared_ptr<const DerivedType> desc;
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  int elements = 0;
  if (int err = reduction_shape(kFunction, comm, count, datatype, op, desc, basic, elements); err != MPI_SUCCESS) {
    return err;
  }
  const bool is_root = rank == root;
  const bool in_place = is_root && sendbuf == MPI_IN_PLACE;
  const std::size_t bytes = static_cast<std::size_t>(count) * desc->size;
  if (bytes != 0 && ((!in_place && sendbuf == nullptr) || (is_root && recvbuf == nullptr))) {
    return raise(find_comm(comm), MPI_ERR_BUFFER, kFunction, "null buffer");
  }
  std::vector<char> send_temp(bytes + 1), recv_temp(is_root ? bytes + 1 : 1);
  if (bytes != 0) pack_data(*desc, in_place ? recvbuf : sendbuf, static_cast<std::size_t>(count), send_temp.data());
  int err = MPI_SUCCESS;
  if (basic == MPI_DATATYPE_NULL) {
    err = user_reduce_packed(kFunction, comm, *desc, datatype, op, count, send_temp.data(), recv_temp.data(), root);
  } else {
    err = PMPI_Reduce(send_temp.data(), is_root ? recv_temp.data() : nullptr, elements, basic, op, root, comm);
  }
  if (err == MPI_SUCCESS && is_root && bytes != 0) {
    unpack_data(*desc, recv_temp.data(), bytes, recvbuf, static_cast<std::size_t>(count));
  }
  return err;
}

int derived_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                      MPI_Comm comm) {
  constexpr const char* kFunction = "MPI_Allreduce";
  if (count < 0) return raise(find_comm(comm), MPI_ERR_COUNT, kFunction, "invalid count %d", count);
  std::shared_ptr<const DerivedType> desc;
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  int elements = 0;
  if (int err = reduction_shape(kFunction, comm, count, datatype, op, desc, basic, elements); err != MPI_SUCCESS) {
    return err;
  }
  const std::size_t bytes = static_cast<std::size_t>(count) * desc->size;
  const void* source = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (bytes != 0 && (source == nullptr || recvbuf == nullptr)) {
    return raise(find_comm(comm), MPI_ERR_BUFFER, kFunction, "null buffer");
  }
  std::vector<char> temp(bytes + 1);
  pack_data(*desc, source, static_cast<std::size_t>(count), temp.data());
  int err = MPI_SUCCESS;
  if (basic == MPI_DATATYPE_NULL) {
    std::vector<char> result(bytes + 1);
    err = user_reduce_packed(kFunction, comm, *desc, datatype, op, count, temp.data(), result.data(), 0);
    if (err == MPI_SUCCESS) err = PMPI_Bcast(result.data(), static_cast<int>(bytes), MPI_BYTE, 0, comm);
    temp.swap(result);
  } else {
    err = PMPI_Allreduce(MPI_IN_PLACE, temp.data(), elements, basic, op, comm);
  }
  if (err == MPI_SUCCESS) unpack_data(*desc, temp.data(), bytes, recvbuf, static_cast<std::size_t>(count));
  return err;
}

int derived_reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                 MPI_Op op, MPI_Comm comm) {
  constexpr const char* kFunction = "MPI_Reduce_scatter_block";
  int rank = 0, size = 0;
  if (int err = comm_shape(comm, rank, size); err != MPI_SUCCESS) return err;
  if (recvcount < 0) return raise(find_comm(comm), MPI_ERR_COUNT, kFunction, "invalid count %d", recvcount);
  const long long total = static_cast<long long>(recvcount) * size;
  std::shared_ptr<const DerivedType> desc;
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  int elements = 0;
  if (int err = reduction_shape(kFunction, comm, total, datatype, op, desc, basic, elements); err != MPI_SUCCESS) {
    return err;
  }
  const std::size_t block = static_cast<std::size_t>(recvcount) * desc->size;
  const void* source = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (block != 0 && (source == nullptr || recvbuf == nullptr)) {
    return raise(find_comm(comm), MPI_ERR_BUFFER, kFunction, "null buffer");
  }
  std::vector<char> send_temp(block * static_cast<std::size_t>(size) + 1), recv_temp(block + 1);
  pack_data(*desc, source, static_cast<std::size_t>(total), send_temp.data());
  int err = MPI_SUCCESS;
  if (basic == MPI_DATATYPE_NULL) {
    std::vector<char> reduced(rank == 0 ? block * static_cast<std::size_t>(size) + 1 : 1);
    err = user_reduce_packed(kFunction, comm, *desc, datatype, op, static_cast<int>(total), send_temp.data(),
                             reduced.data(), 0);
    if (err == MPI_SUCCESS) {
      err = PMPI_Scatter(reduced.data(), static_cast<int>(block), MPI_BYTE, recv_temp.data(), static_cast<int>(block),
                         MPI_BYTE, 0, comm);
    }
  } else {
    err = PMPI_Reduce_scatter_block(send_temp.data(), recv_temp.data(), elements / (size > 0 ? size : 1), basic, op,
                                    comm);
  }
  if (err == MPI_SUCCESS) unpack_data(*desc, recv_temp.data(), block, recvbuf, static_cast<std::size_t>(recvcount));
  return err;
}

}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  constexpr const char* kFunction = "MPI_Type_contiguous";
  std::shared_ptr<const DerivedType> old;
  if (int err = check_ctor(kFunction, count, newtype, &old, oldtype); err != MPI_SUCCESS) return err;
  Builder b;
  b.add(*old, 0, static_cast<std::size_t>(count));
  return publish(kFunction, b.finish(false), newtype);
}

static int vector_common(const char* function, int count, int blocklength, MPI_Aint stride_bytes,
                         const DerivedType& old, MPI_Datatype* newtype) {
  if (blocklength < 0) return raise(nullptr, MPI_ERR_ARG, function, "invalid blocklength %d", blocklength);
  Builder b;
  for (int i = 0; i < count; ++i) b.add(old, static_cast<MPI_Aint>(i) * stride_bytes, static_cast<std::size_t>(blocklength));
  return publish(function, b.finish(false), newtype);
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  constexpr const char* kFunction = "MPI_Type_vector";
  std::shared_ptr<const DerivedType> old;
  if (int err = check_ctor(kFunction, count, newtype, &old, oldtype); err != MPI_SUCCESS) return err;
  return vector_common(kFunction, count, blocklength, static_cast<MPI_Aint>(stride) * old->extent, *old, newtype);
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  constexpr const char* kFunction = "MPI_Type_create_hvector";
  std::shared_ptr<const DerivedType> old;
  if (int err = check_ctor(kFunction, count, newtype, &old, oldtype); err != MPI_SUCCESS) return err;
  return vector_common(kFunction, count, blocklength, stride, *old, newtype);
}

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

int PMPI_Type_indexed(int count, const int blocklengths[], const int displacements[], MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  const std::shared_ptr<const DerivedType> old = describe_type(oldtype);
  const MPI_Aint unit = old != nullptr ? old->extent : 0;
  return build_indexed("MPI_Type_indexed", count, blocklengths, -1, displacements, unit, oldtype, newtype);
}

int PMPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return build_indexed("MPI_Type_create_hindexed", count, blocklengths, -1, displacements, 1, oldtype, newtype);
}

int PMPI_Type_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[], MPI_Datatype oldtype,
                       MPI_Datatype* newtype) {
  return PMPI_Type_create_hindexed(count, blocklengths, displacements, oldtype, newtype);
}

int PMPI_Type_create_indexed_block(int count, int blocklength, const int displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype) {
  const std::shared_ptr<const DerivedType> old = describe_type(oldtype);
  const MPI_Aint unit = old != nullptr ? old->extent : 0;
  return build_indexed("MPI_Type_create_indexed_block", count, nullptr, blocklength, displacements, unit, oldtype,
                       newtype);
}

int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return build_indexed("MPI_Type_create_hindexed_block", count, nullptr, blocklength, displacements, 1, oldtype,
                       newtype);
}

int PMPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                            const MPI_Datatype types[], MPI_Datatype* newtype) {
  constexpr const char* kFunction = "MPI_Type_create_struct";
  if (int err = check_ctor(kFunction, count, newtype, nullptr, MPI_DATATYPE_NULL); err != MPI_SUCCESS) return err;
  if (count > 0 && (blocklengths == nullptr || displacements == nullptr || types == nullptr)) {
    return raise(nullptr, MPI_ERR_ARG, kFunction, "null array argument");
  }
  Builder b;
  for (int i = 0; i < count; ++i) {
    const std::shared_ptr<const DerivedType> old = describe_type(types[i]);
    if (old == nullptr) {
      return raise(nullptr, MPI_ERR_TYPE, kFunction, "invalid datatype %d at index %d", types[i], i);
    }
    if (blocklengths[i] < 0) {
      return raise(nullptr, MPI_ERR_ARG, kFunction, "invalid blocklength %d at index %d", blocklengths[i], i);
    }
    b.add(*old, displacements[i], static_cast<std::size_t>(blocklengths[i]));
  }
  return publish(kFunction, b.finish(true), newtype);
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  constexpr const char* kFunction = "MPI_Type_create_resized";
  std::shared_ptr<const DerivedType> old;
  if (int err = check_ctor(kFunction, 0, newtype, &old, oldtype); err != MPI_SUCCESS) return err;
  auto t = std::make_shared<DerivedType>(*old);
  t->lb = lb;
  t->extent = extent;
  t->explicit_bounds = true;
  t->committed = t->predefined = false;
  t->name.clear();
  t->contiguous = (t->blocks.empty() && extent == 0) ||
                  (t->blocks.size() == 1 && t->blocks[0].offset == 0 && static_cast<MPI_Aint>(t->size) == extent);
  return publish(kFunction, std::move(t), newtype);
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  constexpr const char* kFunction = "MPI_Type_dup";
  std::shared_ptr<const DerivedType> old;
  if (int err = check_ctor(kFunction, 0, newtype, &old, oldtype); err != MPI_SUCCESS) return err;
  auto t = std::make_shared<DerivedType>(*old);
  t->predefined = false;
  t->committed = old->committed;
  t->name.clear();
  return publish(kFunction, std::move(t), newtype);
}

int PMPI_Type_commit(MPI_Datatype* datatype) {
  constexpr const char* kFunction = "MPI_Type_commit";
  if (int err = check_init(kFunction); err != MPI_SUCCESS) return err;
  if (datatype == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null datatype argument");
  std::shared_ptr<DerivedType> t = find_mutable(*datatype);
  if (t == nullptr) return bad_type(kFunction, *datatype);
  std::lock_guard<std::mutex> lock(table().mutex);
  t->committed = true;
  return MPI_SUCCESS;
}

int PMPI_Type_free(MPI_Datatype* datatype) {
  constexpr const char* kFunction = "MPI_Type_free";
  if (int err = check_init(kFunction); err != MPI_SUCCESS) return err;
  if (datatype == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null datatype argument");
  if (!is_derived_handle(*datatype)) {
    return raise(nullptr, MPI_ERR_TYPE, kFunction, "datatype %d is predefined or invalid", *datatype);
  }
  TypeTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  const int slot = DerivedHandle::slot(*datatype);
  const auto index = static_cast<std::size_t>(slot - kDerivedBase);
  if (index >= t.derived.size() || t.derived[index] == nullptr ||
      !DerivedHandle::names(*datatype, slot, t.generations[index])) {
    return bad_type(kFunction, *datatype);
  }
  // Operations in flight hold their own reference to the description.
  t.derived[index].reset();
  t.generations[index] = DerivedHandle::next(t.generations[index]);
  t.free_slots.push_back(static_cast<int>(index));
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  constexpr const char* kFunction = "MPI_Type_get_extent";
  const std::shared_ptr<const DerivedType> t = describe_type(datatype);
  if (t == nullptr) return bad_type(kFunction, datatype);
  if (lb == nullptr || extent == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null argument");
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  constexpr const char* kFunction = "MPI_Type_get_true_extent";
  const std::shared_ptr<const DerivedType> t = describe_type(datatype);
  if (t == nullptr) return bad_type(kFunction, datatype);
  if (true_lb == nullptr || true_extent == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null argument");
  *true_lb = t->true_lb;
  *true_extent = t->true_extent;
  return MPI_SUCCESS;
}

int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  constexpr const char* kFunction = "MPI_Type_get_name";
  const std::shared_ptr<DerivedType> t = find_mutable(datatype);
  if (t == nullptr) return bad_type(kFunction, datatype);
  if (type_name == nullptr || resultlen == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null argument");
  std::lock_guard<std::mutex> lock(table().mutex);
  const std::size_t n = std::min<std::size_t>(t->name.size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(type_name, t->name.data(), n);
  type_name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}

int PMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  constexpr const char* kFunction = "MPI_Type_set_name";
  const std::shared_ptr<DerivedType> t = find_mutable(datatype);
  if (t == nullptr) return bad_type(kFunction, datatype);
  if (type_name == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null name argument");
  std::lock_guard<std::mutex> lock(table().mutex);
  t->name.assign(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

int PMPI_Get_address(const void* location, MPI_Aint* address) {
  if (address == nullptr) return raise(nullptr, MPI_ERR_ARG, "MPI_Get_address", "null address argument");
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(disp));
}

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(addr1) - static_cast<std::uintptr_t>(addr2));
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  constexpr const char* kFunction = "MPI_Pack_size";
  if (int err = check_init(kFunction); err != MPI_SUCCESS) return err;
  const Comm* c = find_comm(comm);
  if (c == nullptr) return raise(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", comm);
  const std::shared_ptr<const DerivedType> t = describe_type(datatype);
  if (t == nullptr) return raise(c, MPI_ERR_TYPE, kFunction, "invalid datatype %d", datatype);
  if (incount < 0) return raise(c, MPI_ERR_COUNT, kFunction, "invalid count %d", incount);
  if (size == nullptr) return raise(c, MPI_ERR_ARG, kFunction, "null size argument");
  const unsigned long long total = static_cast<unsigned long long>(incount) * t->size;
  if (total > static_cast<unsigned long long>(std::numeric_limits<int>::max())) {
    return raise(c, MPI_ERR_COUNT, kFunction, "%llu bytes exceed an int", total);
  }
  *size = static_cast<int>(total);
  return MPI_SUCCESS;
}

int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize, int* position,
              MPI_Comm comm) {
  constexpr const char* kFunction = "MPI_Pack";
  if (int err = check_init(kFunction); err != MPI_SUCCESS) return err;
  const Comm* c = find_comm(comm);
  if (c == nullptr) return raise(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", comm);
  const std::shared_ptr<const DerivedType> t = describe_type(datatype);
  if (t == nullptr) return raise(c, MPI_ERR_TYPE, kFunction, "invalid datatype %d", datatype);
  if (!t->committed) return raise(c, MPI_ERR_TYPE, kFunction, "datatype %d is not committed", datatype);
  if (incount < 0) return raise(c, MPI_ERR_COUNT, kFunction, "invalid count %d", incount);
  if (position == nullptr || (outbuf == nullptr && outsize != 0)) {
    return raise(c, MPI_ERR_ARG, kFunction, "null position or output buffer");
  }
  if (outsize < 0 || *position < 0 || *position > outsize) {
    return raise(c, MPI_ERR_ARG, kFunction, "invalid position %d for an output of %d bytes", *position, outsize);
  }
  const std::size_t bytes = static_cast<std::size_t>(incount) * t->size;
  if (bytes > static_cast<std::size_t>(outsize - *position)) {
    return raise(c, MPI_ERR_TRUNCATE, kFunction, "%zu bytes do not fit in %d bytes left", bytes,
                 outsize - *position);
  }
  pack_data(*t, inbuf, static_cast<std::size_t>(incount), static_cast<char*>(outbuf) + *position);
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}

int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype datatype,
                MPI_Comm comm) {
  constexpr const char* kFunction = "MPI_Unpack";
  if (int err = check_init(kFunction); err != MPI_SUCCESS) return err;
  const Comm* c = find_comm(comm);
  if (c == nullptr) return raise(nullptr, MPI_ERR_COMM, kFunction, "invalid communicator %d", comm);
  const std::shared_ptr<const DerivedType> t = describe_type(datatype);
  if (t == nullptr) return raise(c, MPI_ERR_TYPE, kFunction, "invalid datatype %d", datatype);
  if (!t->committed) return raise(c, MPI_ERR_TYPE, kFunction, "datatype %d is not committed", datatype);
  if (outcount < 0) return raise(c, MPI_ERR_COUNT, kFunction, "invalid count %d", outcount);
  if (position == nullptr || (inbuf == nullptr && insize != 0)) {
    return raise(c, MPI_ERR_ARG, kFunction, "null position or input buffer");
  }
  if (insize < 0 || *position < 0 || *position > insize) {
    return raise(c, MPI_ERR_ARG, kFunction, "invalid position %d for an input of %d bytes", *position, insize);
  }
  const std::size_t bytes = static_cast<std::size_t>(outcount) * t->size;
  if (bytes > static_cast<std::size_t>(insize - *position)) {
    return raise(c, MPI_ERR_TRUNCATE, kFunction, "%zu bytes asked, %d left in the input", bytes,
                 insize - *position);
  }
  unpack_data(*t, static_cast<const char*>(inbuf) + *position, bytes, outbuf, static_cast<std::size_t>(outcount));
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
#pragma weak MPI_Type_vector = PMPI_Type_vector
#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
#pragma weak MPI_Type_hvector = PMPI_Type_hvector
#pragma weak MPI_Type_indexed = PMPI_Type_indexed
#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
#pragma weak MPI_Type_hindexed = PMPI_Type_hindexed
#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
#pragma weak MPI_Type_dup = PMPI_Type_dup
#pragma weak MPI_Type_commit = PMPI_Type_commit
#pragma weak MPI_Type_free = PMPI_Type_free
#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
#pragma weak MPI_Type_get_name = PMPI_Type_get_name
#pragma weak MPI_Type_set_name = PMPI_Type_set_name
#pragma weak MPI_Get_address = PMPI_Get_address
#pragma weak MPI_Aint_add = PMPI_Aint_add
#pragma weak MPI_Aint_diff = PMPI_Aint_diff
#pragma weak MPI_Pack_size = PMPI_Pack_size
#pragma weak MPI_Pack = PMPI_Pack
#pragma weak MPI_Unpack = PMPI_Unpack

}  // extern "C"
