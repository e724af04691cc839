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

/* The event log of `ampsched record` (the library built with AMPSCHED_RECORD, which the agent
 * preloads only when it records; crates/agent/src/record/events.rs mirrors it). A second file in
 * the table's directory, named by AMPSCHED_EVENTS_SHM: a bounded multi-producer ring of fixed-size
 * events (Vyukov's bounded queue: each slot's sequence number says whether it is free for the
 * position a producer claimed, or published for the consumer), drained by the agent at every
 * sample. A producer that finds its slot still unread counts the event in `lost` and drops it:
 * never blocks the program, never overwrites an unread event. */
#define AMPSCHED_EVENTS_MAGIC 0x5456454c504d41ULL /* "AMPLEVT" */
#define AMPSCHED_EVENTS_VERSION 1
/* 65 536 events of 64 bytes, 4 MiB: at the agent's default interval (10 ms) room for 6.5 million
 * events a second, far past what a program's contended locks and condition variables make (each
 * event is a thread blocking or waking one). Must be a power of two (positions are masked). */
#define AMPSCHED_EVENTS_SLOTS 65536

enum ampsched_event_kind {
    AMPSCHED_EV_CREATE = 1,   /* tid: the child, other: the parent, object: its pthread_t,
                                 start_ns/cpu_ns: the parent's call, end_ns: the child's start */
    AMPSCHED_EV_EXIT = 2,     /* tid exited (start routine returned, pthread_exit, cancelled) */
    AMPSCHED_EV_MUTEX_WAIT = 3,    /* object: the mutex, other: its holder at the start (0: unknown) */
    AMPSCHED_EV_MUTEX_RELEASE = 4, /* object: the mutex, unlocked with waiters (glibc's lock word) */
    AMPSCHED_EV_COND_WAIT = 5,     /* object: the cond; flags & 1: timed out */
    AMPSCHED_EV_COND_SIGNAL = 6,   /* object: the cond; flags & 1: broadcast */
    AMPSCHED_EV_JOIN = 7,          /* object: the target's pthread_t (the agent maps it to a tid
                                      through the Create events) */
    AMPSCHED_EV_BARRIER_WAIT = 8,  /* object: the pthread_barrier_t; flags & 1: it returned
                                      PTHREAD_BARRIER_SERIAL_THREAD */
};

struct ampsched_event {
    uint64_t seq;      /* position when free for it, position + 1 once published */
    uint32_t kind;
    uint32_t tid;      /* the acting thread (Linux tid) */
    uint64_t start_ns; /* CLOCK_MONOTONIC at the start of a wait, or of a point event */
    uint64_t end_ns;   /* CLOCK_MONOTONIC at the end of a wait (0 for point events) */
    uint64_t cpu_ns;   /* the acting thread's CLOCK_THREAD_CPUTIME_ID at start_ns */
    uint64_t object;   /* mutex, cond or barrier address, pthread_t */
    uint32_t other;
    uint32_t flags;
    uint64_t reserved; /* to 64 bytes: one slot a cache line */
};

struct ampsched_event_log {
    uint64_t magic;
    uint32_t version;
    uint32_t slots;
    uint64_t lost;      /* events dropped for a full ring */
    uint64_t processes; /* processes that loaded the library and mapped the log: 0 after a run
                           whose command never loaded it (static, setuid, LD_PRELOAD cleared) */
    uint64_t pad0[4];
    uint64_t head;      /* the next position producers claim, on its own cache line */
    uint64_t pad1[7];
    struct ampsched_event ring[AMPSCHED_EVENTS_SLOTS];
};
#endif
