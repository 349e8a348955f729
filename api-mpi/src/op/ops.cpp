// Reduction operations beyond the arithmetic ones of datatype/datatype.cpp:
// MPI_MAXLOC/MPI_MINLOC on the value-index pairs, and user functions
// registered with MPI_Op_create or MPI_Op_create_c (handles from
// kFirstUserOp on).
#include <mutex>

#include "op/op.hpp"
#include "state.hpp"

namespace tern::mpi {
namespace {

constexpr int kFirstUserOp = 32;
constexpr int kMaxUserOps = 1024;
using OpHandle = GenerationalHandle<11>;
static_assert(kFirstUserOp + kMaxUserOps <= OpHandle::kSlotMask + 1);

struct UserOp {
  MPI_User_function* function = nullptr;
  MPI_User_function_c* large_function = nullptr;  // MPI_Op_create_c's instead of `function`
  bool commute = false;
  uint32_t generation = 0;  // of the handle that names this entry now
};

UserOp g_user_ops[kMaxUserOps];  // by OpHandle slot - kFirstUserOp; both functions null: free
std::mutex g_user_ops_mutex;

UserOp* find_user_op(MPI_Op op) noexcept {
  const int slot = OpHandle::slot(op);
  if (slot < kFirstUserOp || slot >= kFirstUserOp + kMaxUserOps) return nullptr;
  UserOp* entry = &g_user_ops[slot - kFirstUserOp];
  return (entry->function == nullptr && entry->large_function == nullptr) ||
                 !OpHandle::names(op, slot, entry->generation)
             ? nullptr
             : entry;
}

// A user operation's function, taken under the lock (the call runs without it).
bool user_functions(MPI_Op op, UserOp& out) noexcept {
  std::lock_guard lock(g_user_ops_mutex);
  const UserOp* entry = find_user_op(op);
  if (entry == nullptr) return false;
  out = *entry;
  return true;
}

// `count` instances of `type` through the function: an MPI_Op_create_c one
// takes any count; an int one more than INT_MAX only in slices of
// `slice_bytes` per instance (0: cannot be sliced, MPI_ERR_COUNT).
int invoke(const UserOp& user, MPI_Datatype type, void* in, void* inout, std::size_t count,
           std::size_t slice_bytes) noexcept {
  if (count == 0) return MPI_SUCCESS;
  if (user.large_function != nullptr) {
    MPI_Count len = static_cast<MPI_Count>(count);
    user.large_function(in, inout, &len, &type);
    return MPI_SUCCESS;
  }
  if (count > 0x7FFFFFFF && slice_bytes == 0) return MPI_ERR_COUNT;
  auto* in_bytes = static_cast<std::byte*>(in);
  auto* inout_bytes = static_cast<std::byte*>(inout);
  while (count > 0) {
    int len = count > 0x7FFFFFFF ? 0x7FFFFFFF : static_cast<int>(count);
    MPI_Datatype datatype = type;
    user.function(in_bytes, inout_bytes, &len, &datatype);
    in_bytes += static_cast<std::size_t>(len) * slice_bytes;
    inout_bytes += static_cast<std::size_t>(len) * slice_bytes;
    count -= static_cast<std::size_t>(len);
  }
  return MPI_SUCCESS;
}

// MAXLOC keeps the larger value, MINLOC the smaller; on a tie the smaller index.
template <typename Pair>
void loc(bool max, const void* in_bytes, void* inout_bytes, std::size_t count) noexcept {
  const Pair* in = static_cast<const Pair*>(in_bytes);
  Pair* inout = static_cast<Pair*>(inout_bytes);
  for (std::size_t i = 0; i < count; ++i) {
    const bool better = max ? in[i].value > inout[i].value : in[i].value < inout[i].value;
    if (better) {
      inout[i] = in[i];
    } else if (in[i].value == inout[i].value && in[i].index < inout[i].index) {
      inout[i].index = in[i].index;
    }
  }
}

}  // namespace

bool extended_op_valid(MPI_Op op) noexcept {
  if (op == MPI_MAXLOC || op == MPI_MINLOC) return true;
  std::lock_guard lock(g_user_ops_mutex);
  return find_user_op(op) != nullptr;
}

bool op_commutative(MPI_Op op) noexcept {
  if (op < kFirstUserOp) return true;
  std::lock_guard lock(g_user_ops_mutex);
  const UserOp* entry = find_user_op(op);
  return entry == nullptr || entry->commute;
}

bool is_user_op(MPI_Op op) noexcept {
  std::lock_guard lock(g_user_ops_mutex);
  return find_user_op(op) != nullptr;
}

int call_user_op(MPI_Op op, MPI_Datatype type, void* in, void* inout, MPI_Count count) noexcept {
  UserOp user;
  if (!user_functions(op, user)) return MPI_ERR_OP;
  // Derived instances are not sliced: an int function sees at most INT_MAX.
  return count <= 0 ? MPI_SUCCESS : invoke(user, type, in, inout, static_cast<std::size_t>(count), 0);
}

int apply_extended_op(MPI_Op op, MPI_Datatype type, const void* in, void* inout, std::size_t count) noexcept {
  if (op == MPI_MAXLOC || op == MPI_MINLOC) {
    const bool max = op == MPI_MAXLOC;
    switch (type) {
      case MPI_FLOAT_INT: loc<PairFloatInt>(max, in, inout, count); return MPI_SUCCESS;
      case MPI_DOUBLE_INT: loc<PairDoubleInt>(max, in, inout, count); return MPI_SUCCESS;
      case MPI_LONG_INT: loc<PairLongInt>(max, in, inout, count); return MPI_SUCCESS;
      case MPI_2INT: loc<PairIntInt>(max, in, inout, count); return MPI_SUCCESS;
      case MPI_SHORT_INT: loc<PairShortInt>(max, in, inout, count); return MPI_SUCCESS;
      case MPI_LONG_DOUBLE_INT: loc<PairLongDoubleInt>(max, in, inout, count); return MPI_SUCCESS;
      default: return MPI_ERR_OP;
    }
  }
  UserOp user;
  if (!user_functions(op, user)) return MPI_ERR_OP;
  const TypeInfo* info = find_type(type);
  if (info == nullptr) return MPI_ERR_TYPE;
  return invoke(user, type, const_cast<void*>(in), inout, count, info->size);
}

namespace {

int op_create(const char* function, MPI_User_function* user_fn, MPI_User_function_c* large_fn, int commute,
              MPI_Op* op) {
  if (g_state == nullptr) return not_initialized(function);
  if ((user_fn == nullptr && large_fn == nullptr) || op == nullptr) {
    return raise(nullptr, MPI_ERR_ARG, function, "null argument");
  }
  std::lock_guard lock(g_user_ops_mutex);
  for (int i = 0; i < kMaxUserOps; ++i) {
    if (g_user_ops[i].function == nullptr && g_user_ops[i].large_function == nullptr) {
      g_user_ops[i].function = user_fn;
      g_user_ops[i].large_function = large_fn;
      g_user_ops[i].commute = commute != 0;
      *op = OpHandle::make(kFirstUserOp + i, g_user_ops[i].generation);
      return MPI_SUCCESS;
    }
  }
  return raise(nullptr, MPI_ERR_INTERN, function, "too many user operations (%d)", kMaxUserOps);
}

}  // namespace

}  // namespace tern::mpi

