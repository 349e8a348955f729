// Derived datatypes: the constructors (int and large-count forms),
// commit/free/dup, the queries, names, MPI_Get_address and the MPI_Aint
// helpers (MPI_Pack and friends are in pack.cpp, the collectives on derived
// types in coll/derived.cpp).
#include "datatype/derived.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <type_traits>

#include "op/op.hpp"
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
    case MPI_C_LONG_DOUBLE_COMPLEX: return alignof(long double);
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
    for (MPI_Datatype h = 0; h < kPredefinedTypes; ++h) {
      const TypeInfo* info = find_type(h);
      if (info == nullptr) {
        t->predefined.emplace_back();
        continue;
      }
      auto d = std::make_shared<DerivedType>();
      d->runs.push_back({0, info->size, 1, h});
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
    for (std::size_t h = 0; h < t->predefined.size() && h < static_cast<std::size_t>(kPredefinedTypes); ++h) {
      g_predefined_descriptions[h] = t->predefined[h].get();
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
      append({disp, old.runs[0].elem_size, old.runs[0].count * blocklength, old.runs[0].type});
      return;
    }
    for (std::size_t j = 0; j < blocklength; ++j) {
      const MPI_Aint base = disp + static_cast<MPI_Aint>(j) * old.extent;
      for (const TypeRun& r : old.runs) append({base + r.offset, r.elem_size, r.count, r.type});
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
      if (last.elem_size == r.elem_size && last.type == r.type &&
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
int check_ctor(const char* function, MPI_Count count, MPI_Datatype* newtype,
               std::shared_ptr<const DerivedType>* old, MPI_Datatype oldtype) {
  if (int err = check_init(function); err != MPI_SUCCESS) return err;
  if (count < 0) return raise(nullptr, MPI_ERR_COUNT, function, "invalid count %lld", count);
  if (newtype == nullptr) return raise(nullptr, MPI_ERR_ARG, function, "null newtype argument");
  if (old != nullptr) {
    *old = describe_type(oldtype);
    if (*old == nullptr) return bad_type(function, oldtype);
  }
  return MPI_SUCCESS;
}

int publish(const char* function, std::shared_ptr<DerivedType> type, TypeContents contents,
            MPI_Datatype* newtype) {
  type->contents = std::move(contents);
  const MPI_Datatype handle = add_type(std::move(type));
  if (handle == MPI_DATATYPE_NULL) return raise(nullptr, MPI_ERR_NO_MEM, function, "too many datatypes");
  *newtype = handle;
  return MPI_SUCCESS;
}

// A constructor's arguments as MPI_Type_get_contents returns them: counts
// among the integers and byte displacements among the addresses, or, for
// a large-count (_c) constructor, every count and displacement among the
// large counts, in argument order, as the standard lays them out.
class ContentsRecorder {
 public:
  ContentsRecorder(int combiner, bool large) : large_(large) { contents_.combiner = combiner; }
  void integer(MPI_Count value) {
    if (large_) {
      contents_.large_counts.push_back(value);
    } else {
      contents_.ints.push_back(static_cast<int>(value));
    }
  }
  void address(MPI_Count value) {
    if (large_) {
      contents_.large_counts.push_back(value);
    } else {
      contents_.aints.push_back(static_cast<MPI_Aint>(value));
    }
  }
  // Arguments that stay int in the _c forms (subarray's order, darray's distributions).
  void fixed_integer(int value) { contents_.ints.push_back(value); }
  void type(std::shared_ptr<const DerivedType> old) { contents_.types.push_back(std::move(old)); }
  TypeContents take() { return std::move(contents_); }

 private:
  TypeContents contents_;
  bool large_;
};

// Indexed-family constructor: block i of blocklengths[i] (or `fixed`) old
// types at displacement displs[i] * unit bytes. Count: int, or MPI_Count
// for the large-count forms.
template <typename Count, typename Disp>
int build_indexed(const char* function, int combiner, Count count, const Count blocklengths[], Count fixed,
                  const Disp displs[], MPI_Aint unit, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  std::shared_ptr<const DerivedType> old;
  if (int err = check_ctor(function, count, newtype, &old, oldtype); err != MPI_SUCCESS) return err;
  if (count > 0 && (displs == nullptr || (blocklengths == nullptr && fixed < 0))) {
    return raise(nullptr, MPI_ERR_ARG, function, "null array argument");
  }
  if (blocklengths == nullptr && fixed < 0) {
    return raise(nullptr, MPI_ERR_ARG, function, "invalid blocklength %lld", static_cast<MPI_Count>(fixed));
  }
  // Contents: count, the block lengths (or the one), then the displacements.
  ContentsRecorder contents(combiner, std::is_same_v<Count, MPI_Count>);
  contents.integer(count);
  if (blocklengths == nullptr) contents.integer(fixed);
  contents.type(old);
  Builder b;
  for (Count i = 0; i < count; ++i) {
    const Count length = blocklengths != nullptr ? blocklengths[i] : fixed;
    if (length < 0) {
      return raise(nullptr, MPI_ERR_ARG, function, "invalid blocklength %lld at index %lld",
                   static_cast<MPI_Count>(length), static_cast<MPI_Count>(i));
    }
    b.add(*old, static_cast<MPI_Aint>(displs[i]) * unit, static_cast<std::size_t>(length));
    if (blocklengths != nullptr) contents.integer(length);
  }
  for (Count i = 0; i < count; ++i) {
    if constexpr (std::is_same_v<Disp, int>) {
      contents.integer(displs[i]);
    } else {
      contents.address(displs[i]);
    }
  }
  return publish(function, b.finish(false), contents.take(), newtype);
}

// The other constructors, shared by their int and large-count forms.
template <typename Count>
int contiguous(const char* function, Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  std::shared_ptr<const DerivedType> old;
  if (int err = check_ctor(function, count, newtype, &old, oldtype); err != MPI_SUCCESS) return err;
  ContentsRecorder contents(MPI_COMBINER_CONTIGUOUS, std::is_same_v<Count, MPI_Count>);
  contents.integer(count);
  contents.type(old);
  Builder b;
  b.add(*old, 0, static_cast<std::size_t>(count));
  return publish(function, b.finish(false), contents.take(), newtype);
}

// Vectors: `stride` in old extents (`hvector` false) or in bytes.
template <typename Count, typename Stride>
int vector(const char* function, Count count, Count blocklength, Stride stride, bool hvector, MPI_Datatype oldtype,
           MPI_Datatype* newtype) {
  std::shared_ptr<const DerivedType> old;
  if (int err = check_ctor(function, count, newtype, &old, oldtype); err != MPI_SUCCESS) return err;
  if (blocklength < 0) {
    return raise(nullptr, MPI_ERR_ARG, function, "invalid blocklength %lld", static_cast<MPI_Count>(blocklength));
  }
  ContentsRecorder contents(hvector ? MPI_COMBINER_HVECTOR : MPI_COMBINER_VECTOR, std::is_same_v<Count, MPI_Count>);
  contents.integer(count);
  contents.integer(blocklength);
  if (hvector) {
    contents.address(stride);
  } else {
    contents.integer(stride);
  }
  contents.type(old);
  const MPI_Aint stride_bytes = hvector ? static_cast<MPI_Aint>(stride) : static_cast<MPI_Aint>(stride) * old->extent;
  Builder b;
  for (Count i = 0; i < count; ++i) {
    b.add(*old, static_cast<MPI_Aint>(i) * stride_bytes, static_cast<std::size_t>(blocklength));
  }
  return publish(function, b.finish(false), contents.take(), newtype);
}

template <typename Count, typename Disp>
int create_struct(const char* function, Count count, const Count blocklengths[], const Disp displacements[],
                  const MPI_Datatype types[], MPI_Datatype* newtype) {
  if (int err = check_ctor(function, count, newtype, nullptr, MPI_DATATYPE_NULL); err != MPI_SUCCESS) return err;
  if (count > 0 && (blocklengths == nullptr || displacements == nullptr || types == nullptr)) {
    return raise(nullptr, MPI_ERR_ARG, function, "null array argument");
  }
  Builder b;
  ContentsRecorder contents(MPI_COMBINER_STRUCT, std::is_same_v<Count, MPI_Count>);
  contents.integer(count);
  for (Count i = 0; i < count; ++i) {
    std::shared_ptr<const DerivedType> old = describe_type(types[i]);
    if (old == nullptr) {
      return raise(nullptr, MPI_ERR_TYPE, function, "invalid datatype %d at index %lld", types[i],
                   static_cast<MPI_Count>(i));
    }
    if (blocklengths[i] < 0) {
      return raise(nullptr, MPI_ERR_ARG, function, "invalid blocklength %lld at index %lld",
                   static_cast<MPI_Count>(blocklengths[i]), static_cast<MPI_Count>(i));
    }
    b.add(*old, static_cast<MPI_Aint>(displacements[i]), static_cast<std::size_t>(blocklengths[i]));
    contents.integer(blocklengths[i]);
    contents.type(std::move(old));
  }
  for (Count i = 0; i < count; ++i) contents.address(displacements[i]);
  return publish(function, b.finish(true), contents.take(), newtype);
}

template <typename Bound>
int resized(const char* function, MPI_Datatype oldtype, Bound lb, Bound extent, MPI_Datatype* newtype) {
  std::shared_ptr<const DerivedType> old;
  if (int err = check_ctor(function, 0, newtype, &old, oldtype); err != MPI_SUCCESS) return err;
  auto t = std::make_shared<DerivedType>(*old);
  t->lb = static_cast<MPI_Aint>(lb);
  t->extent = static_cast<MPI_Aint>(extent);
  t->explicit_bounds = true;
  t->committed = t->predefined = false;
  t->name.clear();
  t->contiguous = (t->blocks.empty() && t->extent == 0) ||
                  (t->blocks.size() == 1 && t->blocks[0].offset == 0 && static_cast<MPI_Aint>(t->size) == t->extent);
  ContentsRecorder contents(MPI_COMBINER_RESIZED, std::is_same_v<Bound, MPI_Count>);
  contents.address(lb);
  contents.address(extent);
  contents.type(old);
  return publish(function, std::move(t), contents.take(), newtype);
}

}  // namespace

std::shared_ptr<const DerivedType> describe_type(MPI_Datatype type) { return find_mutable(type); }

std::shared_ptr<DerivedType> describe_type_mutable(MPI_Datatype type) { return find_mutable(type); }

const DerivedType* g_predefined_descriptions[kPredefinedTypes] = {};

const DerivedType* predefined_description_slow(MPI_Datatype type) noexcept {
  (void)table();  // builds the table, which fills g_predefined_descriptions
  return type > 0 && type < kPredefinedTypes ? g_predefined_descriptions[type] : nullptr;
}
void record_contents(MPI_Datatype type, TypeContents contents) {
  if (std::shared_ptr<DerivedType> t = find_mutable(type); t != nullptr && !t->predefined) {
    t->contents = std::move(contents);
  }
}

MPI_Datatype publish_copy(const DerivedType& type) { return add_type(std::make_shared<DerivedType>(type)); }

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

}  // namespace tern::mpi

using namespace tern;
using namespace tern::mpi;

extern "C" {

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return contiguous("MPI_Type_contiguous", count, oldtype, newtype);
}

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return contiguous("MPI_Type_contiguous_c", count, oldtype, newtype);
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return vector("MPI_Type_vector", count, blocklength, stride, false, oldtype, newtype);
}

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                       MPI_Datatype* newtype) {
  return vector("MPI_Type_vector_c", count, blocklength, stride, false, oldtype, newtype);
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  return vector("MPI_Type_create_hvector", count, blocklength, stride, true, oldtype, newtype);
}

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                               MPI_Datatype* newtype) {
  return vector("MPI_Type_create_hvector_c", count, blocklength, stride, true, oldtype, newtype);
}

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

