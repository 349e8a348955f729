// MPI_T_category_*: the control variables grouped by what they tune, the
// performance variables by what they count, all under one root category.
// The set never changes while the process runs.
#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "tool/cvar_table.hpp"
#include "tool/tool.hpp"

namespace tern::mpi::tool {
namespace {

struct Category {
  const char* name;
  const char* description;
  std::vector<int> cvars;
  std::vector<int> pvars;
  std::vector<int> categories;
};

constexpr const char* kRootName = "tern";

std::vector<Category> make_categories() {
  std::vector<Category> out = {
      {kRootName, "Tern: its configuration (the TERN_* variables) and the counts of its engine.", {}, {}, {}},
      {"logging", "What Tern reports on stderr.", {}, {}, {}},
      {"transports", "Which transports carry messages and when messages go by rendezvous.", {}, {}, {}},
      {"shared memory", "The shared-memory transport: FIFO cells, rings, cross-memory attach, the shared arena.",
       {}, {}, {}},
      {"tag matching", "Matching of messages to receives: the matcher's queues and the tag-matching device.", {},
       {}, {}},
      {"progress", "Who progresses communication and how blocking calls wait.", {}, {}, {}},
      {"collectives", "How MPI collectives run.", {}, {}, {}},
      {"one-sided", "How MPI windows reach their targets' memory.", {}, {}, {}},
      {"progress agent", "Critical tags (held sends) and the per-host progress agents that carry them.", {}, {},
       {}},
      {"tcp", "The TCP transport: interfaces, protocol thresholds, socket options.", {}, {}, {}},
      {"bootstrap", "How a process finds its job at start-up, and what ternrun sets up for it.", {}, {}, {}},
      {"messages", "Messages this process sent, by transport, and malformed ones it dropped.", {}, {}, {}},
  };
  auto index_of = [&](std::string_view name) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (name == out[i].name) return static_cast<int>(i);
    }
    out.push_back({"other", "Variables of no group above.", {}, {}, {}});
    return static_cast<int>(out.size() - 1);
  };
  const auto& all_cvars = cvars();
  for (std::size_t i = 0; i < all_cvars.size(); ++i) {
    out[static_cast<std::size_t>(index_of(all_cvars[i].category))].cvars.push_back(static_cast<int>(i));
  }
  for (int i = 0; i < pvar_count(); ++i) out[static_cast<std::size_t>(index_of(pvar_category(i)))].pvars.push_back(i);
  for (std::size_t i = 1; i < out.size(); ++i) out[0].categories.push_back(static_cast<int>(i));
  return out;
}

const std::vector<Category>& categories() {
  static const std::vector<Category> kCategories = make_categories();
  return kCategories;
}

int category_count() { return static_cast<int>(categories().size()); }

// The category `cat_index` names, or null after logging why.
const Category* find_category(Call& call, int cat_index, int& error) {
  if (cat_index >= 0 && cat_index < category_count()) return &categories()[static_cast<std::size_t>(cat_index)];
  error = call.fail(MPI_T_ERR_INVALID_INDEX, "cat_index %d outside 0..%d", cat_index, category_count() - 1);
  return nullptr;
}

// The first `len` of `members` into `indices`.
int copy_indices(Call& call, const std::vector<int>& members, int len, int indices[]) {
  if (len < 0) return call.fail(MPI_T_ERR_INVALID, "negative len %d", len);
  if (len > 0 && indices == nullptr) return call.fail(MPI_T_ERR_INVALID, "null indices with len %d", len);
  const std::size_t n = std::min(members.size(), static_cast<std::size_t>(len));
  for (std::size_t i = 0; i < n; ++i) indices[i] = members[i];
  return MPI_SUCCESS;
}

int get_members(const char* function, int cat_index, int len, int indices[],
                const std::vector<int> Category::*members) {
  Call call(function);
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  int error = MPI_SUCCESS;
  const Category* category = find_category(call, cat_index, error);
  if (category == nullptr) return error;
  return copy_indices(call, category->*members, len, indices);
}

}  // namespace
}  // namespace tern::mpi::tool

