/* Layout of the shared table between the lock preload library and the agent (crates/agent/src/locks.rs
 * mirrors it). One file in /dev/shm, created by the agent, named by AMPSCHED_LOCKS_SHM.
 *
 * Entries are allocated append-only (header.used) and found by thread id through an open-addressed
 * index, so the agent reads entries 0..used and nothing else. All fields are written with atomics. */
#ifndef AMPSCHED_LOCKS_H
#define AMPSCHED_LOCKS_H
#include <stdint.h>

#define AMPSCHED_LOCKS_MAGIC 0x4b434f4c504d41ULL /* "AMPLOCK" */
/* 2: spin_since_ns and spin_ns (pthread_spin_lock waits) in place of the reserved field. */
#define AMPSCHED_LOCKS_VERSION 2
/* 16 384 threads: the agent's target is 10 000 threads; past that, threads go unrecorded. */
#define AMPSCHED_LOCKS_ENTRIES 16384
#define AMPSCHED_LOCKS_INDEX (2 * AMPSCHED_LOCKS_ENTRIES)

struct ampsched_lock_entry {
    uint32_t tid;             /* owner of the entry (a Linux thread id) */
    uint32_t waiting_for;     /* tid of the mutex holder this thread waits for now, 0 if none */
    uint64_t wait_since_ns;   /* CLOCK_MONOTONIC start of the current wait, 0 if none */
    uint64_t wait_ns;         /* total time waited on contended mutexes, finished waits */
    uint64_t caused_ns;       /* total time others waited while this thread held the mutex */
    uint64_t contended;       /* number of contended acquisitions */
    uint64_t spin_since_ns;   /* CLOCK_MONOTONIC start of the current spin on a busy spinlock, 0 if none */
    uint64_t spin_ns;         /* total time spun on busy spinlocks, finished spins */
};

struct ampsched_lock_table {
    uint64_t magic;
    uint32_t version;
    uint32_t capacity;
    uint32_t used;            /* entries handed out so far */
    uint32_t dropped;         /* threads that found the table full */
    uint32_t index[AMPSCHED_LOCKS_INDEX]; /* entry number + 1, 0 = free; probed linearly by tid */
    struct ampsched_lock_entry entries[AMPSCHED_LOCKS_ENTRIES];
};
#endif
