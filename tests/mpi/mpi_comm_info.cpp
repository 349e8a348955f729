// Communicator properties and Info objects: Comm_test_inter, names,
// MPI_Info calls (MPI 4's get_string too), MPI_INFO_ENV, the errors of
// MPI_INFO_NULL and missing keys, hints on communicators, and the small
// environment calls (processor name, Wtick, Pcontrol, thread queries).
#include <cstring>
#include <string>

#include "check.hpp"

namespace {

int rank = 0;
int size = 0;

void communicator_properties() {
  int flag = -1;
  CHECK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag) == MPI_SUCCESS && flag == 0);
  CHECK(MPI_Comm_test_inter(MPI_COMM_SELF, &flag) == MPI_SUCCESS && flag == 0);
  char name[MPI_MAX_OBJECT_NAME];
  int length = -1;
  CHECK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &length) == MPI_SUCCESS);
  CHECK(std::strcmp(name, "MPI_COMM_WORLD") == 0 && length == 14);
  CHECK(MPI_Comm_get_name(MPI_COMM_SELF, name, &length) == MPI_SUCCESS && std::strcmp(name, "MPI_COMM_SELF") == 0);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  CHECK(MPI_Comm_get_name(dup, name, &length) == MPI_SUCCESS && length == 0 && name[0] == '\0');
  CHECK(MPI_Comm_set_name(dup, "solver") == MPI_SUCCESS);
  CHECK(MPI_Comm_get_name(dup, name, &length) == MPI_SUCCESS && std::strcmp(name, "solver") == 0 && length == 6);
  const std::string long_name(500, 'x');
  CHECK(MPI_Comm_set_name(dup, long_name.c_str()) == MPI_SUCCESS);
  CHECK(MPI_Comm_get_name(dup, name, &length) == MPI_SUCCESS && length == MPI_MAX_OBJECT_NAME - 1);
  CHECK(MPI_Comm_test_inter(dup, &flag) == MPI_SUCCESS && flag == 0);
  MPI_Comm_free(&dup);
  CHECK(MPI_Comm_test_inter(dup, &flag) == MPI_ERR_COMM);  // freed (MPI_COMM_NULL)
}

