// User error handlers on communicators, windows and files (called by the
// failing call and by MPI_*_call_errhandler, with the object's handle and
// the code), and user error classes, codes and strings.
#include <cstring>
#include <string>

#include "check.hpp"
#include "io_tempdir.hpp"

namespace {

// What the last handler call saw; handlers of all three kinds record here.
struct Seen {
  int calls = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Win win = MPI_WIN_NULL;
  MPI_File file = MPI_FILE_NULL;
  int code = MPI_SUCCESS;
};
Seen seen;

void on_comm(MPI_Comm* comm, int* code, ...) {
  ++seen.calls;
  seen.comm = *comm;
  seen.code = *code;
}

void on_win(MPI_Win* win, int* code, ...) {
  ++seen.calls;
  seen.win = *win;
  seen.code = *code;
}

void on_file(MPI_File* file, int* code, ...) {
  ++seen.calls;
  seen.file = *file;
  seen.code = *code;
}

int class_of(int code) { return tern::mpi_test::error_class(code); }

void communicators(int rank, int size) {
  MPI_Comm comm = MPI_COMM_NULL;
  CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm) == MPI_SUCCESS);
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  CHECK(MPI_Comm_create_errhandler(&on_comm, &handler) == MPI_SUCCESS);
  CHECK(handler != MPI_ERRHANDLER_NULL);
  CHECK(MPI_Comm_set_errhandler(comm, handler) == MPI_SUCCESS);

  // A failing call runs the handler with the communicator and its code, then returns the code.
  seen = Seen{};
  int value = rank;
  const int err = MPI_Send(&value, 1, MPI_INT, size + 2, 0, comm);
  CHECK(err != MPI_SUCCESS && class_of(err) == MPI_ERR_RANK);
  CHECK(seen.calls == 1 && seen.comm == comm && seen.code == err);
  seen = Seen{};
  CHECK(class_of(MPI_Bcast(&value, 1, MPI_INT, -7, comm)) == MPI_ERR_ROOT);
  CHECK(seen.calls == 1 && seen.comm == comm && class_of(seen.code) == MPI_ERR_ROOT);

  // MPI_Comm_call_errhandler hands the code over as it is and returns MPI_SUCCESS.
  seen = Seen{};
  CHECK(MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER) == MPI_SUCCESS);
  CHECK(seen.calls == 1 && seen.comm == comm && seen.code == MPI_ERR_OTHER);

  // get returns the handler (one more reference); the communicator keeps it after the frees.
  MPI_Errhandler got = MPI_ERRHANDLER_NULL;
  CHECK(MPI_Comm_get_errhandler(comm, &got) == MPI_SUCCESS && got == handler);
  CHECK(MPI_Errhandler_free(&got) == MPI_SUCCESS && got == MPI_ERRHANDLER_NULL);
  // A duplicate inherits it.
  MPI_Comm copy = MPI_COMM_NULL;
  CHECK(MPI_Comm_dup(comm, &copy) == MPI_SUCCESS);
  CHECK(MPI_Errhandler_free(&handler) == MPI_SUCCESS && handler == MPI_ERRHANDLER_NULL);
  seen = Seen{};
  CHECK(class_of(MPI_Send(&value, 1, MPI_INT, 0, -3, copy)) == MPI_ERR_TAG);
  CHECK(seen.calls == 1 && seen.comm == copy && class_of(seen.code) == MPI_ERR_TAG);
  seen = Seen{};
  CHECK(MPI_Comm_call_errhandler(comm, MPI_ERR_COUNT) == MPI_SUCCESS);
  CHECK(seen.calls == 1 && seen.comm == comm && seen.code == MPI_ERR_COUNT);

  // Back to MPI_ERRORS_RETURN: no more calls.
  CHECK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) == MPI_SUCCESS);
  seen = Seen{};
  CHECK(class_of(MPI_Send(&value, 1, MPI_INT, size, 0, comm)) == MPI_ERR_RANK);
  CHECK(seen.calls == 0);

  CHECK(MPI_Comm_free(&copy) == MPI_SUCCESS);
  CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS);
}

void windows(int rank, int size) {
  int memory[4] = {};
  MPI_Win win = MPI_WIN_NULL;
  CHECK(MPI_Win_create(memory, sizeof(memory), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  CHECK(MPI_Win_create_errhandler(&on_win, &handler) == MPI_SUCCESS);
  CHECK(MPI_Win_set_errhandler(win, handler) == MPI_SUCCESS);
  MPI_Errhandler got = MPI_ERRHANDLER_NULL;
  CHECK(MPI_Win_get_errhandler(win, &got) == MPI_SUCCESS && got == handler);
  CHECK(MPI_Errhandler_free(&got) == MPI_SUCCESS);
  CHECK(MPI_Errhandler_free(&handler) == MPI_SUCCESS);

  CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
  seen = Seen{};
  const int one = 1;
  const int err = MPI_Put(&one, 1, MPI_INT, size + 1, 0, 1, MPI_INT, win);
  CHECK(class_of(err) == MPI_ERR_RANK);
  CHECK(seen.calls == 1 && seen.win == win && seen.code == err);
  CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);

  seen = Seen{};
  CHECK(MPI_Win_call_errhandler(win, MPI_ERR_RMA_SYNC) == MPI_SUCCESS);
  CHECK(seen.calls == 1 && seen.win == win && seen.code == MPI_ERR_RMA_SYNC);

  // A communicator's handler is not a window's.
  MPI_Errhandler comm_handler = MPI_ERRHANDLER_NULL;
  CHECK(MPI_Comm_create_errhandler(&on_comm, &comm_handler) == MPI_SUCCESS);
  seen = Seen{};
  CHECK(MPI_Win_set_errhandler(win, comm_handler) != MPI_SUCCESS);
  CHECK(seen.calls == 1 && seen.win == win);  // refused on the window, whose handler says so
  CHECK(MPI_Errhandler_free(&comm_handler) == MPI_SUCCESS);
  CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN) == MPI_SUCCESS);
  (void)rank;
  CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
}

