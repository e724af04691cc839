"""The Ray backend of `ampsched sweep`: the same batches as Ray tasks, on a running Ray cluster
or on a local Ray instance started for the sweep.

Why a second backend: one machine's process pool is bounded by its cores; a Ray cluster spreads
the batches over many machines. Nothing else changes: each task is the sweep's own (pickled by
reference, so every Ray worker must be able to import this ampsched), the sweep saves and merges
the rows as with the local backend, and the file does not depend on where the rows came from.
Ray is imported only here, on use: it is an optional extra (`pip install 'ampsched[ray]'`).
"""

import logging
import os
import re
import socket
import subprocess
import sys

from ._sweep import WorkerDied, _error, check_jobs

# A typo in --address must be one error line within seconds. ray.init itself, given an address
# where no Ray head answers, retries for 20 s to several minutes (a closed port, a silent
# server), prints its core's retry warnings on the terminal, and may end in SystemExit; so the
# address is first tried with a TCP connection, then by a probe process that connects with
# ray.init and is killed past PROBE_TIMEOUT_S.
CONNECT_TIMEOUT_S = 10.0
PROBE_TIMEOUT_S = 30.0
PROBE_RETRIES = "5"  # the probe's connection attempts, about a second each (Ray's default: 20)
_PROBE = """import logging, sys, ray
ray.init(address=sys.argv[1], logging_level=logging.ERROR, log_to_driver=False)
ray.shutdown()
"""


_EXCEPTION_LINE = re.compile(r"^[\w.]*(Error|Exception): ")


def _import_ray():
    try:
        import ray
    except ImportError:
        raise _error("backend ray: Ray is not installed: pip install 'ampsched[ray]'") from None
    return ray


def _host_port(address: str):
    """(host, port) of a GCS address "HOST:PORT" or a Ray Client address "ray://HOST:PORT"."""
    rest = address[len("ray://") :] if address.startswith("ray://") else address
    host, colon, port = rest.rpartition(":")
    host = host.strip("[]")  # an IPv6 address is written [::1]:6379
    if not colon or not host or not (port.isascii() and port.isdigit()) or not 0 < int(port) < 65536:
        raise _error(f"address: {address[:256]!r}: expected HOST:PORT, ray://HOST:PORT or auto")
    return host, int(port)


def _check_reachable(address: str) -> None:
    host, port = _host_port(address)
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as error:  # refused, unknown host, timed out
        reason = error.strerror or str(error) or type(error).__name__
        raise _error(f"address: no Ray cluster answers at {address[:256]} ({reason})") from None


def _probe(address: str) -> None:
    env = dict(os.environ)
    env.setdefault("RAY_gcs_server_port_wait_time_s", PROBE_RETRIES)  # a user's own budget wins
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _PROBE, address], env=env, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S
        )
    except subprocess.TimeoutExpired:  # the child is killed
        raise _error(f"address: no Ray cluster answered at {address[:256]} within {PROBE_TIMEOUT_S:g} s") from None
    if proc.returncode != 0:
        # Ray chains its exceptions: the first one printed is the cause ("AuthenticationError:
        # ... token is missing"), the last only "Failed to connect to Ray cluster at ...".
        # A message may itself end in a quoted traceback ("Last connection error: Traceback"):
        # the cause is further down then.
        causes = [
            line.strip()
            for line in proc.stderr.splitlines()
            if _EXCEPTION_LINE.match(line) and not line.rstrip().endswith("(most recent call last):")
        ]
        reason = causes[0] if causes else f"ray.init exited with status {proc.returncode}"
        raise _error(f"address: could not connect to Ray at {address[:256]}: {reason[:256]}")


def _call(task, batch):
    # ray.remote takes functions, not the functools.partial the sweep hands a backend.
    return task(batch)


def _on_this_machine(ray) -> bool:
    """Whether every node of the cluster is this machine (a local instance): then the workers
    write their part files themselves, as local worker processes do."""
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    return bool(nodes) and all(n.get("NodeManagerAddress") == ray.util.get_node_ip_address() for n in nodes)


class RayBackend:
    """Batches as Ray tasks. address=None starts a local Ray instance (num_cpus=jobs, or all
    CPUs) and shuts it down in close(); an address ("HOST:PORT" of the head node, "ray://..."
    for Ray Client, "auto") connects to a running cluster and close() disconnects, leaving it
    running. A process that already called ray.init keeps its connection as it is, for this
    sweep and after it. workers: jobs, else the cluster's CPUs."""

    def __init__(self, address=None, jobs=None):
        jobs = check_jobs(jobs)
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise _error(f"address: expected HOST:PORT, ray://HOST:PORT or auto, got {address!r}")
        ray = self._ray = _import_ray()
        self._initialized_here = False  # then close() undoes our ray.init, and only then
        if not ray.is_initialized():
            if address is not None:
                address = address.strip()
                if address != "auto":
                    _check_reachable(address)
                _probe(address)
            options = dict(
                include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False, ignore_reinit_error=True
            )
            try:
                if address is None:
                    # "local" starts a new instance even when RAY_ADDRESS names a cluster:
                    # without --address the sweep stays on this machine, as documented.
                    ray.init(address="local", num_cpus=jobs, **options)
                else:
                    ray.init(address=address, **options)
            except (Exception, SystemExit) as error:
                # ray.init ends a failed connection with SystemExit or a ConnectionError, and a
                # local start that fails (its processes killed under a memory limit, a full /tmp)
                # with whatever its start-up code raised: all of them are one line here.
                reason = " ".join(str(error).split()) if not isinstance(error, SystemExit) else "it did not answer"
                reason = reason or type(error).__name__
                where = "start a local Ray instance" if address is None else f"connect to Ray at {address[:256]}"
                raise _error(f"backend ray: could not {where}: {reason[:256]}") from None
            self._initialized_here = True
        try:
            cpus = int(ray.cluster_resources().get("CPU", 0))
            self.workers = jobs if jobs is not None else max(1, cpus)
            self.shares_disk = _on_this_machine(ray)
        except BaseException:
            self.close()  # the sweep never gets this backend to close
            raise

    def run(self, task, batches):
        """Yields each batch's result as its Ray task finishes. At most `workers` tasks are in
        flight, so --jobs bounds the sweep's share of a larger cluster, and a batch is drawn
        only when one finishes (the sweep sizes the next ones from it); on an exception (Ctrl-C
        included) or when the caller stops reading, the tasks in flight are cancelled."""
        ray = self._ray
        remote = ray.remote(num_cpus=1)(_call)
        queue = iter(batches)
        pending = []

        batches_of = {}  # ref -> its batch, so that a failure names it

        def submit():
            batch = next(queue, None)
            if batch is not None:
                ref = remote.remote(task, batch)
                batches_of[ref] = batch
                pending.append(ref)

        try:
            for _ in range(self.workers):
                submit()
            while pending:
                ready, rest = ray.wait(pending, num_returns=1)
                pending[:] = rest
                for ref in ready:
                    try:
                        result = ray.get(ref)
                    except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as error:
                        raise WorkerDied(batches_of[ref], f"a Ray worker died ({type(error).__name__})") from None
                    del batches_of[ref]
                    yield result
                    submit()  # after the sweep has seen the result, which sizes this batch
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)  # a batch in flight is wasted work: its rows are never read
            raise

    def close(self) -> None:
        if self._initialized_here:
            self._initialized_here = False
            self._ray.shutdown()