void info_objects() {
  MPI_Info info;
  CHECK(MPI_Info_create(&info) == MPI_SUCCESS && info != MPI_INFO_NULL);
  int nkeys = -1;
  CHECK(MPI_Info_get_nkeys(info, &nkeys) == MPI_SUCCESS && nkeys == 0);
  CHECK(MPI_Info_set(info, "alpha", "1") == MPI_SUCCESS);
  CHECK(MPI_Info_set(info, "beta", "two words") == MPI_SUCCESS);
  CHECK(MPI_Info_set(info, "gamma", "3") == MPI_SUCCESS);
  CHECK(MPI_Info_set(info, "alpha", "one") == MPI_SUCCESS);  // replaces, keeps its place
  CHECK(MPI_Info_get_nkeys(info, &nkeys) == MPI_SUCCESS && nkeys == 3);
  char key[MPI_MAX_INFO_KEY + 1];
  const char* expected_keys[] = {"alpha", "beta", "gamma"};
  for (int i = 0; i < 3; ++i) {
    CHECK(MPI_Info_get_nthkey(info, i, key) == MPI_SUCCESS && std::strcmp(key, expected_keys[i]) == 0);
  }
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = -1;
  CHECK(MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS);
  CHECK(flag == 1 && std::strcmp(value, "one") == 0);
  CHECK(MPI_Info_get(info, "beta", 3, value, &flag) == MPI_SUCCESS && flag == 1 && std::strcmp(value, "two") == 0);
  CHECK(MPI_Info_get(info, "delta", MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS && flag == 0);
  int length = -1;
  CHECK(MPI_Info_get_valuelen(info, "beta", &length, &flag) == MPI_SUCCESS && flag == 1 && length == 9);
  CHECK(MPI_Info_get_valuelen(info, "delta", &length, &flag) == MPI_SUCCESS && flag == 0);
  // get_string: buflen in is the room, out is the length plus one.
  int buflen = 0;
  CHECK(MPI_Info_get_string(info, "beta", &buflen, nullptr, &flag) == MPI_SUCCESS && flag == 1 && buflen == 10);
  buflen = 4;
  CHECK(MPI_Info_get_string(info, "beta", &buflen, value, &flag) == MPI_SUCCESS);
  CHECK(flag == 1 && buflen == 10 && std::strcmp(value, "two") == 0);
  buflen = sizeof(value);
  CHECK(MPI_Info_get_string(info, "beta", &buflen, value, &flag) == MPI_SUCCESS && std::strcmp(value, "two words") == 0);
  CHECK(MPI_Info_get_string(info, "delta", &buflen, value, &flag) == MPI_SUCCESS && flag == 0);
  MPI_Info copy;
  CHECK(MPI_Info_dup(info, &copy) == MPI_SUCCESS && copy != info);
  CHECK(MPI_Info_delete(info, "beta") == MPI_SUCCESS);
  CHECK(MPI_Info_get_nkeys(info, &nkeys) == MPI_SUCCESS && nkeys == 2);
  CHECK(MPI_Info_get_nthkey(info, 1, key) == MPI_SUCCESS && std::strcmp(key, "gamma") == 0);
  CHECK(MPI_Info_get_nkeys(copy, &nkeys) == MPI_SUCCESS && nkeys == 3);  // the copy is its own
  CHECK(MPI_Info_get(copy, "beta", MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS && flag == 1);
  // Errors (MPI_ERRORS_RETURN is set on MPI_COMM_WORLD by main).
  CHECK(MPI_Info_delete(info, "beta") == MPI_ERR_INFO_NOKEY);
  CHECK(MPI_Info_get_nthkey(info, 2, key) == MPI_ERR_ARG);
  CHECK(MPI_Info_set(info, "", "x") == MPI_ERR_INFO_KEY);
  const std::string long_key(MPI_MAX_INFO_KEY + 1, 'k');
  CHECK(MPI_Info_set(info, long_key.c_str(), "x") == MPI_ERR_INFO_KEY);
  const std::string long_value(MPI_MAX_INFO_VAL + 1, 'v');
  CHECK(MPI_Info_set(info, "key", long_value.c_str()) == MPI_ERR_INFO_VALUE);
  CHECK(MPI_Info_set(MPI_INFO_NULL, "key", "x") == MPI_ERR_INFO);
  CHECK(MPI_Info_get_nkeys(MPI_INFO_NULL, &nkeys) == MPI_ERR_INFO);
  CHECK(MPI_Info_get(MPI_INFO_NULL, "key", 4, value, &flag) == MPI_ERR_INFO);
  CHECK(MPI_Info_dup(MPI_INFO_NULL, &copy) == MPI_ERR_INFO);
  MPI_Info null_info = MPI_INFO_NULL;
  CHECK(MPI_Info_free(&null_info) == MPI_ERR_INFO);
  MPI_Info stale = copy;
  CHECK(MPI_Info_free(&copy) == MPI_SUCCESS && copy == MPI_INFO_NULL);
  CHECK(MPI_Info_get_nkeys(stale, &nkeys) == MPI_ERR_INFO);  // freed: refused, not reused
  CHECK(MPI_Info_free(&info) == MPI_SUCCESS);
  char text[MPI_MAX_ERROR_STRING];
  CHECK(MPI_Error_string(MPI_ERR_INFO_NOKEY, text, &length) == MPI_SUCCESS && std::strstr(text, "INFO_NOKEY") != nullptr);
}

void info_env() {
  int nkeys = 0;
  CHECK(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys) == MPI_SUCCESS && nkeys >= 3);
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  CHECK(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS);
  CHECK(flag == 1 && std::stoi(value) == size);
  CHECK(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS);
  CHECK(flag == 1 && std::strstr(value, "mpi_comm_info") != nullptr);
  CHECK(MPI_Info_get(MPI_INFO_ENV, "thread_level", MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS);
  CHECK(flag == 1 && std::strcmp(value, "MPI_THREAD_FUNNELED") == 0);
  CHECK(MPI_Info_set(MPI_INFO_ENV, "key", "x") == MPI_ERR_INFO);  // read-only
  MPI_Info env = MPI_INFO_ENV;
  CHECK(MPI_Info_free(&env) == MPI_ERR_INFO);
  MPI_Info copy;
  CHECK(MPI_Info_dup(MPI_INFO_ENV, &copy) == MPI_SUCCESS);
  CHECK(MPI_Info_set(copy, "key", "x") == MPI_SUCCESS);
  MPI_Info_free(&copy);
}

void communicator_hints() {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
  MPI_Comm dup;
  CHECK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dup) == MPI_SUCCESS);
  MPI_Info_free(&info);
  MPI_Info used;
  CHECK(MPI_Comm_get_info(dup, &used) == MPI_SUCCESS);
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  CHECK(MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS);
  CHECK(flag == 1 && std::strcmp(value, "true") == 0);
  MPI_Info_free(&used);
  MPI_Info more;
  MPI_Info_create(&more);
  MPI_Info_set(more, "mpi_assert_exact_length", "false");
  CHECK(MPI_Comm_set_info(dup, more) == MPI_SUCCESS);
  const MPI_Info stale = more;
  MPI_Info_free(&more);
  // A duplicate keeps the hints.
  MPI_Comm second;
  MPI_Comm_dup(dup, &second);
  CHECK(MPI_Comm_get_info(second, &used) == MPI_SUCCESS);
  int nkeys = 0;
  CHECK(MPI_Info_get_nkeys(used, &nkeys) == MPI_SUCCESS && nkeys == 2);
  MPI_Info_free(&used);
  // The duplicate works as a communicator.
  int sum = 0;
  const int one = 1;
  CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, second) == MPI_SUCCESS && sum == size);
  // MPI_INFO_NULL is no hints; a freed info object is refused.
  MPI_Comm plain;
  CHECK(MPI_Comm_dup_with_info(second, MPI_INFO_NULL, &plain) == MPI_SUCCESS);
  CHECK(MPI_Comm_get_info(plain, &used) == MPI_SUCCESS);
  CHECK(MPI_Info_get_nkeys(used, &nkeys) == MPI_SUCCESS && nkeys == 0);
  MPI_Info_free(&used);
  CHECK(MPI_Comm_set_info(second, MPI_INFO_NULL) == MPI_SUCCESS);
  CHECK(MPI_Comm_set_info(second, stale) == MPI_ERR_INFO);
  MPI_Comm_free(&plain);
  MPI_Comm_free(&second);
  MPI_Comm_free(&dup);
}