void files(int rank) {
  tern::mpi_test::IoTempDir dir;
  CHECK(dir.ok());
  const std::string path = dir.file("user_errors.dat");
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  CHECK(MPI_File_create_errhandler(&on_file, &handler) == MPI_SUCCESS);

  // MPI_FILE_NULL's handler takes the errors of calls without a file (a failed open).
  CHECK(MPI_File_set_errhandler(MPI_FILE_NULL, handler) == MPI_SUCCESS);
  seen = Seen{};
  MPI_File fh = MPI_FILE_NULL;
  const std::string missing = dir.file("missing.dat");
  const int open_err = MPI_File_open(MPI_COMM_WORLD, missing.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK(class_of(open_err) == MPI_ERR_NO_SUCH_FILE);
  CHECK(seen.calls == 1 && seen.file == MPI_FILE_NULL && seen.code == open_err);
  CHECK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN) == MPI_SUCCESS);

  CHECK(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) ==
        MPI_SUCCESS);
  CHECK(MPI_File_set_errhandler(fh, handler) == MPI_SUCCESS);
  CHECK(MPI_Errhandler_free(&handler) == MPI_SUCCESS);
  seen = Seen{};
  const int err = MPI_File_seek(fh, 0, 12345);
  CHECK(err != MPI_SUCCESS);
  CHECK(seen.calls == 1 && seen.file == fh && seen.code == err);
  seen = Seen{};
  CHECK(MPI_File_call_errhandler(fh, MPI_ERR_IO) == MPI_SUCCESS);
  CHECK(seen.calls == 1 && seen.file == fh && seen.code == MPI_ERR_IO);
  MPI_Errhandler got = MPI_ERRHANDLER_NULL;
  CHECK(MPI_File_get_errhandler(fh, &got) == MPI_SUCCESS && got != MPI_ERRORS_RETURN);
  CHECK(MPI_Errhandler_free(&got) == MPI_SUCCESS);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  (void)rank;
}

void error_codes() {
  int first_class = -1;
  CHECK(MPI_Add_error_class(&first_class) == MPI_SUCCESS);
  CHECK(first_class > MPI_ERR_LASTCODE);
  int code_a = -1;
  int code_b = -1;
  CHECK(MPI_Add_error_code(first_class, &code_a) == MPI_SUCCESS);
  CHECK(MPI_Add_error_code(first_class, &code_b) == MPI_SUCCESS);
  CHECK(code_a != code_b && code_a != first_class && code_a > MPI_ERR_LASTCODE);
  int second_class = -1;
  CHECK(MPI_Add_error_class(&second_class) == MPI_SUCCESS);
  CHECK(second_class != first_class && second_class > MPI_ERR_LASTCODE);
  // A new code of a predefined class.
  int arg_code = -1;
  CHECK(MPI_Add_error_code(MPI_ERR_ARG, &arg_code) == MPI_SUCCESS);

  CHECK(class_of(first_class) == first_class);
  CHECK(class_of(code_a) == first_class && class_of(code_b) == first_class);
  CHECK(class_of(second_class) == second_class);
  CHECK(class_of(arg_code) == MPI_ERR_ARG);

  CHECK(MPI_Add_error_string(first_class, "the first class") == MPI_SUCCESS);
  CHECK(MPI_Add_error_string(code_a, "code a of the first class") == MPI_SUCCESS);
  CHECK(MPI_Add_error_string(code_a, "code a, said again") == MPI_SUCCESS);
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = -1;
  CHECK(MPI_Error_string(first_class, text, &length) == MPI_SUCCESS);
  CHECK(std::strcmp(text, "the first class") == 0 && length == 15);
  CHECK(MPI_Error_string(code_a, text, &length) == MPI_SUCCESS);
  CHECK(std::strcmp(text, "code a, said again") == 0 && length == 18);
  // Predefined strings stay.
  CHECK(MPI_Error_string(MPI_ERR_TAG, text, &length) == MPI_SUCCESS && length > 0);

  // MPI_LASTUSEDCODE covers every class added (MPICH's codes carry their
  // class in high bits, so only classes compare across implementations).
  int* last = nullptr;
  int flag = 0;
  CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag) == MPI_SUCCESS && flag == 1);
  CHECK(last != nullptr && *last >= first_class && *last >= second_class);
  const int before = *last;
  int third_class = -1;
  CHECK(MPI_Add_error_class(&third_class) == MPI_SUCCESS);
  CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag) == MPI_SUCCESS && flag == 1);
  CHECK(*last > before && *last >= third_class);

  // A user code raised on a communicator reaches its handler as it is.
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  CHECK(MPI_Comm_create_errhandler(&on_comm, &handler) == MPI_SUCCESS);
  CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, handler) == MPI_SUCCESS);
  seen = Seen{};
  CHECK(MPI_Comm_call_errhandler(MPI_COMM_SELF, code_b) == MPI_SUCCESS);
  CHECK(seen.calls == 1 && seen.comm == MPI_COMM_SELF && seen.code == code_b && class_of(seen.code) == first_class);
  CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
  CHECK(MPI_Errhandler_free(&handler) == MPI_SUCCESS);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  communicators(rank, size);
  windows(rank, size);
  files(rank);
  error_codes();
  const int result = tern::mpi_test::conclude("mpi_user_errors");
  MPI_Finalize();
  return result;
}
