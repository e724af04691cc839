/* ampsched lock insight: an LD_PRELOAD library that records, per thread, the time spent waiting on
 * contended pthread mutexes and which thread held the mutex, in a table the agent shares.
 *
 * This is the signal WASH ("Portable Performance on Asymmetric Multicore Processors", §4.2: lock
 * contention identifies critical threads) takes from the JVM's locks, obtained here for unmodified
 * native programs. The uncontended path costs one trylock more than a plain lock: no clock read,
 * no shared write. A contended acquisition reads the holder's tid from glibc's mutex (__owner),
 * times the wait with CLOCK_MONOTONIC, and charges it to the waiter (wait_ns) and the holder seen
 * at the start of the wait (caused_ns).
 *
 * It also records spin-waits, the signal of PA-RTX's runtime (Sáez thesis, §5.1.2: a waiting thread
 * that spins tells the scheduler, which counts it as not runnable): a thread that finds a
 * pthread spinlock busy marks "spinning since" in its entry for as long as it spins, and adds the
 * spin to spin_ns when it gets the lock. The uncontended path is again one trylock more.
 *
 * Not seen: mutexes re-acquired inside glibc (pthread_cond_wait's relock), futexes used directly
 * (Rust's std, Go), spin loops of a program's or runtime's own (OpenMP's libgomp spins in its own
 * code), statically linked programs, and setuid programs (which ignore LD_PRELOAD). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ampsched_locks.h"

static int (*real_lock)(pthread_mutex_t *);
static int (*real_spin_lock)(pthread_spinlock_t *);
static struct ampsched_lock_table *table;
static __thread struct ampsched_lock_entry *self_entry;

/* A child forked without exec inherits the thread-local entry pointer of its parent's thread:
 * it must find (or make) its own. */
static void forget_entry(void) {
    self_entry = NULL;
}

__attribute__((constructor)) static void ampsched_locks_init(void) {
    real_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
    real_spin_lock = (int (*)(pthread_spinlock_t *))dlsym(RTLD_NEXT, "pthread_spin_lock");
    pthread_atfork(NULL, NULL, forget_entry);
    const char *path = getenv("AMPSCHED_LOCKS_SHM");
    if (!path)
        return;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return;
    void *p = mmap(NULL, sizeof(struct ampsched_lock_table), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return;
    struct ampsched_lock_table *t = p;
    if (t->magic != AMPSCHED_LOCKS_MAGIC || t->version != AMPSCHED_LOCKS_VERSION) {
        munmap(p, sizeof *t);
        return;
    }
    table = t;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The entry of thread `tid`, created on first use; NULL when the table is full. */
static struct ampsched_lock_entry *entry_of(uint32_t tid) {
    uint32_t slot = (tid * 2654435761u) % AMPSCHED_LOCKS_INDEX;
    for (uint32_t probe = 0; probe < AMPSCHED_LOCKS_INDEX; probe++, slot = (slot + 1) % AMPSCHED_LOCKS_INDEX) {
        uint32_t v = __atomic_load_n(&table->index[slot], __ATOMIC_ACQUIRE);
        if (v == 0) {
            uint32_t n = __atomic_fetch_add(&table->used, 1, __ATOMIC_ACQ_REL);
            if (n >= AMPSCHED_LOCKS_ENTRIES) {
                __atomic_fetch_sub(&table->used, 1, __ATOMIC_ACQ_REL);
                __atomic_fetch_add(&table->dropped, 1, __ATOMIC_RELAXED);
                return NULL;
            }
            __atomic_store_n(&table->entries[n].tid, tid, __ATOMIC_RELEASE);
            uint32_t expected = 0;
            if (__atomic_compare_exchange_n(&table->index[slot], &expected, n + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                return &table->entries[n];
            /* Another thread took the slot first; entry n stays allocated but unindexed (its
             * tid is set, so the agent still reads it; it only wastes one entry). */
            v = expected;
        }
        struct ampsched_lock_entry *e = &table->entries[v - 1];
        if (__atomic_load_n(&e->tid, __ATOMIC_ACQUIRE) == tid)
            return e;
    }
    return NULL;
}

int pthread_mutex_lock(pthread_mutex_t *m) {
    if (!real_lock)
        real_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
    if (!table)
        return real_lock(m);
    int r = pthread_mutex_trylock(m);
    if (r != EBUSY)
        return r; /* acquired (or an error the full lock would also report, e.g. EOWNERDEAD) */

#ifdef __GLIBC__
    uint32_t holder = (uint32_t)m->__data.__owner;
#else
    uint32_t holder = 0;
#endif
    uint32_t self = (uint32_t)syscall(SYS_gettid);
    if (holder == self) /* an error-checking mutex relocked by its owner: EDEADLK, not contention */
        return real_lock(m);
    if (!self_entry)
        self_entry = entry_of(self);
    struct ampsched_lock_entry *me = self_entry;
    uint64_t start = now_ns();
    if (me) {
        __atomic_store_n(&me->waiting_for, holder, __ATOMIC_RELAXED);
        __atomic_store_n(&me->wait_since_ns, start, __ATOMIC_RELEASE);
    }
    r = real_lock(m);
    uint64_t waited = now_ns() - start;
    if (me) {
        __atomic_store_n(&me->wait_since_ns, 0, __ATOMIC_RELAXED);
        __atomic_fetch_add(&me->wait_ns, waited, __ATOMIC_RELEASE);
        __atomic_store_n(&me->waiting_for, 0, __ATOMIC_RELAXED);
        __atomic_fetch_add(&me->contended, 1, __ATOMIC_RELAXED);
    }
    if (holder) {
        struct ampsched_lock_entry *h = entry_of(holder);
        if (h)
            __atomic_fetch_add(&h->caused_ns, waited, __ATOMIC_RELEASE);
    }
    return r;
}

int pthread_spin_lock(pthread_spinlock_t *l) {
    if (!real_spin_lock)
        real_spin_lock = (int (*)(pthread_spinlock_t *))dlsym(RTLD_NEXT, "pthread_spin_lock");
    if (!table)
        return real_spin_lock(l);
    int r = pthread_spin_trylock(l);
    if (r != EBUSY)
        return r; /* acquired */
    if (!self_entry)
        self_entry = entry_of((uint32_t)syscall(SYS_gettid));
    struct ampsched_lock_entry *me = self_entry;
    if (!me)
        return real_spin_lock(l);
    uint64_t start = now_ns();
    __atomic_store_n(&me->spin_since_ns, start, __ATOMIC_RELEASE);
    r = real_spin_lock(l);
    uint64_t spun = now_ns() - start;
    /* The total first, then the mark: the agent never sees the spin in neither (it may see it
     * in both for an instant, an overestimate of one sample's reading at most). */
    __atomic_fetch_add(&me->spin_ns, spun, __ATOMIC_RELEASE);
    __atomic_store_n(&me->spin_since_ns, 0, __ATOMIC_RELEASE);
    return r;
}
