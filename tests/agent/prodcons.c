/* A producer-consumer program for `ampsched record`'s tests and its validation
 * (tests/python/test_record.py, python/ampsched/reproductions/record_replay.py): PRODUCERS
 * threads each make ITEMS items, computing PRODUCE_ITERS loop iterations per item, and put them in
 * one bounded queue of CAPACITY items; CONSUMERS threads each take their share of the items
 * (PRODUCERS x ITEMS / CONSUMERS, which must be whole) and compute CONSUME_ITERS iterations per
 * item. The queue is a ring behind one pthread mutex with two condition variables, "not empty"
 * and "not full" (the textbook monitor: a thread waits while the queue is empty or full, and the
 * other side signals after each put or take), so a recorder sees condition-variable hand-offs
 * between the two sides and waits on one lock. The main thread starts every thread and joins them.
 *
 * Work is counted in loop iterations (a 64-bit LCG, as forkjoin.c's), and every thread's count of
 * items is fixed by the arguments, so each thread's work is the same whatever the CPU's speed,
 * the load or the interleaving; only who waits how long changes.
 *
 * It measures itself and prints one JSON object on stdout, or writes it to OUT if given:
 *   {"program": "prodcons", "producers": P, "consumers": C, "items": I, "capacity": Q,
 *    "produce_iters": N, "consume_iters": N, "checksum": "HEX", "wall_ns": N,
 *    "main": {"tid": TID, "cpu_ns": N},
 *    "threads": [{"role": "producer", "index": 0, "tid": TID, "cpu_ns": N, "items": N,
 *                 "cond_waits": N, "wait_ns": N}, ...]}
 * wall_ns: from main's start (before it creates the threads) to the end of the last join,
 * CLOCK_MONOTONIC; cpu_ns: each thread's own CPU time (CLOCK_THREAD_CPUTIME_ID, read at its end);
 * cond_waits and wait_ns: how often and how long it waited on a condition variable (queue full for
 * a producer, empty for a consumer).
 *
 * usage: prodcons PRODUCERS CONSUMERS ITEMS CAPACITY PRODUCE_ITERS CONSUME_ITERS [OUT]
 * Bad arguments: one line on stderr, exit status 2. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "measure.h"

/* Bounds of the arguments: far above what a test needs, low enough that the tables stay small
 * and ITEMS x ITERS cannot overflow 64 bits. */
#define MAX_SIDE 32
#define MAX_ITEMS 1000000ULL
#define MAX_CAPACITY 4096ULL
#define MAX_ITERS 1000000000ULL

struct thread {
    const char *role;
    int index;
    pthread_t thread;
    pid_t tid;
    uint64_t cpu_ns, items, cond_waits, wait_ns, checksum;
};

static int producers, consumers;
static uint64_t items, capacity, produce_iters, consume_iters, share;
static struct thread table[2 * MAX_SIDE];

/* The bounded queue: a ring of `capacity` items, `count` of them from `head`. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER;
static uint64_t ring[MAX_CAPACITY];
static uint64_t head, count;

/* N steps of a 64-bit LCG (Knuth's MMIX constants) from X. */
static uint64_t lcg(uint64_t n, uint64_t x) {
    for (uint64_t i = 0; i < n; i++)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x;
}

/* Wait on `cond` (with `lock` held), counted and timed. */
static void wait_on(pthread_cond_t *cond, struct thread *me) {
    uint64_t t0 = ns(CLOCK_MONOTONIC);
    pthread_cond_wait(cond, &lock);
    me->wait_ns += ns(CLOCK_MONOTONIC) - t0;
    me->cond_waits++;
}

static void *producer(void *arg) {
    struct thread *me = arg;
    me->tid = (pid_t)syscall(SYS_gettid);
    uint64_t x = (uint64_t)me->index;
    for (uint64_t i = 0; i < items; i++) {
        x = lcg(produce_iters, x + i);
        pthread_mutex_lock(&lock);
        while (count == capacity)
            wait_on(&not_full, me);
        ring[(head + count) % capacity] = x;
        count++;
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&lock);
        me->items++;
    }
    me->checksum = x;
    me->cpu_ns = ns(CLOCK_THREAD_CPUTIME_ID);
    return NULL;
}

