// MPI_T_source_* and MPI_T_event_*: one source of timestamps, the process's
// monotonic clock, and no events. With no event there is no valid event
// index, name, registration or instance, so those calls return the error
// the standard names for each bad argument.
#include <climits>
#include <ctime>

#include "tool/tool.hpp"

namespace tern::mpi::tool {
namespace {

constexpr int kSourceCount = 1;
constexpr const char* kSourceName = "tern_monotonic_clock";
constexpr const char* kSourceDescription =
    "The process's monotonic clock (CLOCK_MONOTONIC) in nanoseconds; it never goes back.";

int check_source(Call& call, int source_index) {
  if (source_index >= 0 && source_index < kSourceCount) return MPI_SUCCESS;
  return call.fail(MPI_T_ERR_INVALID_INDEX, "source_index %d outside 0..%d", source_index, kSourceCount - 1);
}

int no_event(Call& call, int event_index) {
  return call.fail(MPI_T_ERR_INVALID_INDEX, "event_index %d: Tern defines no events", event_index);
}

int no_registration(Call& call, MPI_T_event_registration registration) {
  return call.fail(MPI_T_ERR_INVALID_HANDLE, "invalid event_registration %d: Tern defines no events", registration);
}

int no_instance(Call& call, MPI_T_event_instance instance) {
  return call.fail(MPI_T_ERR_INVALID_HANDLE, "invalid event_instance %d: Tern defines no events", instance);
}

}  // namespace
}  // namespace tern::mpi::tool

using namespace tern::mpi;
using namespace tern::mpi::tool;

extern "C" {

int PMPI_T_source_get_num(int* num_sources) {
  Call call("MPI_T_source_get_num");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (num_sources == nullptr) return call.fail(MPI_T_ERR_INVALID, "null num_sources argument");
  *num_sources = kSourceCount;
  return MPI_SUCCESS;
}

int PMPI_T_source_get_info(int source_index, char* name, int* name_len, char* desc, int* desc_len,
                           MPI_T_source_order* ordering, MPI_Count* ticks_per_second, MPI_Count* max_ticks,
                           MPI_Info* info) {
  Call call("MPI_T_source_get_info");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (int err = check_source(call, source_index); err != MPI_SUCCESS) return err;
  if (int err = copy_string(call, "name", kSourceName, name, name_len); err != MPI_SUCCESS) return err;
  if (int err = copy_string(call, "desc", kSourceDescription, desc, desc_len); err != MPI_SUCCESS) return err;
  if (ordering != nullptr) *ordering = MPI_T_SOURCE_ORDERED;
  if (ticks_per_second != nullptr) *ticks_per_second = 1000000000;
  if (max_ticks != nullptr) *max_ticks = LLONG_MAX;
  if (info != nullptr) *info = MPI_INFO_NULL;  // no hints
  return MPI_SUCCESS;
}

int PMPI_T_source_get_timestamp(int source_index, MPI_Count* timestamp) {
  Call call("MPI_T_source_get_timestamp");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (int err = check_source(call, source_index); err != MPI_SUCCESS) return err;
  if (timestamp == nullptr) return call.fail(MPI_T_ERR_INVALID, "null timestamp argument");
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  *timestamp = static_cast<MPI_Count>(now.tv_sec) * 1000000000 + now.tv_nsec;
  return MPI_SUCCESS;
}

int PMPI_T_event_get_num(int* num_events) {
  Call call("MPI_T_event_get_num");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (num_events == nullptr) return call.fail(MPI_T_ERR_INVALID, "null num_events argument");
  *num_events = 0;
  return MPI_SUCCESS;
}

int PMPI_T_event_get_info(int event_index, char* name, int* name_len, int* verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[], int* num_elements,
                          MPI_T_enum* enumtype, MPI_Info* info, char* desc, int* desc_len, int* bind) {
  Call call("MPI_T_event_get_info");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  (void)name, (void)name_len, (void)verbosity, (void)array_of_datatypes, (void)array_of_displacements;
  (void)num_elements, (void)enumtype, (void)info, (void)desc, (void)desc_len, (void)bind;
  return no_event(call, event_index);
}

int PMPI_T_event_get_index(const char* name, int* event_index) {
  Call call("MPI_T_event_get_index");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (name == nullptr || event_index == nullptr) return call.fail(MPI_T_ERR_INVALID, "null name or event_index");
  return call.fail(MPI_T_ERR_INVALID_NAME, "no event is named '%s': Tern defines no events", name);
}

int PMPI_T_event_handle_alloc(int event_index, void* obj_handle, MPI_Info info,
                              MPI_T_event_registration* event_registration) {
  Call call("MPI_T_event_handle_alloc");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  (void)obj_handle, (void)info, (void)event_registration;
  return no_event(call, event_index);
}

int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info) {
  Call call("MPI_T_event_handle_set_info");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  (void)info;
  return no_registration(call, event_registration);
}

