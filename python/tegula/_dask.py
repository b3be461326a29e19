"""``scheduler=client`` (a ``distributed.Client``) and ``scheduler="dask"`` (the default client):
a plan's fragments run as tasks of the user's Dask cluster, each on the worker tegula placed it
on — or, with ``placement="dask"``, wherever Dask's scheduler puts it.

As on Ray (``_ray.py``), the plan is cut and placed in Rust; this only ships it. The caller's
blocks are scattered once, each to the worker it is placed on; each fragment is a task with a
key of its own (``("tegula-fragment-<run>", k)``) reading its input blocks' futures. A
fragment making several blocks returns them as a tuple. Where none is returned to the caller
and every reader runs on the same worker, or the blocks are small together, the readers take
their block out of it themselves; else a small task per block on the same worker splits it,
so a reader elsewhere fetches only the block it reads. Fragments of one depth on one worker
that make small blocks run as one task per thread of the worker (``_batches``), their blocks
one tuple. The workers report each fragment's node, times, block
sizes and peak as events; the bytes moved between workers come from their transfer logs.

Fragments are pinned (``allow_other_workers=False``): Dask neither runs nor steals them
anywhere else, so the bytes moved are the ones tegula's placement planned. A worker that
leaves takes its fragments, and the blocks it held, with it; the run then stops, and the
computation is planned again for the workers left (``run`` returns None), and run again.
With ``placement="dask"`` nothing is pinned: Dask reruns lost work itself.
"""

import itertools
import operator
import time
import uuid
import weakref

from ._cluster_measure import Measured

# As on Ray, for a plan whose simulated peak passes a worker's memory limit: fragments a
# worker is given at once per thread. Others are submitted whole: a worker keeps a copy of a
# block it fetched only while a task of its own still needs it, so fragments submitted later
# would fetch it again. Then how long nothing may end before the workers are checked (a
# placed one gone: the plan is made again), and how long a cluster without workers is
# waited for.
IN_FLIGHT_PER_THREAD = 2
STALL_CHECK_S = 5
# The blocks of a fragment read elsewhere go there together, as the fragment's tuple, when they
# hold no more than this: a task per block costs the scheduler and the worker about a
# millisecond, what loopback moves a megabyte in. (Logistic regression's row blocks make a
# gradient's and a Hessian's partial, read by two workers: 0.55 s a Newton step with the
# tasks, 0.51 without, against 0.41 on the threaded executor.)
WHOLE_TUPLE_BYTES = 1 << 20
NO_WORKERS_WAIT_S = 60
# The topic the workers report fragments under (one for the process: the scheduler keeps a
# log per topic).
TOPIC = "tegula-fragments"
PLACEMENTS = ("tegula", "dask")

_runs: dict[str, list[object]] = {}
_runners: dict[tuple[int, str], tuple[str, object]] = {}
_names = itertools.count()


class WorkersChanged(Exception):
    """A worker fragments were placed on has left the cluster."""


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ImportError('scheduler="dask" needs dask.distributed: pip install "tegula[dask]"') from None
    return distributed


def is_client(scheduler):
    """Whether `scheduler` is a ``distributed.Client``."""
    return any(c.__name__ == "Client" and c.__module__.startswith("distributed") for c in type(scheduler).__mro__)


def executor_name(scheduler, placement=None):
    """The name tegula's executor registry knows `scheduler` by: a Dask client (or ``"dask"``,
    the default client) gets a runner registered for it, placing as `placement` says; any
    other name is itself."""
    placement = "tegula" if placement is None else placement
    if placement not in PLACEMENTS:
        raise ValueError(f"placement must be one of {PLACEMENTS}, got {placement!r}")
    if not is_client(scheduler) and scheduler != "dask":
        if placement != "tegula":
            raise ValueError(f'placement="{placement}" needs a Dask scheduler, not {scheduler!r}')
        return scheduler
    client = None if scheduler == "dask" else scheduler
    key = (id(client), placement)
    entry = _runners.get(key)
    if entry is None or (client is not None and entry[1]() is not client):
        from . import _tegula

        name = f"_dask-{next(_names)}"  # "_": a name the registry never lists to users
        ref = None if client is None else weakref.ref(client)
        _tegula.register_hosted_executor(name, Runner(ref, placement))
        entry = _runners[key] = (name, ref or (lambda: None))
    return entry[0]