// The indexed forms count displacements in old extents.
static MPI_Aint extent_of(MPI_Datatype oldtype) {
  const std::shared_ptr<const DerivedType> old = describe_type(oldtype);
  return old != nullptr ? old->extent : 0;
}

int PMPI_Type_indexed(int count, const int blocklengths[], const int displacements[], MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  return build_indexed("MPI_Type_indexed", MPI_COMBINER_INDEXED, count, blocklengths, -1, displacements,
                       extent_of(oldtype), oldtype, newtype);
}

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count blocklengths[], const MPI_Count displacements[],
                        MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return build_indexed("MPI_Type_indexed_c", MPI_COMBINER_INDEXED, count, blocklengths, MPI_Count{-1},
                       displacements, extent_of(oldtype), oldtype, newtype);
}

int PMPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return build_indexed("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count, blocklengths, -1, displacements, 1,
                       oldtype, newtype);
}

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count blocklengths[], const MPI_Count displacements[],
                                MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return build_indexed("MPI_Type_create_hindexed_c", MPI_COMBINER_HINDEXED, count, blocklengths, MPI_Count{-1},
                       displacements, 1, oldtype, newtype);
}

int PMPI_Type_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[], MPI_Datatype oldtype,
                       MPI_Datatype* newtype) {
  return PMPI_Type_create_hindexed(count, blocklengths, displacements, oldtype, newtype);
}