void environment() {
  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  CHECK(MPI_Get_processor_name(name, &length) == MPI_SUCCESS);
  CHECK(length > 0 && length == static_cast<int>(std::strlen(name)));
  const double tick = MPI_Wtick();
  CHECK(tick > 0 && tick <= 0.01);
  CHECK(MPI_Pcontrol(1) == MPI_SUCCESS);
  CHECK(MPI_Pcontrol(0, "ignored", 3) == MPI_SUCCESS);
  int provided = -1;
  CHECK(MPI_Query_thread(&provided) == MPI_SUCCESS && provided == MPI_THREAD_FUNNELED);
  int main_thread = 0;
  CHECK(MPI_Is_thread_main(&main_thread) == MPI_SUCCESS && main_thread == 1);
}

}  // namespace

int main(int argc, char** argv) {
  // Info calls work before MPI_Init; MPI_INFO_ENV learns the job after it.
  MPI_Info early;
  int early_keys = -1, early_flag = -1;
  CHECK(MPI_Info_create(&early) == MPI_SUCCESS && MPI_Info_set(early, "k", "v") == MPI_SUCCESS);
  CHECK(MPI_Info_get_nkeys(early, &early_keys) == MPI_SUCCESS && early_keys == 1);
  CHECK(MPI_Info_get_valuelen(MPI_INFO_ENV, "maxprocs", &early_keys, &early_flag) == MPI_SUCCESS && early_flag == 0);
  CHECK(MPI_Info_free(&early) == MPI_SUCCESS);
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  communicator_properties();
  info_objects();
  info_env();
  communicator_hints();
  environment();
  const int code = tern::mpi_test::conclude("mpi_comm_info");
  MPI_Finalize();
  return code;
}