using namespace tern::mpi;
using namespace tern::mpi::tool;

extern "C" {

int PMPI_T_category_get_num(int* num_cat) {
  Call call("MPI_T_category_get_num");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (num_cat == nullptr) return call.fail(MPI_T_ERR_INVALID, "null num_cat argument");
  *num_cat = category_count();
  return MPI_SUCCESS;
}

int PMPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc, int* desc_len, int* num_cvars,
                             int* num_pvars, int* num_categories) {
  Call call("MPI_T_category_get_info");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  int error = MPI_SUCCESS;
  const Category* category = find_category(call, cat_index, error);
  if (category == nullptr) return error;
  if (int err = copy_string(call, "name", category->name, name, name_len); err != MPI_SUCCESS) return err;
  if (int err = copy_string(call, "desc", category->description, desc, desc_len); err != MPI_SUCCESS) return err;
  if (num_cvars != nullptr) *num_cvars = static_cast<int>(category->cvars.size());
  if (num_pvars != nullptr) *num_pvars = static_cast<int>(category->pvars.size());
  if (num_categories != nullptr) *num_categories = static_cast<int>(category->categories.size());
  return MPI_SUCCESS;
}

int PMPI_T_category_get_num_events(int cat_index, int* num_events) {
  Call call("MPI_T_category_get_num_events");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  int error = MPI_SUCCESS;
  if (find_category(call, cat_index, error) == nullptr) return error;
  if (num_events == nullptr) return call.fail(MPI_T_ERR_INVALID, "null num_events argument");
  *num_events = 0;  // Tern defines no events
  return MPI_SUCCESS;
}

int PMPI_T_category_get_index(const char* name, int* cat_index) {
  Call call("MPI_T_category_get_index");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (name == nullptr || cat_index == nullptr) return call.fail(MPI_T_ERR_INVALID, "null name or cat_index");
  for (int index = 0; index < category_count(); ++index) {
    if (std::strcmp(categories()[static_cast<std::size_t>(index)].name, name) == 0) {
      *cat_index = index;
      return MPI_SUCCESS;
    }
  }
  return call.fail(MPI_T_ERR_INVALID_NAME, "no category is named '%s'", name);
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  return get_members("MPI_T_category_get_cvars", cat_index, len, indices, &Category::cvars);
}

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  return get_members("MPI_T_category_get_pvars", cat_index, len, indices, &Category::pvars);
}

int PMPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  return get_members("MPI_T_category_get_categories", cat_index, len, indices, &Category::categories);
}

int PMPI_T_category_get_events(int cat_index, int len, int indices[]) {
  static const std::vector<int> kNoEvents;
  Call call("MPI_T_category_get_events");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  int error = MPI_SUCCESS;
  if (find_category(call, cat_index, error) == nullptr) return error;
  return copy_indices(call, kNoEvents, len, indices);
}

int PMPI_T_category_changed(int* update_number) {
  Call call("MPI_T_category_changed");
  if (int err = call.check_initialized(); err != MPI_SUCCESS) return err;
  if (update_number == nullptr) return call.fail(MPI_T_ERR_INVALID, "null update_number argument");
  *update_number = 0;  // the categories never change
  return MPI_SUCCESS;
}

}  // extern "C"

#pragma weak MPI_T_category_get_num = PMPI_T_category_get_num
#pragma weak MPI_T_category_get_info = PMPI_T_category_get_info
#pragma weak MPI_T_category_get_num_events = PMPI_T_category_get_num_events
#pragma weak MPI_T_category_get_index = PMPI_T_category_get_index
#pragma weak MPI_T_category_get_cvars = PMPI_T_category_get_cvars
#pragma weak MPI_T_category_get_pvars = PMPI_T_category_get_pvars
#pragma weak MPI_T_category_get_categories = PMPI_T_category_get_categories
#pragma weak MPI_T_category_get_events = PMPI_T_category_get_events
#pragma weak MPI_T_category_changed = PMPI_T_category_changed