int PMPI_Type_create_indexed_block(int count, int blocklength, const int displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype) {
  return build_indexed<int>("MPI_Type_create_indexed_block", MPI_COMBINER_INDEXED_BLOCK, count, nullptr, blocklength,
                            displacements, extent_of(oldtype), oldtype, newtype);
}

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return build_indexed<MPI_Count>("MPI_Type_create_indexed_block_c", MPI_COMBINER_INDEXED_BLOCK, count, nullptr,
                                  blocklength, displacements, extent_of(oldtype), oldtype, newtype);
}

int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return build_indexed<int>("MPI_Type_create_hindexed_block", MPI_COMBINER_HINDEXED_BLOCK, count, nullptr,
                            blocklength, displacements, 1, oldtype, newtype);
}

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return build_indexed<MPI_Count>("MPI_Type_create_hindexed_block_c", MPI_COMBINER_HINDEXED_BLOCK, count, nullptr,
                                  blocklength, displacements, 1, oldtype, newtype);
}

int PMPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                            const MPI_Datatype types[], MPI_Datatype* newtype) {
  return create_struct("MPI_Type_create_struct", count, blocklengths, displacements, types, newtype);
}

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count blocklengths[], const MPI_Count displacements[],
                              const MPI_Datatype types[], MPI_Datatype* newtype) {
  return create_struct("MPI_Type_create_struct_c", count, blocklengths, displacements, types, newtype);
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  return resized("MPI_Type_create_resized", oldtype, lb, extent, newtype);
}

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype* newtype) {
  return resized("MPI_Type_create_resized_c", oldtype, lb, extent, newtype);
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  constexpr const char* kFunction = "MPI_Type_dup";
  std::shared_ptr<const DerivedType> old;
  if (int err = check_ctor(kFunction, 0, newtype, &old, oldtype); err != MPI_SUCCESS) return err;
  auto t = std::make_shared<DerivedType>(*old);
  t->predefined = false;
  t->committed = old->committed;
  t->name.clear();
  if (int err = publish(kFunction, std::move(t), TypeContents{MPI_COMBINER_DUP, {}, {}, {old}, {}}, newtype);
      err != MPI_SUCCESS) {
    return err;
  }
  // The duplicate's attributes are what their copy callbacks make of the
  // old type's; one failing undoes the duplicate.
  std::shared_ptr<DerivedType> copy = find_mutable(*newtype);
  if (int err = attr_copy(AttrObject::Datatype, oldtype, old->attributes, copy->attributes); err != MPI_SUCCESS) {
    (void)attr_delete_all(AttrObject::Datatype, *newtype, copy->attributes);
    (void)PMPI_Type_free(newtype);
    return raise(nullptr, err, kFunction, "an attribute copy callback returned error %d", err);
  }
  return MPI_SUCCESS;
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
  // The attributes go first, outside the table's lock (delete callbacks may
  // use datatypes); one failing keeps the type.
  if (std::shared_ptr<DerivedType> type = find_mutable(*datatype); type != nullptr) {
    if (int err = attr_delete_all(AttrObject::Datatype, *datatype, type->attributes); err != MPI_SUCCESS) {
      return raise(nullptr, err, kFunction, "an attribute delete callback returned error %d", err);
    }
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
  MPI_Count l = 0, e = 0;
  const int err = extent_query("MPI_Type_get_extent", datatype, false, lb != nullptr ? &l : nullptr,
                               extent != nullptr ? &e : nullptr);
  if (err == MPI_SUCCESS) *lb = static_cast<MPI_Aint>(l), *extent = static_cast<MPI_Aint>(e);
  return err;
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  MPI_Count l = 0, e = 0;
  const int err = extent_query("MPI_Type_get_true_extent", datatype, true, true_lb != nullptr ? &l : nullptr,
                               true_extent != nullptr ? &e : nullptr);
  if (err == MPI_SUCCESS) *true_lb = static_cast<MPI_Aint>(l), *true_extent = static_cast<MPI_Aint>(e);
  return err;
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

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
#pragma weak MPI_Type_contiguous_c = PMPI_Type_contiguous_c
#pragma weak MPI_Type_vector_c = PMPI_Type_vector_c
#pragma weak MPI_Type_create_hvector_c = PMPI_Type_create_hvector_c
#pragma weak MPI_Type_indexed_c = PMPI_Type_indexed_c
#pragma weak MPI_Type_create_hindexed_c = PMPI_Type_create_hindexed_c
#pragma weak MPI_Type_create_indexed_block_c = PMPI_Type_create_indexed_block_c
#pragma weak MPI_Type_create_hindexed_block_c = PMPI_Type_create_hindexed_block_c
#pragma weak MPI_Type_create_struct_c = PMPI_Type_create_struct_c
#pragma weak MPI_Type_create_resized_c = PMPI_Type_create_resized_c
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

}  // extern "C"