int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info* info_used) {
  Call call("MPI_T_event_handle_get_info");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  (void)info_used;
  return no_registration(call, event_registration);
}

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info info, void* user_data, MPI_T_event_cb_function event_cb_function) {
  Call call("MPI_T_event_register_callback");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  (void)cb_safety, (void)info, (void)user_data, (void)event_cb_function;
  return no_registration(call, event_registration);
}

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info info) {
  Call call("MPI_T_event_callback_set_info");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  (void)cb_safety, (void)info;
  return no_registration(call, event_registration);
}

int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info* info_used) {
  Call call("MPI_T_event_callback_get_info");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  (void)cb_safety, (void)info_used;
  return no_registration(call, event_registration);
}

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void* user_data,
                             MPI_T_event_free_cb_function free_cb_function) {
  Call call("MPI_T_event_handle_free");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  (void)user_data, (void)free_cb_function;
  return no_registration(call, event_registration);
}

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function dropped_cb_function) {
  Call call("MPI_T_event_set_dropped_handler");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  (void)dropped_cb_function;
  return no_registration(call, event_registration);
}

int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void* buffer) {
  Call call("MPI_T_event_read");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  (void)element_index, (void)buffer;
  return no_instance(call, event_instance);
}

int PMPI_T_event_copy(MPI_T_event_instance event_instance, void* buffer) {
  Call call("MPI_T_event_copy");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  (void)buffer;
  return no_instance(call, event_instance);
}

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count* event_timestamp) {
  Call call("MPI_T_event_get_timestamp");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  (void)event_timestamp;
  return no_instance(call, event_instance);
}

int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int* source_index) {
  Call call("MPI_T_event_get_source");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  (void)source_index;
  return no_instance(call, event_instance);
}

}  // extern "C"

#pragma weak MPI_T_source_get_num = PMPI_T_source_get_num
#pragma weak MPI_T_source_get_info = PMPI_T_source_get_info
#pragma weak MPI_T_source_get_timestamp = PMPI_T_source_get_timestamp
#pragma weak MPI_T_event_get_num = PMPI_T_event_get_num
#pragma weak MPI_T_event_get_info = PMPI_T_event_get_info
#pragma weak MPI_T_event_get_index = PMPI_T_event_get_index
#pragma weak MPI_T_event_handle_alloc = PMPI_T_event_handle_alloc
#pragma weak MPI_T_event_handle_set_info = PMPI_T_event_handle_set_info
#pragma weak MPI_T_event_handle_get_info = PMPI_T_event_handle_get_info
#pragma weak MPI_T_event_register_callback = PMPI_T_event_register_callback
#pragma weak MPI_T_event_callback_set_info = PMPI_T_event_callback_set_info
#pragma weak MPI_T_event_callback_get_info = PMPI_T_event_callback_get_info
#pragma weak MPI_T_event_handle_free = PMPI_T_event_handle_free
#pragma weak MPI_T_event_set_dropped_handler = PMPI_T_event_set_dropped_handler
#pragma weak MPI_T_event_read = PMPI_T_event_read
#pragma weak MPI_T_event_copy = PMPI_T_event_copy
#pragma weak MPI_T_event_get_timestamp = PMPI_T_event_get_timestamp
#pragma weak MPI_T_event_get_source = PMPI_T_event_get_source
