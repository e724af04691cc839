/* What the event log of `ampsched record` costs a program, per call: the recording build of the
 * preload library (crates/agent/preload/ampsched_locks.c with AMPSCHED_RECORD) loaded with its
 * lock table and event log set up as the agent sets them up, its pthread_mutex_unlock timed
 * against glibc's own:
 *   - "unlock, no waiters": a mutex whose lock word says no waiters (1): the wrapper only reads
 *     the word; no event;
 *   - "unlock, waiters": the word set to 2 (glibc: "perhaps waiters", nptl/lowlevellock.h) before
 *     each unlock, so that the wrapper logs a MutexRelease (gettid, CLOCK_MONOTONIC, the thread's
 *     CPU clock, one slot of the ring) and glibc makes its futex wake (no one sleeps: it returns);
 *     the difference with glibc alone is one event's cost, the same for every kind of event.
 * This program drains the ring between batches (the agent's work, not timed). Each figure is the
 * median over BATCHES batches of BATCH calls, in ns per call.
 *
 * build: cc -O2 -pthread -I crates/agent/preload -o /tmp/record_event_cost bench/record_event_cost.c -ldl
 * run:   /tmp/record_event_cost target/release/build/ampsched-agent-HASH/out/libampsched_record.so
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ampsched_locks.h"

#define BATCH 10000 /* below the ring's 65 536 slots: no event lost within a batch */
#define BATCHES 101

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *shared(const char *path, size_t size) {
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
        perror(path);
        exit(1);
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    return p;
}

static struct ampsched_event_log *events;
static uint64_t tail;

/* The agent's side: read every published event, free its slot. */
static uint64_t drain(void) {
    uint64_t n = 0;
    for (;;) {
        struct ampsched_event *e = &events->ring[tail & (AMPSCHED_EVENTS_SLOTS - 1)];
        if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) != tail + 1)
            return n;
        __atomic_store_n(&e->seq, tail + AMPSCHED_EVENTS_SLOTS, __ATOMIC_RELEASE);
        tail++;
        n++;
    }
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef int (*unlock_fn)(pthread_mutex_t *);

/* Median ns per unlock over the batches; `waiters`: the lock word set to 2 before each. */
static double time_unlocks(unlock_fn unlock, int waiters) {
    static double per_call[BATCHES];
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    for (int b = 0; b < BATCHES; b++) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < BATCH; i++) {
            pthread_mutex_trylock(&m);
            if (waiters)
                m.__data.__lock = 2;
            unlock(&m);
        }
        per_call[b] = (double)(now_ns() - t0) / BATCH;
        drain();
    }
    qsort(per_call, BATCHES, sizeof per_call[0], cmp);
    return per_call[BATCHES / 2];
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH/libampsched_record.so\n", argv[0]);
        return 2;
    }
    char dir[] = "/tmp/ampsched-event-cost-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char table_path[64], events_path[64];
    snprintf(table_path, sizeof table_path, "%s/locks.shm", dir);
    snprintf(events_path, sizeof events_path, "%s/events.shm", dir);
    struct ampsched_lock_table *table = shared(table_path, sizeof *table);
    table->capacity = AMPSCHED_LOCKS_ENTRIES;
    table->version = AMPSCHED_LOCKS_VERSION;
    table->magic = AMPSCHED_LOCKS_MAGIC;
    events = shared(events_path, sizeof *events);
    for (uint64_t i = 0; i < AMPSCHED_EVENTS_SLOTS; i++)
        events->ring[i].seq = i;
    events->slots = AMPSCHED_EVENTS_SLOTS;
    events->version = AMPSCHED_EVENTS_VERSION;
    events->magic = AMPSCHED_EVENTS_MAGIC;
    setenv("AMPSCHED_LOCKS_SHM", table_path, 1);
    setenv("AMPSCHED_EVENTS_SHM", events_path, 1);
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    unlock_fn wrapped = (unlock_fn)dlsym(lib, "pthread_mutex_unlock");
    if (!wrapped || events->processes != 1) {
        fprintf(stderr, "the library did not map the event log (not the recording build?)\n");
        return 1;
    }
    double glibc_free = time_unlocks(pthread_mutex_unlock, 0), lib_free = time_unlocks(wrapped, 0);
    double glibc_waiters = time_unlocks(pthread_mutex_unlock, 1), lib_waiters = time_unlocks(wrapped, 1);
    printf("unlock, no waiters: glibc %.1f ns, recording library %.1f ns: %+.1f ns, no event\n", glibc_free, lib_free, lib_free - glibc_free);
    printf("unlock, waiters:    glibc %.1f ns, recording library %.1f ns: %+.1f ns per event\n", glibc_waiters, lib_waiters,
           lib_waiters - glibc_waiters);
    printf("events logged %llu, lost %llu\n", (unsigned long long)tail, (unsigned long long)events->lost);
    unlink(table_path);
    unlink(events_path);
    rmdir(dir);
    return 0;
}
