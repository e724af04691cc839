/* A task-parallel program for the big.LITTLE live test (tests/python/test_biglittle_live.py,
 * docs/biglittle-live.md): CHUNKS chunks of ITERS loop iterations each, computed by THREADS
 * workers (the main thread is worker 0, as the main thread of a task runtime also runs tasks) in
 * one of two ways, the two versions of "Exploiting Asymmetric Multi-Core Processors with Flexible
 * System Software" (the big.LITTLE paper), §III:
 *   static   the work split in equal parts, worker i computes chunks [i C / T, (i + 1) C / T),
 *            then the main thread joins the others: the pthreads codes' static threading
 *            (§III.C: the same work per thread, a barrier at the end);
 *   dynamic  one shared queue of chunks behind a pthread mutex, from which every worker takes the
 *            next chunk until none is left: the OmpSs runtime's default FIFO (§III.D: one ready
 *            queue shared by all threads, the first free thread takes the head).
 * (C rather than Rust: the agent's preload library sees pthread mutexes, so its report shows the
 * queue lock's waits, and the other live test programs are C built by the test with cc.)
 *
 * Each chunk's result depends on its index alone, and the checksum adds them, so both modes print
 * the same checksum for the same CHUNKS and ITERS, whoever computed what. The program measures its
 * own times: after each chunk it charges the chunk and the CPU time it took
 * (CLOCK_THREAD_CPUTIME_ID: the time the thread ran, without what a cycle stealer or another
 * thread took from it) to the CPU it is on then (sched_getcpu), as tests/agent/progress.c does.
 * At exit it prints one JSON object on stdout, or writes it to OUT if given (replacing it):
 *   {"mode": "static", "threads": T, "chunks": C, "iters": I, "checksum": "HEX", "wall_ns": N,
 *    "workers": [{"worker": 0, "tid": TID, "chunks": N, "cpu_ns": N, "last_take_ns": N,
 *                 "finish_ns": N, "cpus": [{"cpu": 0, "chunks": N, "cpu_ns": N}, ...]}, ...]}
 * wall_ns: from the start (the main thread, having started the others, reaches a barrier every
 * worker waits at) to the end of the join, CLOCK_MONOTONIC;
 * per worker, cpu_ns its CPU time over the same span, last_take_ns when it took its last chunk and
 * finish_ns when it found no chunk left (dynamic) or ended its part (static), both from the start.
 *
 * usage: taskqueue static|dynamic THREADS CHUNKS ITERS [OUT]
 * Bad arguments: one line on stderr, exit status 2. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "measure.h"

/* Bounds of the arguments: far above what a test or a user needs, low enough that the per-worker
 * tables stay small and that CHUNKS x ITERS cannot overflow 64 bits. */
#define MAX_THREADS 256
#define MAX_CHUNKS 10000000ULL
#define MAX_ITERS 1000000000000ULL
/* CPUs a worker's per-CPU table covers; a chunk ending on a higher CPU number is counted in the
 * worker's totals but in no per-CPU line (Linux numbers CPUs densely from 0). */
#define MAX_CPUS 1024

enum mode { STATIC, DYNAMIC };

struct worker {
    int id;
    pthread_t thread;
    pid_t tid;
    uint64_t chunks, cpu_ns, last_take_ns, finish_ns, checksum;
    uint64_t cpu_chunks[MAX_CPUS], cpu_time_ns[MAX_CPUS];
};

static enum mode mode;
static int threads;
static uint64_t chunks, iters;
static struct worker *workers;
static pthread_barrier_t ready;
/* The start: when the main thread, having started the others, reaches the start barrier. */
static uint64_t start_ns;

/* The shared queue of the dynamic mode: the next chunk to hand out, behind `queue_lock`. */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t next_chunk;

/* One chunk: ITERS steps of a 64-bit LCG (Knuth's MMIX constants) seeded by the chunk's index. */
static uint64_t compute(uint64_t chunk) {
    uint64_t x = chunk + 1;
    for (uint64_t i = 0; i < iters; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    }
    return x;
}

/* The next chunk for worker `w`, or -1 when its work is done. */
static int64_t take(struct worker *w, uint64_t *static_next, uint64_t static_end) {
    int64_t chunk = -1;
    if (mode == STATIC) {
        if (*static_next < static_end) {
            chunk = (int64_t)(*static_next)++;
        }
    } else {
        pthread_mutex_lock(&queue_lock);
        if (next_chunk < chunks) {
            chunk = (int64_t)next_chunk++;
        }
        pthread_mutex_unlock(&queue_lock);
    }
    if (chunk >= 0) {
        w->last_take_ns = ns(CLOCK_MONOTONIC) - start_ns;
    }
    return chunk;
}

