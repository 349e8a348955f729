/* Run by ternrun with TERN_PROGRESS set: checks that the rank's progress
 * thread ("tern-progress") runs on the CPUs ternrun gave it in
 * TERN_PROGRESS_CPUS, and that they are not the rank's own. Exits 77 (a
 * skip) on a machine without a core to spare. */
#define _GNU_SOURCE
#include <dirent.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A kernel or hwloc CPU list ("1", "0-1,4") into a mask of CPUs below 1024. */
static int parse_list(const char *text, cpu_set_t *set) {
  CPU_ZERO(set);
  while (*text != '\0' && *text != '\n') {
    char *end = NULL;
    long first = strtol(text, &end, 10);
    long last = first;
    if (end == text || first < 0 || first >= CPU_SETSIZE) return 0;
    if (*end == '-') {
      text = end + 1;
      last = strtol(text, &end, 10);
      if (end == text || last < first || last >= CPU_SETSIZE) return 0;
    }
    for (long cpu = first; cpu <= last; ++cpu) CPU_SET((int)cpu, set);
    text = *end == ',' ? end + 1 : end;
  }
  return CPU_COUNT(set) > 0;
}

/* The CPUs thread `task` of this process may run on, from /proc. */
static int task_cpus(const char *task, cpu_set_t *set) {
  char path[300], line[512];
  snprintf(path, sizeof(path), "/proc/self/task/%s/status", task);
  FILE *file = fopen(path, "r");
  if (file == NULL) return 0;
  int found = 0;
  while (fgets(line, sizeof(line), file) != NULL) {
    if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
      found = parse_list(line + 18 + strspn(line + 18, " \t"), set);
      break;
    }
  }
  fclose(file);
  return found;
}

/* The id of the thread named `name`, or 0. */
static int find_task(const char *name, char *id, size_t size) {
  DIR *tasks = opendir("/proc/self/task");
  if (tasks == NULL) return 0;
  int found = 0;
  for (struct dirent *entry; !found && (entry = readdir(tasks)) != NULL;) {
    if (entry->d_name[0] == '.') continue;
    char path[300], comm[64] = {0};
    snprintf(path, sizeof(path), "/proc/self/task/%s/comm", entry->d_name);
    FILE *file = fopen(path, "r");
    if (file == NULL) continue;
    if (fgets(comm, sizeof(comm), file) != NULL && strncmp(comm, name, strlen(name)) == 0) {
      snprintf(id, size, "%s", entry->d_name);
      found = 1;
    }
    fclose(file);
  }
  closedir(tasks);
  return found;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rc = 1;
  const char *given = getenv("TERN_PROGRESS_CPUS");
  char task[256];
  cpu_set_t expected, thread, own;
  if (given == NULL) {
    printf("progress_binding: no TERN_PROGRESS_CPUS (no spare core): skipped\n");
    rc = 77;
  } else if (!parse_list(given, &expected)) {
    printf("progress_binding: FAIL: TERN_PROGRESS_CPUS=%s is not a CPU list\n", given);
  } else if (!find_task("tern-progress", task, sizeof(task))) {
    printf("progress_binding: FAIL: no progress thread (is TERN_PROGRESS set?)\n");
  } else if (!task_cpus(task, &thread) || !CPU_EQUAL(&thread, &expected)) {
    printf("progress_binding: FAIL: the progress thread is not bound to %s\n", given);
  } else if (sched_getaffinity(0, sizeof(own), &own) != 0) {
    printf("progress_binding: FAIL: sched_getaffinity\n");
  } else {
    cpu_set_t both;
    CPU_AND(&both, &own, &thread);
    if (CPU_COUNT(&both) != 0) {
      printf("progress_binding: FAIL: the progress thread shares its rank's CPUs\n");
    } else {
      printf("progress_binding: PASS (progress thread on cpus %s)\n", given);
      rc = 0;
    }
  }
  fflush(stdout);
  MPI_Finalize();
  return rc;
}