using namespace tern::mpi;

extern "C" {

int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  return op_create("MPI_Op_create", user_fn, nullptr, commute, op);
}

int PMPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  return op_create("MPI_Op_create_c", nullptr, user_fn, commute, op);
}

int PMPI_Op_free(MPI_Op* op) {
  constexpr const char* kFunction = "MPI_Op_free";
  if (g_state == nullptr) return not_initialized(kFunction);
  if (op == nullptr) return raise(nullptr, MPI_ERR_ARG, kFunction, "null op argument");
  std::lock_guard lock(g_user_ops_mutex);
  UserOp* entry = find_user_op(*op);
  if (entry == nullptr) {
    if (*op >= MPI_MAX && *op <= MPI_MINLOC) {
      return raise(nullptr, MPI_ERR_OP, kFunction, "cannot free a predefined operation (%d)", *op);
    }
    return raise(nullptr, MPI_ERR_OP, kFunction, "invalid operation %d", *op);
  }
  *entry = UserOp{nullptr, nullptr, false, OpHandle::next(entry->generation)};
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

#pragma weak MPI_Op_create = PMPI_Op_create
#pragma weak MPI_Op_create_c = PMPI_Op_create_c
#pragma weak MPI_Op_free = PMPI_Op_free

}  // extern "C"
