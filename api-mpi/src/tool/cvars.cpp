// MPI_T_enum_* and MPI_T_cvar_*: Tern's configuration as control variables.
// The configuration is read once when the process starts, so every variable
// is constant: reads give the value in effect, writes are refused with
// MPI_T_ERR_CVAR_SET_NEVER.
#include <cstring>
#include <map>

#include "tool/cvar_table.hpp"
#include "tool/tool.hpp"

namespace tern::mpi::tool {
namespace {

std::map<MPI_T_cvar_handle, int> g_cvar_handles;  // handle -> cvar index

int cvar_count() { return static_cast<int>(cvars().size()); }

// The element count a handle of `cvar` reads: the text with its null for
// strings, one value otherwise.
int element_count(const Cvar& cvar) {
  if (cvar.kind != CvarKind::Text) return 1;
  return static_cast<int>(read_cvar(cvar).text.size() + 1);
}

}  // namespace

void drop_cvar_handles() { g_cvar_handles.clear(); }

}  // namespace tern::mpi::tool

using namespace tern::mpi;
using namespace tern::mpi::tool;

extern "C" {

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  Call call("MPI_T_enum_get_info");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  const Enumeration* enumeration = find_enumeration(enumtype);
  if (enumeration == nullptr) return call.fail(MPI_T_ERR_INVALID_HANDLE, "invalid enumtype %d", enumtype);
  if (num != nullptr) *num = static_cast<int>(enumeration->items.size());
  return copy_string(call, "name", enumeration->name, name, name_len);
}

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int* value, char* name, int* name_len) {
  Call call("MPI_T_enum_get_item");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  const Enumeration* enumeration = find_enumeration(enumtype);
  if (enumeration == nullptr) return call.fail(MPI_T_ERR_INVALID_HANDLE, "invalid enumtype %d", enumtype);
  if (index < 0 || static_cast<std::size_t>(index) >= enumeration->items.size()) {
    return call.fail(MPI_T_ERR_INVALID_INDEX, "item index %d outside 0..%zu of %s", index,
                     enumeration->items.size() - 1, enumeration->name);
  }
  const auto& [item_value, item_name] = enumeration->items[static_cast<std::size_t>(index)];
  if (value != nullptr) *value = item_value;
  return copy_string(call, "name", item_name, name, name_len);
}

int PMPI_T_cvar_get_num(int* num_cvar) {
  Call call("MPI_T_cvar_get_num");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (num_cvar == nullptr) return call.fail(MPI_T_ERR_INVALID, "null num_cvar argument");
  *num_cvar = cvar_count();
  return MPI_SUCCESS;
}

int PMPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity, MPI_Datatype* datatype,
                         MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind, int* scope) {
  Call call("MPI_T_cvar_get_info");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (cvar_index < 0 || cvar_index >= cvar_count()) {
    return call.fail(MPI_T_ERR_INVALID_INDEX, "cvar_index %d outside 0..%d", cvar_index, cvar_count() - 1);
  }
  const Cvar& cvar = cvars()[static_cast<std::size_t>(cvar_index)];
  if (int err = copy_string(call, "name", cvar.variable->name, name, name_len); err != MPI_SUCCESS) return err;
  if (int err = copy_string(call, "desc", cvar.description.c_str(), desc, desc_len); err != MPI_SUCCESS) return err;
  if (verbosity != nullptr) *verbosity = cvar.verbosity;
  if (datatype != nullptr) *datatype = datatype_of(cvar.kind);
  if (enumtype != nullptr) *enumtype = cvar.enumeration;
  if (bind != nullptr) *bind = MPI_T_BIND_NO_OBJECT;
  if (scope != nullptr) *scope = MPI_T_SCOPE_CONSTANT;
  return MPI_SUCCESS;
}

