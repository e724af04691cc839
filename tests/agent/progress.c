/* A single-threaded CPU-bound program that measures its own progress, for the fairness policies'
 * live test (tests/python/test_fairness_live.py): it computes in chunks of CHUNK_ITERS iterations
 * for SECONDS of wall time, and after each chunk charges the chunk's work and the CPU time it
 * took (CLOCK_THREAD_CPUTIME_ID: the time it ran, without what a cycle stealer or another thread
 * took from it) to the CPU it is on then (sched_getcpu). At exit it writes, to OUT:
 *   work CHUNKS
 *   cpu CPU CHUNKS CPU_NS      (one line per CPU it ran on)
 * so that the test can check that a chunk costs the same CPU time on every CPU (cycle stealing
 * slows a CPU by taking time from the program, not by making its instructions slower) and compare
 * the programs' progress with each other.
 *
 * usage: progress SECONDS OUT */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "measure.h"

/* A few hundred microseconds of work per chunk on a current core: short against a 30 ms share
 * round, so that few chunks straddle a move between CPUs (such a chunk goes to the CPU it ends
 * on), long against the two clock reads and sched_getcpu that end it. */
#define CHUNK_ITERS 200000
#define MAX_CPUS 1024

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: progress SECONDS OUT\n");
        return 2;
    }
    double seconds = atof(argv[1]);
    static uint64_t chunks[MAX_CPUS], cpu_ns[MAX_CPUS];
    uint64_t end = ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9), total = 0;
    volatile uint64_t x = 1;
    uint64_t before = ns(CLOCK_THREAD_CPUTIME_ID);
    while (ns(CLOCK_MONOTONIC) < end) {
        for (int i = 0; i < CHUNK_ITERS; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
        }
        uint64_t now = ns(CLOCK_THREAD_CPUTIME_ID);
        int cpu = sched_getcpu();
        if (cpu >= 0 && cpu < MAX_CPUS) {
            chunks[cpu]++;
            cpu_ns[cpu] += now - before;
        }
        before = now;
        total++;
    }
    FILE *f = fopen(argv[2], "w");
    if (f == NULL) {
        perror(argv[2]);
        return 1;
    }
    fprintf(f, "work %llu\n", (unsigned long long)total);
    for (int c = 0; c < MAX_CPUS; c++) {
        if (chunks[c] > 0) {
            fprintf(f, "cpu %d %llu %llu\n", c, (unsigned long long)chunks[c], (unsigned long long)cpu_ns[c]);
        }
    }
    return fclose(f) == 0 ? 0 : 1;
}
