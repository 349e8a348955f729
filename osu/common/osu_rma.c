/* Shared driver of the OSU-style one-sided benchmarks (see osu_rma.h). */
#include <mpi.h>

#include "osu_rma.h"
#include "osu_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bandwidth runs lay the messages of a window side by side, in at most this
 * much memory per area; beyond it they share places (same data anyway). */
#define OSU_RMA_MAX_AREA ((size_t)16 << 20)
#define OSU_RMA_MAX_WINDOW 1024

static const char *const sync_options[OSU_RMA_SYNC_COUNT] = {"lock", "flush", "flush_local", "lock_all", "pscw",
                                                             "fence"};
static const char *const sync_names[OSU_RMA_SYNC_COUNT] = {
    "MPI_Win_lock/unlock", "MPI_Win_flush",          "MPI_Win_flush_local",
    "MPI_Win_lock_all/unlock_all", "MPI_Win_post/start/complete/wait", "MPI_Win_fence"};
static const char *const window_options[3] = {"create", "allocate", "dynamic"};
static const char *const window_names[3] = {"MPI_Win_create", "MPI_Win_allocate", "MPI_Win_create_dynamic"};

unsigned char osu_rma_pattern(size_t bytes, int rank, size_t index) {
  return (unsigned char)((index * 31u + bytes * 7u + (size_t)rank * 101u + 1u) & 0xffu);
}

void osu_rma_fill(char *buffer, size_t bytes, int rank) {
  for (size_t i = 0; i < bytes; ++i) buffer[i] = (char)osu_rma_pattern(bytes, rank, i);
}

int osu_rma_holds(const char *buffer, size_t bytes, int rank) {
  for (size_t i = 0; i < bytes; ++i) {
    if ((unsigned char)buffer[i] != osu_rma_pattern(bytes, rank, i)) return 0;
  }
  return 1;
}

static int find(const char *value, const char *const *list, int count) {
  for (int i = 0; i < count; ++i) {
    if (strcmp(value, list[i]) == 0) return i;
  }
  return -1;
}

static void print_sync_list(FILE *out, unsigned syncs) {
  const char *separator = "";
  for (int s = 0; s < OSU_RMA_SYNC_COUNT; ++s) {
    if (syncs & OSU_RMA_SYNC_BIT(s)) {
      fprintf(out, "%s%s", separator, sync_options[s]);
      separator = ", ";
    }
  }
}

/* -w and -s come out of the arguments here; the rest goes to osu_begin. */
static int begin(int argc, char **argv, const struct osu_rma_benchmark *benchmark, struct osu_options *options,
                 enum osu_rma_window *window, enum osu_rma_sync *sync, int rank, int size) {
  char **rest = malloc(sizeof(char *) * ((size_t)argc + 1));
  if (rest == NULL) {
    fprintf(stderr, "%s: no memory\n", benchmark->name);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
  int count = 0, help = 0;
  const char *bad_option = NULL, *bad_value = NULL;
  for (int i = 0; i < argc; ++i) {
    const int is_window = strcmp(argv[i], "-w") == 0, is_sync = strcmp(argv[i], "-s") == 0;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) help = 1;
    if (i > 0 && (is_window || is_sync) && i + 1 < argc) {
      const char *value = argv[++i];
      int found = -1;
      if (is_window) {
        found = find(value, window_options, 3);
        if (found >= 0) *window = (enum osu_rma_window)found;
      } else {
        found = find(value, sync_options, OSU_RMA_SYNC_COUNT);
        if (found >= 0 && !(benchmark->syncs & OSU_RMA_SYNC_BIT(found))) found = -1;
        if (found >= 0) *sync = (enum osu_rma_sync)found;
      }
      if (found < 0 && bad_option == NULL) {
        bad_option = argv[i - 1];
        bad_value = value;
      }
      continue;
    }
    rest[count++] = argv[i];
  }
  rest[count] = NULL;
  int exit_code = osu_begin(count, rest, benchmark->name, options,
                            options->uses_window ? OSU_RMA_MAX_WINDOW : 0, OSU_RANKS_TWO, rank, size);
  free(rest);
  if (exit_code == 0 && help && rank == 0) {
    printf("  -w create|allocate|dynamic    window creation: MPI_Win_create, MPI_Win_allocate or\n"
           "                                MPI_Win_create_dynamic + MPI_Win_attach (default allocate)\n");
    printf("  -s SYNC                       synchronization, one of ");
    print_sync_list(stdout, benchmark->syncs);
    printf(" (default %s)\n", sync_options[benchmark->default_sync]);
  }
  if (exit_code >= 0) return exit_code;
  if (bad_option != NULL) {
    if (rank == 0) {
      fprintf(stderr, "%s: bad value '%s' for %s: ", benchmark->name, bad_value, bad_option);
      if (strcmp(bad_option, "-w") == 0) {
        fprintf(stderr, "one of create, allocate, dynamic\n");
      } else {
        fprintf(stderr, "one of ");
        print_sync_list(stderr, benchmark->syncs);
        fprintf(stderr, "\n");
      }
    }
    MPI_Finalize();
    return 1;
  }
  return -1;
}