static void *consumer(void *arg) {
    struct thread *me = arg;
    me->tid = (pid_t)syscall(SYS_gettid);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < share; i++) {
        pthread_mutex_lock(&lock);
        while (count == 0)
            wait_on(&not_empty, me);
        uint64_t item = ring[head];
        head = (head + 1) % capacity;
        count--;
        pthread_cond_signal(&not_full);
        pthread_mutex_unlock(&lock);
        /* A sum over the items is the same whoever takes which: the checksum does not depend on
           the interleaving. */
        sum += lcg(consume_iters, item);
        me->items++;
    }
    me->checksum = sum;
    me->cpu_ns = ns(CLOCK_THREAD_CPUTIME_ID);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 7 && argc != 8) {
        fprintf(stderr, "usage: prodcons PRODUCERS CONSUMERS ITEMS CAPACITY PRODUCE_ITERS CONSUME_ITERS [OUT]\n");
        return 2;
    }
    uint64_t start = ns(CLOCK_MONOTONIC);
    producers = (int)number("prodcons", "PRODUCERS", argv[1], 1, MAX_SIDE);
    consumers = (int)number("prodcons", "CONSUMERS", argv[2], 1, MAX_SIDE);
    items = number("prodcons", "ITEMS", argv[3], 0, MAX_ITEMS);
    capacity = number("prodcons", "CAPACITY", argv[4], 1, MAX_CAPACITY);
    produce_iters = number("prodcons", "PRODUCE_ITERS", argv[5], 0, MAX_ITERS);
    consume_iters = number("prodcons", "CONSUME_ITERS", argv[6], 0, MAX_ITERS);
    if ((uint64_t)producers * items % (uint64_t)consumers != 0) {
        fprintf(stderr, "prodcons: PRODUCERS x ITEMS (%llu) must divide among the %d consumers\n",
                (unsigned long long)((uint64_t)producers * items), consumers);
        return 2;
    }
    share = (uint64_t)producers * items / (uint64_t)consumers;
    FILE *out = stdout;
    if (argc == 8 && (out = fopen(argv[7], "w")) == NULL) {
        fprintf(stderr, "prodcons: %s: cannot write it\n", argv[7]);
        return 2;
    }
    int n = producers + consumers;
    for (int i = 0; i < n; i++) {
        struct thread *t = &table[i];
        t->role = i < producers ? "producer" : "consumer";
        t->index = i < producers ? i : i - producers;
        if (pthread_create(&t->thread, NULL, i < producers ? producer : consumer, t) != 0) {
            fprintf(stderr, "prodcons: cannot create thread %d\n", i);
            return 1;
        }
    }
    uint64_t checksum = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(table[i].thread, NULL);
        if (i >= producers)
            checksum += table[i].checksum;
    }
    uint64_t wall = ns(CLOCK_MONOTONIC) - start;
    fprintf(out,
            "{\"program\": \"prodcons\", \"producers\": %d, \"consumers\": %d, \"items\": %llu, \"capacity\": %llu, "
            "\"produce_iters\": %llu, \"consume_iters\": %llu, \"checksum\": \"%016llx\", \"wall_ns\": %llu, "
            "\"main\": {\"tid\": %d, \"cpu_ns\": %llu}, \"threads\": [",
            producers, consumers, (unsigned long long)items, (unsigned long long)capacity,
            (unsigned long long)produce_iters, (unsigned long long)consume_iters, (unsigned long long)checksum,
            (unsigned long long)wall, (int)getpid(), (unsigned long long)ns(CLOCK_THREAD_CPUTIME_ID));
    for (int i = 0; i < n; i++) {
        const struct thread *t = &table[i];
        fprintf(out,
                "%s{\"role\": \"%s\", \"index\": %d, \"tid\": %d, \"cpu_ns\": %llu, \"items\": %llu, "
                "\"cond_waits\": %llu, \"wait_ns\": %llu}",
                i ? ", " : "", t->role, t->index, (int)t->tid, (unsigned long long)t->cpu_ns,
                (unsigned long long)t->items, (unsigned long long)t->cond_waits, (unsigned long long)t->wait_ns);
    }
    fprintf(out, "]}\n");
    return fclose(out) == 0 ? 0 : 1;
}