static void *run(void *arg) {
    struct worker *w = arg;
    w->tid = (pid_t)syscall(SYS_gettid);
    /* Worker i's equal part (static mode). */
    uint64_t part_next = chunks * (uint64_t)w->id / (uint64_t)threads;
    uint64_t part_end = chunks * (uint64_t)(w->id + 1) / (uint64_t)threads;
    if (w->id == 0) {
        start_ns = ns(CLOCK_MONOTONIC); /* read by the others after the barrier, which orders it */
    }
    pthread_barrier_wait(&ready);
    uint64_t cpu_start = ns(CLOCK_THREAD_CPUTIME_ID), before = cpu_start;
    int64_t chunk;
    while ((chunk = take(w, &part_next, part_end)) >= 0) {
        w->checksum += compute((uint64_t)chunk);
        uint64_t now = ns(CLOCK_THREAD_CPUTIME_ID);
        int cpu = sched_getcpu();
        if (cpu >= 0 && cpu < MAX_CPUS) {
            w->cpu_chunks[cpu]++;
            w->cpu_time_ns[cpu] += now - before;
        }
        before = now;
        w->chunks++;
    }
    w->finish_ns = ns(CLOCK_MONOTONIC) - start_ns;
    w->cpu_ns = ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: taskqueue static|dynamic THREADS CHUNKS ITERS [OUT]\n");
        return 2;
    }
    if (strcmp(argv[1], "static") == 0) {
        mode = STATIC;
    } else if (strcmp(argv[1], "dynamic") == 0) {
        mode = DYNAMIC;
    } else {
        fprintf(stderr, "taskqueue: the mode must be static or dynamic, not '%s'\n", argv[1]);
        return 2;
    }
    threads = (int)number("taskqueue", "THREADS", argv[2], 1, MAX_THREADS);
    chunks = number("taskqueue", "CHUNKS", argv[3], 1, MAX_CHUNKS);
    iters = number("taskqueue", "ITERS", argv[4], 1, MAX_ITERS);
    /* Opened before the work, so that an OUT it cannot write fails at once, not after the run. */
    FILE *out = argc == 6 ? fopen(argv[5], "w") : stdout;
    if (out == NULL) {
        fprintf(stderr, "taskqueue: cannot write %s: %s\n", argv[5], strerror(errno));
        return 2;
    }

    workers = calloc((size_t)threads, sizeof *workers);
    if (workers == NULL) {
        perror("taskqueue");
        return 1;
    }
    pthread_barrier_init(&ready, NULL, (unsigned)threads);
    for (int i = 0; i < threads; i++) {
        workers[i].id = i;
    }
    for (int i = 1; i < threads; i++) {
        int e = pthread_create(&workers[i].thread, NULL, run, &workers[i]);
        if (e != 0) {
            fprintf(stderr, "taskqueue: cannot start worker %d: %s\n", i, strerror(e));
            return 1;
        }
    }
    run(&workers[0]);
    for (int i = 1; i < threads; i++) {
        pthread_join(workers[i].thread, NULL);
    }
    uint64_t wall_ns = ns(CLOCK_MONOTONIC) - start_ns, checksum = 0;
    for (int i = 0; i < threads; i++) {
        checksum += workers[i].checksum;
    }

    fprintf(out, "{\"mode\": \"%s\", \"threads\": %d, \"chunks\": %llu, \"iters\": %llu, \"checksum\": \"%016llx\", "
            "\"wall_ns\": %llu, \"workers\": [",
            mode == STATIC ? "static" : "dynamic", threads, (unsigned long long)chunks, (unsigned long long)iters,
            (unsigned long long)checksum, (unsigned long long)wall_ns);
    for (int i = 0; i < threads; i++) {
        struct worker *w = &workers[i];
        fprintf(out, "%s{\"worker\": %d, \"tid\": %d, \"chunks\": %llu, \"cpu_ns\": %llu, \"last_take_ns\": %llu, "
                "\"finish_ns\": %llu, \"cpus\": [",
                i ? ", " : "", i, (int)w->tid, (unsigned long long)w->chunks, (unsigned long long)w->cpu_ns,
                (unsigned long long)w->last_take_ns, (unsigned long long)w->finish_ns);
        const char *sep = "";
        for (int c = 0; c < MAX_CPUS; c++) {
            if (w->cpu_chunks[c] > 0) {
                fprintf(out, "%s{\"cpu\": %d, \"chunks\": %llu, \"cpu_ns\": %llu}", sep, c,
                        (unsigned long long)w->cpu_chunks[c], (unsigned long long)w->cpu_time_ns[c]);
                sep = ", ";
            }
        }
        fprintf(out, "]}");
    }
    fprintf(out, "]}\n");
    return fclose(out) == 0 ? 0 : 1;
}