static void open_window(struct osu_rma *rma, enum osu_rma_window window, size_t area, const char *name) {
  rma->peer_base = 0;
  if (window == OSU_RMA_WIN_ALLOCATE) {
    MPI_Win_allocate((MPI_Aint)area, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &rma->base, &rma->win);
  } else {
    rma->base = osu_alloc_buffer(area, 0);
    if (rma->base == NULL) {
      fprintf(stderr, "%s: no memory for a %zu-byte window\n", name, area);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (window == OSU_RMA_WIN_CREATE) {
      MPI_Win_create(rma->base, (MPI_Aint)area, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &rma->win);
    } else {
      MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &rma->win);
      MPI_Win_attach(rma->win, rma->base, (MPI_Aint)area);
      MPI_Aint address = 0;
      MPI_Get_address(rma->base, &address);
      MPI_Sendrecv(&address, 1, MPI_AINT, rma->peer, 7, &rma->peer_base, 1, MPI_AINT, rma->peer, 7, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    }
  }
  if (rma->base == NULL) {
    fprintf(stderr, "%s: no window memory\n", name);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

static void close_window(struct osu_rma *rma, enum osu_rma_window window) {
  if (window == OSU_RMA_WIN_DYNAMIC) MPI_Win_detach(rma->win, rma->base);
  MPI_Win_free(&rma->win);
  if (window != OSU_RMA_WIN_ALLOCATE) free(rma->base);
}

/* One operation (or a window of `window` of them) to the peer. */
static void operations(const struct osu_rma_benchmark *benchmark, struct osu_rma *rma, int window) {
  for (int w = 0; w < window; ++w) {
    const size_t slot = (size_t)w % rma->slots;
    benchmark->operation(rma, rma->peer, MPI_Aint_add(rma->peer_base, (MPI_Aint)(slot * rma->bytes)), slot);
    ++rma->issued;
  }
}

/* The timed loop of one size; returns the time rank 0 measured over the
 * `iterations` after `skip`. `window` operations per iteration. */
static double timed_loop(const struct osu_rma_benchmark *benchmark, struct osu_rma *rma, enum osu_rma_sync sync,
                         MPI_Group peer_group, int iterations, int skip, int window) {
  const int total = iterations + skip;
  const int origin = rma->rank == 0 || benchmark->kind == OSU_RMA_BIBW;
  double start = 0, end = 0;
  MPI_Win win = rma->win;
  MPI_Barrier(MPI_COMM_WORLD);
  switch (sync) {
    case OSU_RMA_SYNC_LOCK:
    case OSU_RMA_SYNC_LOCK_ALL:
      if (rma->rank == 0) {
        for (int i = 0; i < total; ++i) {
          if (i == skip) start = MPI_Wtime();
          if (sync == OSU_RMA_SYNC_LOCK) {
            MPI_Win_lock(MPI_LOCK_SHARED, rma->peer, 0, win);
          } else {
            MPI_Win_lock_all(0, win);
          }
          operations(benchmark, rma, window);
          if (sync == OSU_RMA_SYNC_LOCK) {
            MPI_Win_unlock(rma->peer, win);
          } else {
            MPI_Win_unlock_all(win);
          }
        }
        end = MPI_Wtime();
      }
      break;
    case OSU_RMA_SYNC_FLUSH:
    case OSU_RMA_SYNC_FLUSH_LOCAL:
      if (rma->rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, rma->peer, 0, win);
        for (int i = 0; i < total; ++i) {
          if (i == skip) start = MPI_Wtime();
          operations(benchmark, rma, window);
          if (sync == OSU_RMA_SYNC_FLUSH) {
            MPI_Win_flush(rma->peer, win);
          } else {
            MPI_Win_flush_local(rma->peer, win);
          }
        }
        end = MPI_Wtime();
        MPI_Win_unlock(rma->peer, win);
      }
      break;
    case OSU_RMA_SYNC_FENCE:
      MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
      for (int i = 0; i < total; ++i) {
        if (i == skip) start = MPI_Wtime();
        if (benchmark->kind == OSU_RMA_LATENCY) {
          /* Ping-pong: rank 0's epoch, then rank 1's. */
          if (rma->rank == 0) operations(benchmark, rma, 1);
          MPI_Win_fence(0, win);
          if (rma->rank == 1) operations(benchmark, rma, 1);
          MPI_Win_fence(0, win);
        } else {
          if (origin) operations(benchmark, rma, window);
          MPI_Win_fence(0, win);
        }
      }
      end = MPI_Wtime();
      MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
      break;
    case OSU_RMA_SYNC_PSCW:
      for (int i = 0; i < total; ++i) {
        if (i == skip) start = MPI_Wtime();
        if (benchmark->kind == OSU_RMA_LATENCY) {
          if (rma->rank == 0) {
            MPI_Win_start(peer_group, 0, win);
            operations(benchmark, rma, 1);
            MPI_Win_complete(win);
            MPI_Win_post(peer_group, 0, win);
            MPI_Win_wait(win);
          } else {
            MPI_Win_post(peer_group, 0, win);
            MPI_Win_wait(win);
            MPI_Win_start(peer_group, 0, win);
            operations(benchmark, rma, 1);
            MPI_Win_complete(win);
          }
        } else if (benchmark->kind == OSU_RMA_BIBW) {
          MPI_Win_post(peer_group, 0, win);
          MPI_Win_start(peer_group, 0, win);
          operations(benchmark, rma, window);
          MPI_Win_complete(win);
          MPI_Win_wait(win);
        } else if (rma->rank == 0) {
          MPI_Win_start(peer_group, 0, win);
          operations(benchmark, rma, window);
          MPI_Win_complete(win);
        } else {
          MPI_Win_post(peer_group, 0, win);
          MPI_Win_wait(win);
        }
      }
      end = MPI_Wtime();
      break;
    default:
      break;
  }
  return end - start;
}

/* Operations that targeted this rank in a size. */
static long received_count(enum osu_rma_kind kind, enum osu_rma_sync sync, int rank, long total, int window) {
  if (kind == OSU_RMA_LATENCY) {
    const int ping_pong = sync == OSU_RMA_SYNC_FENCE || sync == OSU_RMA_SYNC_PSCW;
    return rank == 1 || ping_pong ? total : 0;
  }
  return rank == 1 || kind == OSU_RMA_BIBW ? total * window : 0;
}

int osu_rma_main(int argc, char **argv, const struct osu_rma_benchmark *benchmark) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  const int latency = benchmark->kind == OSU_RMA_LATENCY;
  struct osu_options options = {1, OSU_MAX_MESSAGE_SIZE, 10000, 100, 1000, 10, 0, 0, 0, 0, 0, 0, 0};
  if (!latency) {
    options = (struct osu_options){1, OSU_MAX_MESSAGE_SIZE, 100, 10, 30, 10, 32, 1, 0, 0, 0, 0, 0};
  }
  const int single = benchmark->unit == 8; /* one 8-byte element (fetch-and-op, compare-and-swap) */
  if (single) options.min_size = options.max_size = 8;
  enum osu_rma_window window_type = OSU_RMA_WIN_ALLOCATE;
  enum osu_rma_sync sync = benchmark->default_sync;
  const int exit_code = begin(argc, argv, benchmark, &options, &window_type, &sync, rank, size);
  if (exit_code >= 0) return exit_code;
  if (single) options.min_size = options.max_size = 8;
  const int window = latency ? 1 : options.window;

  struct osu_rma rma;
  memset(&rma, 0, sizeof(rma));
  rma.rank = rank;
  rma.peer = 1 - rank;
  rma.slots = 1;
  const size_t max_bytes = options.max_size == 0 ? 1 : options.max_size;
  if (!latency) {
    rma.slots = OSU_RMA_MAX_AREA / max_bytes;
    if (rma.slots > (size_t)window) rma.slots = (size_t)window;
    if (rma.slots == 0) rma.slots = 1;
  }
  const size_t area = max_bytes * rma.slots;
  const size_t window_size = area < 4096 ? 4096 : area;
  open_window(&rma, window_type, window_size, benchmark->name);
  const size_t buffer_size = area < 64 ? 64 : area; /* compare-and-swap needs two values */
  rma.origin = osu_alloc_buffer(buffer_size, 0);
  rma.result = osu_alloc_buffer(buffer_size, 0);
  if (rma.origin == NULL || rma.result == NULL) {
    fprintf(stderr, "%s: no memory for %zu-byte buffers\n", benchmark->name, area);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Group world_group, peer_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Group_incl(world_group, 1, &rma.peer, &peer_group);

  if (rank == 0) {
    osu_print_header(benchmark->title);
    printf("# Window creation: %s\n", window_names[window_type]);
    printf("# Synchronization: %s\n", sync_names[sync]);
    printf("%-10s%*s\n", "# Size", OSU_FIELD_WIDTH, latency ? "Latency (us)" : "Bandwidth (MB/s)");
    fflush(stdout);
  }

  int failed = 0;
  for (size_t bytes = options.min_size; bytes <= options.max_size; bytes = bytes == 0 ? 1 : bytes * 2) {
    if (bytes >= benchmark->unit || (bytes == 0 && benchmark->unit == 1)) {
      const int large = bytes > OSU_LARGE_MESSAGE_SIZE;
      const int iterations = large ? options.iterations_large : options.iterations;
      const int skip = large ? options.skip_large : options.skip;
      rma.bytes = bytes;
      rma.issued = 0;
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, rma.win);
      benchmark->prepare(&rma);
      MPI_Win_unlock(rank, rma.win);

      const double elapsed = timed_loop(benchmark, &rma, sync, peer_group, iterations, skip, window);

      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, rma.win);
      const char *wrong = benchmark->check(
          &rma, received_count(benchmark->kind, sync, rank, (long)iterations + skip, window));
      MPI_Win_unlock(rank, rma.win);
      if (wrong != NULL) {
        fprintf(stderr, "%s: data check failed for %zu bytes on rank %d: %s\n", benchmark->name, bytes, rank,
                wrong);
        fflush(stderr);
      }
      const int mine = wrong != NULL;
      MPI_Allreduce(&mine, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (failed) break;
      if (rank == 0) {
        double value = 0;
        if (latency) {
          const int ping_pong = sync == OSU_RMA_SYNC_FENCE || sync == OSU_RMA_SYNC_PSCW;
          value = elapsed * 1e6 / iterations / (ping_pong ? 2.0 : 1.0);
        } else {
          value = (double)bytes / 1e6 * iterations * window / elapsed;
          if (benchmark->kind == OSU_RMA_BIBW) value *= 2;
        }
        printf("%-10zu%*.*f\n", bytes, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, value);
        fflush(stdout);
      }
    }
    if (bytes >= options.max_size) break;
  }

  MPI_Group_free(&peer_group);
  MPI_Group_free(&world_group);
  close_window(&rma, window_type);
  free(rma.origin);
  free(rma.result);
  MPI_Finalize();
  return failed ? 1 : 0;
}

void osu_rma_put_prepare(struct osu_rma *rma) {
  osu_rma_fill(rma->origin, rma->bytes, rma->rank);
  memset(rma->base, 0, rma->bytes * rma->slots);
}

void osu_rma_put_operation(struct osu_rma *rma, int target, MPI_Aint disp, size_t slot) {
  (void)slot; /* every put sends the same data */
  MPI_Put(rma->origin, (int)rma->bytes, MPI_CHAR, target, disp, (int)rma->bytes, MPI_CHAR, rma->win);
}

const char *osu_rma_put_check(struct osu_rma *rma, long received) {
  if (received > 0 && !osu_rma_holds(rma->base, rma->bytes, rma->peer)) return "the window does not hold the data put";
  return NULL;
}

void osu_rma_get_prepare(struct osu_rma *rma) {
  for (size_t slot = 0; slot < rma->slots; ++slot) osu_rma_fill(rma->base + slot * rma->bytes, rma->bytes, rma->rank);
  memset(rma->result, 0, rma->bytes * rma->slots);
}

void osu_rma_get_operation(struct osu_rma *rma, int target, MPI_Aint disp, size_t slot) {
  MPI_Get(rma->result + slot * rma->bytes, (int)rma->bytes, MPI_CHAR, target, disp, (int)rma->bytes, MPI_CHAR,
          rma->win);
}

const char *osu_rma_get_check(struct osu_rma *rma, long received) {
  (void)received;
  if (rma->issued > 0 && !osu_rma_holds(rma->result, rma->bytes, rma->peer)) return "the data got is wrong";
  return NULL;
}