def _run_fragment(run, k, fragment, memory, parts, *blocks):
    """Runs fragment `k` on a worker (`_blocks_of`); returns its block (or a tuple of its
    blocks)."""
    out = _blocks_of(run, k, fragment, memory, parts, blocks)
    return out[0] if len(out) == 1 else tuple(out)


def _run_batch(run, fragments, *blocks):
    """Runs `fragments` (each `(k, fragment, memory, parts, count of its blocks given)`, its
    blocks given in turn) one after another on a worker; returns all their blocks, in turn,
    as one tuple."""
    out, at = [], 0
    for k, fragment, memory, parts, count in fragments:
        out += _blocks_of(run, k, fragment, memory, parts, blocks[at:at + count])
        at += count
    return tuple(out)


def _blocks_of(run, k, fragment, memory, parts, blocks):
    """Runs fragment `k` given `blocks` (each the block itself, or the tuple of another
    fragment's blocks holding it at the index `parts` names); reports where and when it ran,
    its blocks' sizes and its peak; returns its blocks."""
    from distributed import get_worker

    from . import _tegula

    start = time.time()
    given = [b if i is None else b[i] for b, i in zip(blocks, parts)]
    out, peak = _tegula.run_fragment(fragment, given, memory=memory, return_peak=True)
    worker = get_worker()
    worker.log_event(TOPIC, [run, k, start, time.time(), worker.address, [b.nbytes for b in out], peak])
    return out


def _received(keys, dask_worker):
    """On a worker: (the peer, bytes) of each transfer of `keys` it received, and whether its
    log still holds every transfer (it keeps the latest only)."""
    log = dask_worker.transfer_incoming_log
    got = [(e["who"], sum(n or 0 for k, n in e["keys"].items() if str(k) in keys)) for e in log]
    return [g for g in got if g[1]], log.maxlen is None or len(log) < log.maxlen


def live_workers(client):
    """The scheduler's workers by address, asked now: ``Client.scheduler_info`` returns a cache
    that the client's periodic refresh may have just replaced with one listing no worker."""
    return client.sync(client.scheduler.identity, n_workers=-1)["workers"]


def submit_whole(peaks, memory):
    """Whether a plan whose nodes peak at `peaks` bytes (simulated) is submitted whole to
    workers of `memory` bytes each (None: unknown)."""
    return all(m is None or peak <= m for peak, m in zip(peaks, memory))


def _on_event(event):
    _, (run, *report) = event
    if run in _runs:
        _runs[run].append(report)


class Runner:
    """What tegula's executor registry calls for a Dask scheduler (see ``hosted.rs``)."""

    def __init__(self, client, placement):
        self.client_ref, self.placement = client, placement

    def client(self):
        if self.client_ref is None:
            try:
                return _distributed().default_client()
            except ValueError:
                raise ValueError('scheduler="dask" needs a distributed.Client: create one, or pass scheduler=client') from None
        client = self.client_ref()
        if client is None or client.status in ("closing", "closed"):
            raise RuntimeError("the Dask client given as scheduler is closed")
        return client

    def nodes(self, workers):
        """The number of workers and the memory limit of the smallest (None: unknown)."""
        client = self.client()
        info, since = live_workers(client), time.monotonic()
        while not info and time.monotonic() - since < NO_WORKERS_WAIT_S:
            time.sleep(0.1)  # a cluster between its workers (restarting, scaling up) gets a while
            info = live_workers(client)
        if not info:
            raise RuntimeError(f"the Dask cluster has had no workers to run tegula's fragments for {NO_WORKERS_WAIT_S} s")
        self.workers = sorted(info)
        self.threads = [max(1, int(info[w].get("nthreads") or 1)) for w in self.workers]
        self.memory = [int(info[w].get("memory_limit") or 0) or None for w in self.workers]
        known = [m for m in self.memory if m]
        return len(self.workers), min(known) if known else None

    def run(self, plan, events):
        """Runs `plan`'s fragments; returns the result blocks by task id and what each worker
        did, or None when a worker the plan placed fragments on has left (plan again)."""
        try:
            return _Run(self.client(), plan, self, events).all()
        except WorkersChanged:
            return None


