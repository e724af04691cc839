/* A fork-join program for the agent's tests: PHASES times, the main thread computes a serial
 * section alone (the others block on a barrier), then all THREADS compute a parallel section
 * and meet at a barrier (blocking). Work is counted in loop iterations, so a slow CPU takes longer.
 * During serial sections the main thread samples sched_getcpu() every SAMPLE_ITERS iterations, so
 * each sample stands for the same work whatever the CPU's speed or load. It prints a checksum of
 * the computation, the share of samples on CPU 0, the work a sample stands for, and, per serial
 * section, where its work ran:
 *   checksum HEX
 *   serial_on_cpu0 SHARE
 *   sample_iters SAMPLE_ITERS
 *   serial PHASE ON_CPU0 OFF_CPU0
 * (samples on CPU 0 and on another CPU).
 *
 * usage: forkjoin THREADS PHASES SERIAL_ITERS PARALLEL_ITERS */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int threads, phases;
static uint64_t serial_iters, parallel_iters;
static pthread_barrier_t start_parallel, end_parallel;
static volatile uint64_t sink[64];
/* Iterations per sample: about a millisecond of work. */
#define SAMPLE_ITERS (1ULL << 20)

/* Where one serial section's samples were. */
struct section {
    uint64_t on_cpu0, off_cpu0;
};

static struct section *sections;

/* ITERS iterations; `seen`, if not NULL, gets the section's samples. */
static uint64_t work(uint64_t iters, uint64_t seed, struct section *seen) {
    uint64_t x = seed;
    for (uint64_t i = 0; i < iters; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        if (seen && i % SAMPLE_ITERS == 0) {
            if (sched_getcpu() == 0)
                seen->on_cpu0++;
            else
                seen->off_cpu0++;
        }
    }
    return x;
}

static void *worker(void *arg) {
    long id = (long)arg;
    for (int p = 0; p < phases; p++) {
        pthread_barrier_wait(&start_parallel);
        sink[id] += work(parallel_iters, (uint64_t)(id * 1000 + p), NULL);
        pthread_barrier_wait(&end_parallel);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s THREADS PHASES SERIAL_ITERS PARALLEL_ITERS\n", argv[0]);
        return 2;
    }
    threads = atoi(argv[1]);
    phases = atoi(argv[2]);
    serial_iters = strtoull(argv[3], NULL, 10);
    parallel_iters = strtoull(argv[4], NULL, 10);
    if (threads < 1 || threads > 64 || phases < 0) {
        fprintf(stderr, "%s: THREADS must be 1 to 64, PHASES at least 0\n", argv[0]);
        return 2;
    }
    sections = calloc((size_t)phases + 1, sizeof *sections);
    pthread_barrier_init(&start_parallel, NULL, threads);
    pthread_barrier_init(&end_parallel, NULL, threads);
    pthread_t t[64];
    for (long i = 1; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    uint64_t check = 0;
    for (int p = 0; p < phases; p++) {
        check ^= work(serial_iters, (uint64_t)p, &sections[p]);
        pthread_barrier_wait(&start_parallel);
        sink[0] += work(parallel_iters, (uint64_t)p, NULL);
        pthread_barrier_wait(&end_parallel);
    }
    for (long i = 1; i < threads; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < threads; i++)
        check ^= sink[i];
    uint64_t on_cpu0 = 0, samples = 0;
    for (int p = 0; p < phases; p++) {
        on_cpu0 += sections[p].on_cpu0;
        samples += sections[p].on_cpu0 + sections[p].off_cpu0;
    }
    printf("checksum %016llx\nserial_on_cpu0 %.3f\nsample_iters %llu\n", (unsigned long long)check,
           samples ? (double)on_cpu0 / samples : 0.0, (unsigned long long)SAMPLE_ITERS);
    for (int p = 0; p < phases; p++)
        printf("serial %d %llu %llu\n", p, (unsigned long long)sections[p].on_cpu0, (unsigned long long)sections[p].off_cpu0);
    return 0;
}
