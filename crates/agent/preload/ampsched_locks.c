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
 * Built a second time with AMPSCHED_RECORD for `ampsched record` (the agent preloads that build
 * only when it records, so its other runs pay nothing for it): the same, plus an event log (the
 * header's struct ampsched_event_log) of what a replay needs of the program's synchronisation,
 * each event stamped with CLOCK_MONOTONIC and the acting thread's CPU clock
 * (CLOCK_THREAD_CPUTIME_ID, a system call: no vDSO serves CPU-time clocks), so that it has a
 * place in the thread's work: thread creation (a trampoline around the start routine) and exit
 * (a thread-specific key's destructor: return, pthread_exit and cancellation alike), contended
 * mutex waits, unlocks of mutexes with waiters, condition-variable waits and signals, joins,
 * barrier waits (every call, the last arrival's too: it does not block, but it is a party).
 *
 * Not seen: mutexes re-acquired inside glibc (pthread_cond_wait's relock), futexes used directly
 * (Rust's std, Go), spin loops of a program's or runtime's own (OpenMP's libgomp spins in its own
 * code), statically linked programs, and setuid programs (which ignore LD_PRELOAD). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
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

#ifdef AMPSCHED_RECORD
static struct ampsched_event_log *event_log;
static void log_event(uint32_t kind, uint32_t tid, uint64_t start, uint64_t end, uint64_t cpu, uint64_t object, uint32_t other, uint32_t flags);
static void record_init(void);
static uint64_t thread_cpu_ns(void);
#endif

/* A child forked without exec inherits the thread-local entry pointer of its parent's thread:
 * it must find (or make) its own. */
#ifdef AMPSCHED_RECORD
static __thread uint32_t self_tid; /* the thread's tid, 0 until first asked (gettid is a system call) */
#endif

/* The shared file named by environment variable `var`, mapped read-write (`size` bytes); NULL
 * when the variable is unset or the file cannot be opened or mapped (the program then runs
 * unobserved, as without the library). */
static void *map_shared(const char *var, size_t size) {
    const char *path = getenv(var);
    if (!path)
        return NULL;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

static void forget_entry(void) {
    self_entry = NULL;
#ifdef AMPSCHED_RECORD
    self_tid = 0; /* the child's one thread has a tid of its own */
#endif
}

__attribute__((constructor)) static void ampsched_locks_init(void) {
    real_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
    real_spin_lock = (int (*)(pthread_spinlock_t *))dlsym(RTLD_NEXT, "pthread_spin_lock");
    pthread_atfork(NULL, NULL, forget_entry);
    struct ampsched_lock_table *t = map_shared("AMPSCHED_LOCKS_SHM", sizeof *t);
    if (!t)
        return;
    if (t->magic != AMPSCHED_LOCKS_MAGIC || t->version != AMPSCHED_LOCKS_VERSION) {
        munmap(t, sizeof *t);
        return;
    }
    table = t;
#ifdef AMPSCHED_RECORD
    record_init();
#endif
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
#ifdef AMPSCHED_RECORD
    uint64_t cpu = event_log ? thread_cpu_ns() : 0;
#endif
    uint64_t start = now_ns();
    if (me) {
        __atomic_store_n(&me->waiting_for, holder, __ATOMIC_RELAXED);
        __atomic_store_n(&me->wait_since_ns, start, __ATOMIC_RELEASE);
    }
    r = real_lock(m);
    uint64_t end = now_ns();
    uint64_t waited = end - start;
#ifdef AMPSCHED_RECORD
    if (event_log)
        log_event(AMPSCHED_EV_MUTEX_WAIT, self, start, end, cpu, (uint64_t)(uintptr_t)m, holder, 0);
#endif
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

#ifdef AMPSCHED_RECORD
/* ---- the event log (`ampsched record`) */

/* glibc's mutex kinds (nptl/pthreadP.h: PTHREAD_MUTEX_KIND_MASK_NP, PTHREAD_MUTEX_ROBUST_NORMAL_NP,
 * PTHREAD_MUTEX_PRIO_INHERIT_NP, PTHREAD_MUTEX_PRIO_PROTECT_NP) and the futex word's waiters bit
 * (Linux include/uapi/linux/futex.h FUTEX_WAITERS), by which the lock word says "waiters". */
#define MUTEX_KIND_MASK 3
#define MUTEX_KIND_RECURSIVE 1
#define MUTEX_ROBUST 16
#define MUTEX_PRIO_INHERIT 32
#define MUTEX_PRIO_PROTECT 64
#define FUTEX_WAITERS_BIT 0x80000000u
/* glibc's condition variable counts its waiters in __wrefs above its three flag bits
 * (nptl/pthread_cond_common.c; pthread_cond_signal returns at once when `__wrefs >> 3` is 0). */
#define COND_WREFS_SHIFT 3
/* The version of the condition-variable functions of today's layout (glibc 2.3.2's, on the
 * architectures older than it; the others have only one version, which dlsym finds). */
#define COND_VERSION "GLIBC_2.3.2"

static int (*real_unlock)(pthread_mutex_t *);
static int (*real_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static int (*real_join)(pthread_t, void **);
static int (*real_cond_wait)(pthread_cond_t *, pthread_mutex_t *);
static int (*real_cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
static int (*real_cond_signal)(pthread_cond_t *);
static int (*real_cond_broadcast)(pthread_cond_t *);
static int (*real_barrier_wait)(pthread_barrier_t *);
/* Its value is set in every thread the library knows (1): its destructor logs the thread's exit. */
static pthread_key_t exit_key;

/* `name` at `version` after this library (dlvsym), else its default (dlsym). dlsym alone is not
 * enough for the condition-variable functions: glibc before 2.36 could return their oldest
 * version (GLIBC_2.2.5 on x86-64, the pre-2.3.2 layout, sourceware bug 14932), which would
 * misread every condition variable of today's programs. */
static void *next(const char *name, const char *version) {
    void *p = version ? dlvsym(RTLD_NEXT, name, version) : NULL;
    return p ? p : dlsym(RTLD_NEXT, name);
}

static void resolve(void) {
    real_unlock = (int (*)(pthread_mutex_t *))next("pthread_mutex_unlock", NULL);
    real_create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))next("pthread_create", NULL);
    real_join = (int (*)(pthread_t, void **))next("pthread_join", NULL);
    real_cond_wait = (int (*)(pthread_cond_t *, pthread_mutex_t *))next("pthread_cond_wait", COND_VERSION);
    real_cond_timedwait =
        (int (*)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *))next("pthread_cond_timedwait", COND_VERSION);
    real_cond_signal = (int (*)(pthread_cond_t *))next("pthread_cond_signal", COND_VERSION);
    real_cond_broadcast = (int (*)(pthread_cond_t *))next("pthread_cond_broadcast", COND_VERSION);
    real_barrier_wait = (int (*)(pthread_barrier_t *))next("pthread_barrier_wait", NULL);
}

static uint64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint32_t gettid_(void) {
    if (!self_tid)
        self_tid = (uint32_t)syscall(SYS_gettid);
    return self_tid;
}

static void log_event(uint32_t kind, uint32_t tid, uint64_t start, uint64_t end, uint64_t cpu, uint64_t object, uint32_t other, uint32_t flags) {
    struct ampsched_event_log *l = event_log;
    uint64_t pos = __atomic_load_n(&l->head, __ATOMIC_RELAXED);
    struct ampsched_event *e;
    for (;;) {
        e = &l->ring[pos & (AMPSCHED_EVENTS_SLOTS - 1)];
        uint64_t seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
        int64_t dif = (int64_t)(seq - pos);
        if (dif == 0) {
            if (__atomic_compare_exchange_n(&l->head, &pos, pos + 1, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                break; /* the slot is this producer's */
        } else if (dif < 0) {
            /* The slot still holds the event of one lap before, unread: the ring is full. */
            __atomic_fetch_add(&l->lost, 1, __ATOMIC_RELAXED);
            return;
        } else {
            pos = __atomic_load_n(&l->head, __ATOMIC_RELAXED); /* another producer took it */
        }
    }
    e->kind = kind;
    e->tid = tid;
    e->start_ns = start;
    e->end_ns = end;
    e->cpu_ns = cpu;
    e->object = object;
    e->other = other;
    e->flags = flags;
    __atomic_store_n(&e->seq, pos + 1, __ATOMIC_RELEASE);
}

static void on_thread_exit(void *value) {
    (void)value;
    log_event(AMPSCHED_EV_EXIT, gettid_(), now_ns(), 0, thread_cpu_ns(), 0, 0, 0);
}

static void record_init(void) {
    resolve();
    struct ampsched_event_log *l = map_shared("AMPSCHED_EVENTS_SHM", sizeof *l);
    if (!l)
        return;
    if (l->magic != AMPSCHED_EVENTS_MAGIC || l->version != AMPSCHED_EVENTS_VERSION || l->slots != AMPSCHED_EVENTS_SLOTS ||
        pthread_key_create(&exit_key, on_thread_exit) != 0) {
        munmap(l, sizeof *l);
        return;
    }
    event_log = l;
    __atomic_fetch_add(&l->processes, 1, __ATOMIC_RELAXED);
    /* The main thread too: its pthread_exit runs the destructor (its return from main does not:
     * the process ends, and the agent sees it). */
    pthread_setspecific(exit_key, (void *)1);
}

/* What the trampoline needs of its thread's creation. */
struct start {
    void *(*routine)(void *);
    void *arg;
    uint32_t parent;
    uint64_t called_ns, parent_cpu_ns;
};

static void *trampoline(void *p) {
    struct start s = *(struct start *)p;
    free(p);
    log_event(AMPSCHED_EV_CREATE, gettid_(), s.called_ns, now_ns(), s.parent_cpu_ns, (uint64_t)(uintptr_t)pthread_self(), s.parent, 0);
    pthread_setspecific(exit_key, (void *)1);
    return s.routine(s.arg);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*routine)(void *), void *arg) {
    if (!real_create)
        resolve();
    struct start *s = event_log ? malloc(sizeof *s) : NULL;
    if (!s)
        return real_create(thread, attr, routine, arg);
    s->routine = routine;
    s->arg = arg;
    s->parent = gettid_();
    s->parent_cpu_ns = thread_cpu_ns();
    s->called_ns = now_ns();
    int r = real_create(thread, attr, trampoline, s);
    if (r != 0)
        free(s);
    return r;
}

int pthread_join(pthread_t thread, void **ret) {
    if (!real_join)
        resolve();
    if (!event_log)
        return real_join(thread, ret);
    uint64_t cpu = thread_cpu_ns(), start = now_ns();
    int r = real_join(thread, ret);
    if (r == 0)
        log_event(AMPSCHED_EV_JOIN, gettid_(), start, now_ns(), cpu, (uint64_t)(uintptr_t)thread, 0, 0);
    return r;
}

int pthread_mutex_unlock(pthread_mutex_t *m) {
    if (!real_unlock)
        resolve();
#ifdef __GLIBC__
    if (event_log) {
        /* The lock word (nptl/lowlevellock.h): 0 free, 1 taken with no waiters, 2 taken and
         * perhaps waiters (a thread about to sleep in the kernel's futex wait sets it); a robust
         * or priority-inheritance mutex holds its owner's tid and FUTEX_WAITERS instead. Read
         * before the unlock, by the owner: nobody else changes it from 2 but the owner. */
        int kind = m->__data.__kind;
        unsigned lock = (unsigned)__atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED);
        int waiters;
        if (kind & (MUTEX_ROBUST | MUTEX_PRIO_INHERIT))
            waiters = (lock & FUTEX_WAITERS_BIT) != 0;
        else if (kind & MUTEX_PRIO_PROTECT)
            waiters = 0; /* its word holds the priority ceiling too: not read */
        else
            waiters = lock > 1;
        /* A recursive mutex locked more than once stays held: not a release. */
        if ((kind & MUTEX_KIND_MASK) == MUTEX_KIND_RECURSIVE && m->__data.__count > 1)
            waiters = 0;
        if (waiters)
            log_event(AMPSCHED_EV_MUTEX_RELEASE, gettid_(), now_ns(), 0, thread_cpu_ns(), (uint64_t)(uintptr_t)m, 0, 0);
    }
#endif
    return real_unlock(m);
}

/* A wait, timed until `abstime` if `timed`. */
static int cond_wait(pthread_cond_t *c, pthread_mutex_t *m, int timed, const struct timespec *abstime) {
    uint64_t cpu = thread_cpu_ns(), start = now_ns();
    int r = timed ? real_cond_timedwait(c, m, abstime) : real_cond_wait(c, m);
    log_event(AMPSCHED_EV_COND_WAIT, gettid_(), start, now_ns(), cpu, (uint64_t)(uintptr_t)c, 0, r == ETIMEDOUT);
    return r;
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
    if (!real_cond_wait)
        resolve();
    return event_log ? cond_wait(c, m, 0, NULL) : real_cond_wait(c, m);
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime) {
    if (!real_cond_timedwait)
        resolve();
    return event_log ? cond_wait(c, m, 1, abstime) : real_cond_timedwait(c, m, abstime);
}

static void log_signal(pthread_cond_t *c, uint32_t broadcast) {
#ifdef __GLIBC__
    if ((__atomic_load_n(&c->__data.__wrefs, __ATOMIC_RELAXED) >> COND_WREFS_SHIFT) == 0)
        return; /* no waiter: wakes nobody */
#endif
    log_event(AMPSCHED_EV_COND_SIGNAL, gettid_(), now_ns(), 0, thread_cpu_ns(), (uint64_t)(uintptr_t)c, 0, broadcast);
}

int pthread_cond_signal(pthread_cond_t *c) {
    if (!real_cond_signal)
        resolve();
    if (event_log)
        log_signal(c, 0);
    return real_cond_signal(c);
}

int pthread_cond_broadcast(pthread_cond_t *c) {
    if (!real_cond_broadcast)
        resolve();
    if (event_log)
        log_signal(c, 1);
    return real_cond_broadcast(c);
}

int pthread_barrier_wait(pthread_barrier_t *b) {
    if (!real_barrier_wait)
        resolve();
    if (!event_log)
        return real_barrier_wait(b);
    uint64_t cpu = thread_cpu_ns(), start = now_ns();
    int r = real_barrier_wait(b);
    /* One thread per round returns PTHREAD_BARRIER_SERIAL_THREAD (glibc's: the last to arrive,
     * nptl/pthread_barrier_wait.c); an error (EINVAL) waited for nothing: not logged. */
    if (r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD)
        log_event(AMPSCHED_EV_BARRIER_WAIT, gettid_(), start, now_ns(), cpu, (uint64_t)(uintptr_t)b, 0, r == PTHREAD_BARRIER_SERIAL_THREAD);
    return r;
}
#endif
