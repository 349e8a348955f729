/* osu_io (ours, not in OMB): collective MPI-IO bandwidth. Every rank owns
 * -m [MIN:]MAX bytes (default 4K:16M) of one file, laid out round-robin
 * in chunks of 4 KiB (a 1-D cyclic distribution: the interleaved pattern
 * two-phase I/O exists for) through a file view; per size it times
 * MPI_File_write_at_all, then MPI_File_read_at_all of the same bytes, and
 * prints the aggregate bandwidth of each in MB/s (10^6 bytes: all ranks'
 * bytes / time). The file goes in $OSU_IO_DIR, else $TMPDIR, else /tmp, and
 * is deleted at the end; the data read back is checked. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/osu_util.h"

#define OSU_IO_CHUNK 4096

static unsigned char pattern(size_t i, int rank) { return (unsigned char)(1 + (i + (size_t)rank * 7) % 251); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  struct osu_options options = {4096, 16UL << 20, 20, 2, 5, 1, 0, 0, 0, 0, 0, 0, 0};
  const enum osu_parse_result parsed = osu_parse_options(argc, argv, "osu_io", &options, rank);
  if (parsed != OSU_PARSE_OK) {
    MPI_Finalize();
    return parsed == OSU_PARSE_HELP ? 0 : 1;
  }
  if (options.min_size < 1) options.min_size = 1;
  unsigned char *data = osu_alloc_buffer(options.max_size, 0);
  unsigned char *back = osu_alloc_buffer(options.max_size, 0);
  if (data == NULL || back == NULL) {
    fprintf(stderr, "osu_io: no memory for %zu-byte buffers\n", options.max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t i = 0; i < options.max_size; ++i) data[i] = pattern(i, rank);

  char path[4096] = {0};
  if (rank == 0) {
    const char *directory = getenv("OSU_IO_DIR");
    if (directory == NULL || *directory == '\0') directory = getenv("TMPDIR");
    if (directory == NULL || *directory == '\0') directory = "/tmp";
    snprintf(path, sizeof(path), "%s/osu_io.%ld", directory, (long)getpid());
  }
  MPI_Bcast(path, (int)sizeof(path), MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_File fh = MPI_FILE_NULL;
  if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                    &fh) != MPI_SUCCESS) {
    if (rank == 0) fprintf(stderr, "osu_io: cannot create %s\n", path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    osu_print_header("OSU MPI-IO Collective Bandwidth Test");
    printf("# %d ranks, %d-byte chunks round-robin, file %s\n", size, OSU_IO_CHUNK, path);
    printf("%-10s%*s%*s\n", "# Size", OSU_FIELD_WIDTH, "Write (MB/s)", OSU_FIELD_WIDTH, "Read (MB/s)");
    fflush(stdout);
  }

  int failures = 0;
  for (size_t bytes = options.min_size; bytes <= options.max_size; bytes *= 2) {
    const int large = bytes > OSU_LARGE_MESSAGE_SIZE;
    const int iterations = large ? options.iterations_large : options.iterations;
    const int skip = large ? options.skip_large : options.skip;
    const int chunk = bytes < OSU_IO_CHUNK ? (int)bytes : OSU_IO_CHUNK;
    MPI_Datatype block = MPI_DATATYPE_NULL, filetype = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(chunk, MPI_BYTE, &block);
    MPI_Type_create_resized(block, 0, (MPI_Aint)chunk * size, &filetype);
    MPI_Type_commit(&filetype);
    MPI_Type_free(&block);
    MPI_File_set_view(fh, (MPI_Offset)chunk * rank, MPI_BYTE, filetype, "native", MPI_INFO_NULL);
    const int count = (int)bytes;

    double times[2] = {0, 0};
    for (int phase = 0; phase < 2; ++phase) {
      double start = 0;
      MPI_Barrier(MPI_COMM_WORLD);
      for (int i = 0; i < iterations + skip; ++i) {
        if (i == skip) start = MPI_Wtime();
        if (phase == 0) {
          MPI_File_write_at_all(fh, 0, data, count, MPI_BYTE, MPI_STATUS_IGNORE);
        } else {
          MPI_File_read_at_all(fh, 0, back, count, MPI_BYTE, MPI_STATUS_IGNORE);
        }
      }
      const double elapsed = MPI_Wtime() - start;
      MPI_Allreduce(&elapsed, &times[phase], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    failures += memcmp(data, back, bytes) != 0;
    MPI_Type_free(&filetype);
    if (rank == 0) {
      const double moved = (double)bytes * size * iterations / 1e6;
      printf("%-10zu%*.*f%*.*f\n", bytes, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, moved / times[0], OSU_FIELD_WIDTH,
             OSU_FLOAT_PRECISION, moved / times[1]);
      fflush(stdout);
    }
    if (bytes >= options.max_size) break;
  }

  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total != 0) fprintf(stderr, "osu_io: %d reads differed from what was written\n", total);
  MPI_File_close(&fh);
  free(data);
  free(back);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