class _Run:
    """One computation on Dask: fragments submitted as the plan's dispatch (Rust's
    ``Dispatch``) admits them — all at once, or at most a few in flight per worker when the
    plan's simulated peak passes a worker's memory — each block's future let go once the
    dispatch says no fragment still reads it."""

    def __init__(self, client, plan, runner, events):
        self.client, self.plan, self.events = client, plan, events
        self.workers, self.threads, self.memory = runner.workers, runner.threads, runner.memory
        self.budget = [m // t if m else None for m, t in zip(self.memory, self.threads)]
        self.pinned = runner.placement == "tegula"
        self.fragments = plan.fragments()
        self.output_bytes = plan.output_bytes()
        # Each fragment's depth: one more than the deepest fragment making a block it reads.
        maker, self.depth = {}, []
        for k, (_, inputs, outputs, _, _) in enumerate(self.fragments):
            self.depth.append(1 + max((self.depth[maker[t]] for t in inputs if t in maker), default=0))
            maker.update((t, k) for t in outputs)
        self.run_id = uuid.uuid4().hex[:16]
        self.futures = {}
        self.block_keys = {}
        # Blocks read out of their fragment's tuple (by index), and the workers reading each.
        self.parts = {}
        self.readers = {}
        for _, inputs, _, node, _ in self.fragments:
            for t in inputs:
                self.readers.setdefault(t, set()).add(node)
        self.keys = set()
        self.returned = {t for tasks in plan.outputs() for t in tasks}
        self.in_flight = {}
        if submit_whole(plan.peaks(), self.memory):
            self.dispatch = plan.dispatch(whole=True)
        elif not self.pinned:
            self.dispatch = plan.dispatch(pooled=IN_FLIGHT_PER_THREAD * sum(self.threads))
        else:
            self.dispatch = plan.dispatch(slots=[IN_FLIGHT_PER_THREAD * t for t in self.threads], memory=self.memory)
        self.reports = []
        self.reported = set()
        self.let_go_after = {}
        self.measured = Measured(self.workers)
        self.last_end = time.monotonic()
        self.no_workers_since = None

    def all(self):
        _runs[self.run_id] = self.reports
        self.client.subscribe_topic(TOPIC, _on_event)
        try:
            return self._all()
        finally:
            _runs.pop(self.run_id, None)

    def _all(self):
        self._scatter_given()
        while not self.dispatch.started_all():
            admitted = list(iter(self.dispatch.start, None))
            if admitted:
                self._submit(admitted)
            else:
                self._wait_for_one()
        while self.in_flight:
            self._wait_for_one()
        wanted = sorted(self.returned)
        values = self._gather([self.futures[t] for t in wanted])
        self._note_reports(wait=True)
        for t in wanted:
            self.measured.let_go(t)
        self._use_transfer_logs()
        return dict(zip(wanted, values)), self.measured.result(sum(v.nbytes for v in values))

    def _scatter_given(self):
        """The caller's blocks, scattered once: each to its worker, or (not placed by tegula)
        where Dask puts them."""
        now, by_node = time.time(), {}
        for task, node in self.plan.given():
            by_node.setdefault(node if self.pinned else 0, []).append(task)
        for node, tasks in by_node.items():
            blocks = [self.plan.given_block(t) for t in tasks]
            where = [self.workers[node]] if self.pinned else None
            futures = self.client.scatter(blocks, workers=where, hash=False)
            holders = self.client.who_has(futures)
            for t, block, future in zip(tasks, blocks, futures):
                self.futures[t] = future
                self.keys.add(str(future.key))
                self.measured.gave(t, self.measured.node(holders[future.key][0]), block.nbytes, now)

    def _where(self, node):
        return dict(workers=[self.workers[node]]) if self.pinned else {}

    def _submit(self, ks):
        """Submits fragments `ks` as one graph: the scheduler learns them in one message, so no
        worker lets go of a block it fetched before a later fragment of its own that reads it
        has arrived (it would fetch the block again)."""
        from dask._task_spec import Task, TaskRef
        from dask.highlevelgraph import HighLevelGraph, MaterializedLayer

        batches = self._batches(ks)
        batch_of = {k: batch for batch in batches for k in batch}
        # First the key of every block they make (a reader may come before its maker here).
        fragment_keys, split = {}, set()
        for batch in batches:
            key = (f"tegula-batch-{self.run_id}", batch[0])
            blocks = [t for k in batch for t in self.fragments[k][2]]
            for i, t in enumerate(blocks):
                self.block_keys[t], self.parts[t] = key, i
            fragment_keys.update((k, key) for k in batch)
        for k in (k for k in ks if k not in batch_of):
            outputs = self.fragments[k][2]
            key = fragment_keys[k] = (f"tegula-fragment-{self.run_id}", k)
            if len(outputs) == 1:
                self.block_keys[outputs[0]] = key
            elif self._whole(k):
                for i, t in enumerate(outputs):
                    self.block_keys[t], self.parts[t] = key, i
            else:
                split.add(k)
                self.block_keys.update((t, (f"tegula-block-{self.run_id}", t)) for t in outputs)
        tasks, priority = {}, {}
        for k in ks:
            batch = batch_of.get(k, [k])
            if k != batch[0]:
                continue
            node, key = self.fragments[k][3], fragment_keys[k]
            # Earlier fragments first, where a worker has several ready (Dask runs higher first).
            priority[key] = len(self.fragments) - k
            calls = [self._call(j, node) for j in batch]
            refs = [TaskRef(self._key(t)) for j in batch for t in self.fragments[j][1]]
            run = (_run_batch, self.run_id, calls) if k in batch_of else (_run_fragment, self.run_id, *calls[0][:4])
            tasks.setdefault(node, {})[key] = Task(key, *run, *refs)
            for i, t in enumerate(self.fragments[k][2] if k in split else ()):
                block = self.block_keys[t]
                priority[block] = priority[key]
                tasks[node][block] = Task(block, operator.getitem, TaskRef(key), i)
        layers = {
            f"tegula-{self.run_id}-{ks[0]}-{node}": MaterializedLayer(graph, annotations=dict(priority=priority.__getitem__, **self._where(node)))
            for node, graph in tasks.items()
        }
        graph = HighLevelGraph(layers, {name: set() for name in layers})
        keys = [key for graph in tasks.values() for key in graph]
        futures = dict(zip(keys, self.client.get(graph, keys, sync=False)))
        self.keys.update(str(key) for key in keys)
        for k in ks:
            self.in_flight[k] = futures[fragment_keys[k]]
            for t in self.fragments[k][2]:
                self.futures[t] = futures[self.block_keys.pop(t)]

    def _call(self, k, node):
        """Fragment `k` as `_run_batch` takes it, run on worker `node`."""
        fragment, inputs = self.fragments[k][:2]
        return k, fragment, self.budget[node], tuple(self.parts.get(t) for t in inputs), len(inputs)

    def _batches(self, ks):
        """Fragments of `ks` run as one task per thread of their worker, one after another:
        those placed by tegula, of one depth on one worker, that make small blocks
        (``WHOLE_TUPLE_BYTES`` together, per batch too) that none returns. Such fragments run
        on their worker in turn anyway; as one task each, the scheduler ran dozens of tasks a
        step of logistic regression (a fragment per row block), costing more than the
        fragments' work on small blocks. Lists of two or more, in plan order."""
        if not self.pinned:
            return []
        # Only fragments of one depth are batched together: none of them reads another, and
        # every block passing between batches goes to a greater depth, so no batch waits for
        # itself or for another batch that waits for it.
        by_thread, per_group = {}, {}
        for k in ks:
            if self._small_tuple(k):
                node = self.fragments[k][3]
                group = (node, self.depth[k])
                count = per_group[group] = per_group.get(group, 0) + 1
                by_thread.setdefault((*group, count % self.threads[node]), []).append(k)
        batches = []
        for ks_ in by_thread.values():
            batch, size = [], 0
            for k in ks_:
                if batch and size + self.output_bytes[k] > WHOLE_TUPLE_BYTES:
                    batches.append(batch)
                    batch, size = [], 0
                batch.append(k)
                size += self.output_bytes[k]
            batches.append(batch)
        return [b for b in batches if len(b) > 1]

    def _whole(self, k):
        """Whether fragment `k`'s blocks go to their readers as its tuple, each reader taking
        its block out, with no task per block for the scheduler to run: where none goes to the
        caller, and either the blocks are small together (``_small_tuple``), so a reader
        elsewhere fetching them all costs less than those tasks, or every reader runs on the
        fragment's worker (placed by tegula)."""
        _, _, outputs, node, _ = self.fragments[k]
        here = self.pinned and all(self.readers.get(t, set()) <= {node} for t in outputs)
        return self._small_tuple(k) or (here and not any(t in self.returned for t in outputs))

    def _small_tuple(self, k):
        """Whether fragment `k`'s blocks, none returned to the caller, come to no more than
        ``WHOLE_TUPLE_BYTES`` together."""
        outputs = self.fragments[k][2]
        return self.output_bytes[k] <= WHOLE_TUPLE_BYTES and not any(t in self.returned for t in outputs)

    def _key(self, t):
        """The key of block `t`: a future's, or one submitted in the same graph."""
        return self.block_keys[t] if t in self.block_keys else self.futures[t].key

    def _wait_for_one(self):
        """Takes the fragments that ended (and the workers' reports); when none has, checks
        the workers and waits a moment."""
        ended = [k for k, f in self.in_flight.items() if f.done()]
        for k in ended:
            self._ended(k, self.in_flight.pop(k))
        self._note_reports()
        if not ended:
            self._check_stalled()
            time.sleep(0.005)

    def _check_stalled(self):
        """When nothing has ended for ``STALL_CHECK_S``: raises ``WorkersChanged`` when a
        worker fragments are pinned to has left, or once the cluster has had no worker for
        ``NO_WORKERS_WAIT_S``."""
        now = time.monotonic()
        if now - self.last_end <= STALL_CHECK_S:
            return
        self.last_end = now
        alive = set(live_workers(self.client))
        if self.pinned and not set(self.workers) <= alive:
            # What this run still holds: blocks let go of are released already.
            self.client.cancel(list(self.futures.values()) + list(self.in_flight.values()))
            raise WorkersChanged(sorted(set(self.workers) - alive))
        self.no_workers_since = None if alive else (self.no_workers_since or now)
        if self.no_workers_since is not None and now - self.no_workers_since >= NO_WORKERS_WAIT_S:
            raise RuntimeError(
                f"the Dask cluster has had no workers for {NO_WORKERS_WAIT_S} s: "
                f"{len(self.in_flight)} of tegula's fragments can no longer run"
            )

    def _lost(self, what):
        """A fragment or block was cancelled or lost: when a worker has left the cluster since
        the run began, it took blocks with it — the caller's blocks scattered to it too, which
        Dask cannot make again — so the computation is planned again for the workers left;
        else ``what`` is the error."""
        gone = set(self.workers) - set(live_workers(self.client))
        if gone:
            self.client.cancel(list(self.futures.values()) + list(self.in_flight.values()))
            raise WorkersChanged(sorted(gone))
        raise RuntimeError(what)

    def _ended(self, k, done):
        """Fragment `k` ended: its error is raised as itself, and the blocks no fragment reads
        any more are let go."""
        self.last_end = time.monotonic()
        if done.status in ("cancelled", "lost"):
            self._lost(f"fragment {k}: {done.status}")
        if done.status != "finished":
            error = done.exception()
            raise error if isinstance(error, BaseException) else RuntimeError(f"fragment {k}: {done.status}")
        finished, _ = self.dispatch.ended(k, [])
        for t in finished:
            del self.futures[t]
        # Measured once the worker's report of `k` (where it read them) has come too.
        self.let_go_after[k] = (finished, time.time())
        if k in self.reported:
            self._let_go(k)

    def _let_go(self, k):
        finished, when = self.let_go_after.pop(k)
        for t in finished:
            self.measured.let_go(t, when=when)

    def _note_reports(self, wait=False):
        """Takes the workers' reports of ended fragments (waiting, with `wait`, until every
        fragment's has come, for a few seconds at most)."""
        deadline = time.monotonic() + 10
        while True:
            while self.reports:
                k, start, end, address, sizes, peak = self.reports.pop(0)
                if k in self.reported:
                    continue  # a fragment run again, after its worker was lost
                self.reported.add(k)
                node = self.measured.node(address)
                _, inputs, outputs, _, _ = self.fragments[k]
                self.measured.ran(node, start, end, peak, inputs, outputs, sizes)
                self.events.done(k, node, start, end)
                if k in self.let_go_after:
                    self._let_go(k)
            if not wait or len(self.reported) == len(self.fragments) or time.monotonic() > deadline:
                return
            time.sleep(0.01)

    def _gather(self, futures):
        """The results' values, once every one is ready (checking the workers meanwhile: a
        result lost with its worker is made again by Dask only where it may run)."""
        distributed = _distributed()
        while True:
            try:
                distributed.wait(futures, timeout=STALL_CHECK_S)
                break
            except distributed.TimeoutError:  # asyncio's, the builtin only from Python 3.11
                self._check_stalled()
        try:
            return self.client.gather(futures)
        except distributed.CancelledError as e:
            self._lost(f"a block of tegula's computation was lost with its worker: {e}")

    def _use_transfer_logs(self):
        """The bytes each worker received, and from whom, from the workers' transfer logs, in
        place of those counted from where fragments ran, when every log is complete."""
        logs = self.client.run(_received, self.keys)
        if not all(complete for _, complete in logs.values()):
            return
        moved = [(self.measured.node(to), self.measured.node(frm), n) for to, (got, _) in logs.items() for frm, n in got]
        self.measured.transferred(moved)
