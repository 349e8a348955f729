// MPI_Info_create_env (MPI 4.0): before and after MPI_Init, a new info
// object with MPI_INFO_ENV's keys; the given argc/argv name the command and
// its arguments; it is the caller's to change and free; bad arguments are
// MPI_ERR_ARG.
#include <cstring>
#include <string>
#include <vector>

#include "check.hpp"

namespace {

std::string value_of(MPI_Info info, const char* key) {
  char value[MPI_MAX_INFO_VAL + 1] = {};
  int flag = 0;
  if (MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag) != MPI_SUCCESS || !flag) return "<none>";
  return value;
}

std::vector<std::string> keys_of(MPI_Info info) {
  int n = 0;
  MPI_Info_get_nkeys(info, &n);
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) {
    char key[MPI_MAX_INFO_KEY + 1] = {};
    MPI_Info_get_nthkey(info, i, key);
    keys.emplace_back(key);
  }
  return keys;
}

}  // namespace

int main(int argc, char** argv) {
  // Before MPI_Init: the program's own argc/argv.
  char program[] = "/opt/app/solver";
  char first[] = "--grid";
  char second[] = "64";
  char* fake_argv[] = {program, first, second, nullptr};
  MPI_Info early = MPI_INFO_NULL;
  const int early_rc = MPI_Info_create_env(3, fake_argv, &early);
  const bool early_bad_arg = MPI_Info_create_env(0, nullptr, nullptr) == MPI_ERR_ARG;

  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(early_rc == MPI_SUCCESS && early != MPI_INFO_NULL && early != MPI_INFO_ENV);
  CHECK(early_bad_arg);
  CHECK(value_of(early, "command") == "/opt/app/solver");
  CHECK(value_of(early, "argv") == "--grid 64");
  CHECK(value_of(early, "wdir") != "<none>");

  // After MPI_Init without argv: the keys of MPI_INFO_ENV, same values.
  MPI_Info env = MPI_INFO_NULL;
  CHECK(MPI_Info_create_env(0, nullptr, &env) == MPI_SUCCESS && env != MPI_INFO_ENV);
  const std::vector<std::string> keys = keys_of(env);
  CHECK(keys == keys_of(MPI_INFO_ENV));
  for (const std::string& key : keys) CHECK(value_of(env, key.c_str()) == value_of(MPI_INFO_ENV, key.c_str()));
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(value_of(env, "maxprocs") == std::to_string(size));
  CHECK(value_of(env, "command") != "<none>");

  // The new object is the caller's: it changes without touching MPI_INFO_ENV.
  CHECK(MPI_Info_set(env, "command", "changed") == MPI_SUCCESS);
  CHECK(value_of(env, "command") == "changed" && value_of(MPI_INFO_ENV, "command") != "changed");
  CHECK(MPI_Info_free(&env) == MPI_SUCCESS && env == MPI_INFO_NULL);
  CHECK(MPI_Info_free(&early) == MPI_SUCCESS);

  MPI_Info unused = MPI_INFO_NULL;
  CHECK(MPI_Info_create_env(1, nullptr, &unused) == MPI_ERR_ARG);
  CHECK(MPI_Info_create_env(-1, argv, &unused) == MPI_ERR_ARG);
  CHECK(MPI_Info_create_env(argc, argv, nullptr) == MPI_ERR_ARG);

  const int rc = tern::mpi_test::conclude("mpi_info_env");
  MPI_Finalize();
  return rc;
}