int PMPI_T_cvar_get_index(const char* name, int* cvar_index) {
  Call call("MPI_T_cvar_get_index");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (name == nullptr || cvar_index == nullptr) return call.fail(MPI_T_ERR_INVALID, "null name or cvar_index");
  for (int index = 0; index < cvar_count(); ++index) {
    if (std::strcmp(cvars()[static_cast<std::size_t>(index)].variable->name, name) == 0) {
      *cvar_index = index;
      return MPI_SUCCESS;
    }
  }
  return call.fail(MPI_T_ERR_INVALID_NAME, "no control variable is named '%s'", name);
}

int PMPI_T_cvar_handle_alloc(int cvar_index, void* obj_handle, MPI_T_cvar_handle* handle, int* count) {
  Call call("MPI_T_cvar_handle_alloc");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  (void)obj_handle;  // every variable is bound to no object
  if (cvar_index < 0 || cvar_index >= cvar_count()) {
    return call.fail(MPI_T_ERR_INVALID_INDEX, "cvar_index %d outside 0..%d", cvar_index, cvar_count() - 1);
  }
  if (handle == nullptr || count == nullptr) return call.fail(MPI_T_ERR_INVALID, "null handle or count argument");
  const int id = next_handle();
  if (id == 0) return call.fail(MPI_T_ERR_OUT_OF_HANDLES, "no handle values left");
  g_cvar_handles.emplace(id, cvar_index);
  *handle = id;
  *count = element_count(cvars()[static_cast<std::size_t>(cvar_index)]);
  return MPI_SUCCESS;
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  Call call("MPI_T_cvar_handle_free");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (handle == nullptr) return call.fail(MPI_T_ERR_INVALID, "null handle argument");
  if (g_cvar_handles.erase(*handle) == 0) return call.fail(MPI_T_ERR_INVALID_HANDLE, "invalid handle %d", *handle);
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  Call call("MPI_T_cvar_read");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  const auto found = g_cvar_handles.find(handle);
  if (found == g_cvar_handles.end()) return call.fail(MPI_T_ERR_INVALID_HANDLE, "invalid handle %d", handle);
  if (buf == nullptr) return call.fail(MPI_T_ERR_INVALID, "null buf argument");
  const Cvar& cvar = cvars()[static_cast<std::size_t>(found->second)];
  const CvarValue value = read_cvar(cvar);
  switch (cvar.kind) {
    case CvarKind::Size: {
      const unsigned long number = value.number;
      std::memcpy(buf, &number, sizeof(number));
      break;
    }
    case CvarKind::Seconds: {
      const unsigned number = static_cast<unsigned>(value.number);
      std::memcpy(buf, &number, sizeof(number));
      break;
    }
    case CvarKind::Choice: {
      const int number = static_cast<int>(value.number);
      std::memcpy(buf, &number, sizeof(number));
      break;
    }
    case CvarKind::Text: std::memcpy(buf, value.text.c_str(), value.text.size() + 1); break;
  }
  return MPI_SUCCESS;
}

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  Call call("MPI_T_cvar_write");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  const auto found = g_cvar_handles.find(handle);
  if (found == g_cvar_handles.end()) return call.fail(MPI_T_ERR_INVALID_HANDLE, "invalid handle %d", handle);
  (void)buf;
  return call.fail(MPI_T_ERR_CVAR_SET_NEVER, "%s is read once when the process starts and cannot be set",
                   cvars()[static_cast<std::size_t>(found->second)].variable->name);
}

}  // extern "C"

#pragma weak MPI_T_enum_get_info = PMPI_T_enum_get_info
#pragma weak MPI_T_enum_get_item = PMPI_T_enum_get_item
#pragma weak MPI_T_cvar_get_num = PMPI_T_cvar_get_num
#pragma weak MPI_T_cvar_get_info = PMPI_T_cvar_get_info
#pragma weak MPI_T_cvar_get_index = PMPI_T_cvar_get_index
#pragma weak MPI_T_cvar_handle_alloc = PMPI_T_cvar_handle_alloc
#pragma weak MPI_T_cvar_handle_free = PMPI_T_cvar_handle_free
#pragma weak MPI_T_cvar_read = PMPI_T_cvar_read
#pragma weak MPI_T_cvar_write = PMPI_T_cvar_write
