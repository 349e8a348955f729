// MPI_Comm_spawn and MPI_Comm_spawn_multiple from Fortran: the argument
// lists are arrays of CHARACTER(len=*) strings, each list ended by a blank
// one (MPI_ARGV_NULL and MPI_ARGVS_NULL: none), made C's null-terminated
// char* arrays; MPI_ERRCODES_IGNORE is a sentinel. Tern refuses both calls
// after checking their arguments (api-mpi/src/comm/dynamic.cpp).
#include "fortran_support.hpp"

namespace {

// The strings of one list: `stride` strings apart from `first`, up to the
// first blank one.
struct ArgumentList {
  std::vector<std::string> words;
  std::vector<char*> pointers;  // into `words`, null-terminated
  void read(const char* first, std::size_t length, std::size_t stride) {
    for (const char* word = first;; word += stride * length) {
      std::string text = tern::fortran::trimmed(word, length);
      if (text.empty()) break;
      words.push_back(std::move(text));
    }
    for (std::string& word : words) pointers.push_back(word.data());
    pointers.push_back(nullptr);
  }
};

bool is_argv_null(const void* argv) { return argv == tern_mpi_argv_null_ || argv == tern_mpi_argvs_null_; }

int* errcodes(MPI_Fint* array) { return array == tern_mpi_errcodes_ignore_ ? MPI_ERRCODES_IGNORE : array; }

}  // namespace

extern "C" {

void pmpi_comm_spawn_(const char* command, const char* argv, const MPI_Fint* maxprocs, const MPI_Fint* info,
                      const MPI_Fint* root, const MPI_Fint* comm, MPI_Fint* intercomm, MPI_Fint* array_of_errcodes,
                      MPI_Fint* ierror, std::size_t command_len, std::size_t argv_len) {
  const std::string command_c = tern::fortran::trimmed(command, command_len);
  ArgumentList arguments;
  if (!is_argv_null(argv)) arguments.read(argv, argv_len, 1);
  const int rc = PMPI_Comm_spawn(command_c.c_str(), is_argv_null(argv) ? MPI_ARGV_NULL : arguments.pointers.data(),
                                 *maxprocs, *info, *root, *comm, intercomm, errcodes(array_of_errcodes));
  tern::fortran::set_error(ierror, rc);
}
TERN_FORTRAN_WEAK_ALIAS(comm_spawn)

// ARRAY_OF_ARGV(count, *): command i's arguments are its row, a column
// (count strings) apart.
void pmpi_comm_spawn_multiple_(const MPI_Fint* count, const char* array_of_commands, const char* array_of_argv,
                               const MPI_Fint* array_of_maxprocs, const MPI_Fint* array_of_info, const MPI_Fint* root,
                               const MPI_Fint* comm, MPI_Fint* intercomm, MPI_Fint* array_of_errcodes,
                               MPI_Fint* ierror, std::size_t commands_len, std::size_t argv_len) {
  const int n = *count > 0 ? *count : 0;
  std::vector<std::string> commands;
  std::vector<char*> command_pointers;
  std::vector<ArgumentList> arguments(static_cast<std::size_t>(n));
  std::vector<char**> argv_pointers;
  for (int i = 0; i < n; ++i) {
    commands.push_back(tern::fortran::trimmed(array_of_commands + static_cast<std::size_t>(i) * commands_len,
                                              commands_len));
    if (!is_argv_null(array_of_argv)) {
      arguments[static_cast<std::size_t>(i)].read(array_of_argv + static_cast<std::size_t>(i) * argv_len, argv_len,
                                                   static_cast<std::size_t>(n));
    }
  }
  for (std::string& command : commands) command_pointers.push_back(command.data());
  for (ArgumentList& list : arguments) argv_pointers.push_back(list.pointers.data());
  const int rc = PMPI_Comm_spawn_multiple(*count, command_pointers.data(),
                                          is_argv_null(array_of_argv) ? MPI_ARGVS_NULL : argv_pointers.data(),
                                          array_of_maxprocs, array_of_info, *root, *comm, intercomm,
                                          errcodes(array_of_errcodes));
  tern::fortran::set_error(ierror, rc);
}
TERN_FORTRAN_WEAK_ALIAS(comm_spawn_multiple)

}  // extern "C"
