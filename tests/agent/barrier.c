/* A barrier program whose structure is known, for `ampsched record`'s tests and its validation
 * (tests/python/test_record.py, python/ampsched/reproductions/record_replay.py): the main thread
 * starts THREADS workers and joins them; each worker, ROUNDS times, computes ITERS loop
 * iterations, then waits at a pthread barrier of THREADS parties, then takes the one mutex all
 * workers share and computes LOCK_ITERS iterations holding it. The barrier releases the workers
 * together, so they reach the mutex together and it is contended every round: a recorder sees
 * THREADS + 1 threads (the main thread creating and joining), one barrier of THREADS parties
 * reached ROUNDS times by each worker, and critical sections on one lock.
 *
 * Work is counted in loop iterations (a 64-bit LCG, as forkjoin.c's), so the same arguments give
 * the same work whatever the CPU's speed or load; a slow CPU takes longer.
 *
 * It measures itself and prints one JSON object on stdout, or writes it to OUT if given:
 *   {"program": "barrier", "threads": T, "rounds": R, "iters": I, "lock_iters": L,
 *    "checksum": "HEX", "wall_ns": N, "main": {"tid": TID, "cpu_ns": N},
 *    "workers": [{"worker": 0, "tid": TID, "cpu_ns": N, "barriers": R, "lock_wait_ns": N}, ...]}
 * wall_ns: from main's start (before it creates the workers) to the end of the last join,
 * CLOCK_MONOTONIC; cpu_ns: each thread's own CPU time (CLOCK_THREAD_CPUTIME_ID, read at its end:
 * the time it ran, without what a cycle stealer or another thread took from it); barriers: the
 * barrier waits it returned from; lock_wait_ns: its time inside pthread_mutex_lock.
 *
 * usage: barrier THREADS ROUNDS ITERS LOCK_ITERS [OUT]
 * Bad arguments: one line on stderr, exit status 2. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "measure.h"

/* Bounds of the arguments: far above what a test needs, low enough that ROUNDS x ITERS cannot
 * overflow 64 bits and the worker table stays small. */
#define MAX_THREADS 64
#define MAX_ROUNDS 1000000ULL
#define MAX_ITERS 1000000000000ULL

struct worker {
    int id;
    pthread_t thread;
    pid_t tid;
    uint64_t cpu_ns, barriers, lock_wait_ns, checksum;
};

static int threads;
static uint64_t rounds, iters, lock_iters;
static struct worker workers[MAX_THREADS];
static pthread_barrier_t barrier;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* What the workers compute under the lock: shared, so the critical section is a real one. */
static uint64_t shared_state;

/* N steps of a 64-bit LCG (Knuth's MMIX constants) from X. */
static uint64_t lcg(uint64_t n, uint64_t x) {
    for (uint64_t i = 0; i < n; i++)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x;
}

static void *worker(void *arg) {
    struct worker *w = arg;
    w->tid = (pid_t)syscall(SYS_gettid);
    uint64_t x = (uint64_t)w->id;
    for (uint64_t r = 0; r < rounds; r++) {
        x = lcg(iters, x + r);
        pthread_barrier_wait(&barrier);
        w->barriers++;
        uint64_t t0 = ns(CLOCK_MONOTONIC);
        pthread_mutex_lock(&lock);
        w->lock_wait_ns += ns(CLOCK_MONOTONIC) - t0;
        shared_state = lcg(lock_iters, shared_state ^ x);
        pthread_mutex_unlock(&lock);
    }
    w->checksum = x;
    w->cpu_ns = ns(CLOCK_THREAD_CPUTIME_ID);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: barrier THREADS ROUNDS ITERS LOCK_ITERS [OUT]\n");
        return 2;
    }
    uint64_t start = ns(CLOCK_MONOTONIC);
    threads = (int)number("barrier", "THREADS", argv[1], 1, MAX_THREADS);
    rounds = number("barrier", "ROUNDS", argv[2], 0, MAX_ROUNDS);
    iters = number("barrier", "ITERS", argv[3], 0, MAX_ITERS);
    lock_iters = number("barrier", "LOCK_ITERS", argv[4], 0, MAX_ITERS);
    FILE *out = stdout;
    if (argc == 6 && (out = fopen(argv[5], "w")) == NULL) {
        fprintf(stderr, "barrier: %s: cannot write it\n", argv[5]);
        return 2;
    }
    pthread_barrier_init(&barrier, NULL, (unsigned)threads);
    for (int i = 0; i < threads; i++) {
        workers[i].id = i;
        if (pthread_create(&workers[i].thread, NULL, worker, &workers[i]) != 0) {
            fprintf(stderr, "barrier: cannot create thread %d\n", i);
            return 1;
        }
    }
    uint64_t checksum = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(workers[i].thread, NULL);
        checksum ^= workers[i].checksum;
    }
    uint64_t wall = ns(CLOCK_MONOTONIC) - start;
    checksum ^= shared_state;
    fprintf(out,
            "{\"program\": \"barrier\", \"threads\": %d, \"rounds\": %llu, \"iters\": %llu, \"lock_iters\": %llu, "
            "\"checksum\": \"%016llx\", \"wall_ns\": %llu, \"main\": {\"tid\": %d, \"cpu_ns\": %llu}, \"workers\": [",
            threads, (unsigned long long)rounds, (unsigned long long)iters, (unsigned long long)lock_iters,
            (unsigned long long)checksum, (unsigned long long)wall, (int)getpid(),
            (unsigned long long)ns(CLOCK_THREAD_CPUTIME_ID));
    for (int i = 0; i < threads; i++) {
        const struct worker *w = &workers[i];
        fprintf(out, "%s{\"worker\": %d, \"tid\": %d, \"cpu_ns\": %llu, \"barriers\": %llu, \"lock_wait_ns\": %llu}",
                i ? ", " : "", w->id, (int)w->tid, (unsigned long long)w->cpu_ns, (unsigned long long)w->barriers,
                (unsigned long long)w->lock_wait_ns);
    }
    fprintf(out, "]}\n");
    return fclose(out) == 0 ? 0 : 1;
}
