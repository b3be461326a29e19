"""``scheduler="ray"``: a plan's fragments run as Ray tasks, each on the node tegula placed it on.

The plan is cut and placed in Rust (``ClusterPlan``, by ``hosted.rs``): fragments, not single tasks,
each pinned to its node; the blocks of arrays the caller holds are given once each, by a task
on the node they are placed on; only the blocks passing between fragments become Ray
objects, and the driver fetches nothing but the results. A node that dies takes its pinned
work elsewhere (the affinity is soft: it holds while the node lives), and Ray rebuilds lost
blocks from their lineage (no block the plan needs is made by ``ray.put``). Ray runs on the
cluster this process is connected to (``ray.init(address=...)``), or on a local one started
for the first computation.
"""

import os
import sys
import time

from ._cluster_measure import Measured

# Fragments a node is given at once, per CPU of that node: enough to keep its CPUs busy
# while the driver waits, few enough that sources do not run far ahead of their readers;
# fewer when their projected bytes would pass the node's memory.
IN_FLIGHT_PER_CPU = 2
# Result blocks are fetched to the driver once this many bytes of them are ready.
FETCH_BATCH_BYTES = 16 << 20
# A fragment whose node died or whose worker was killed runs again, up to this many times.
RETRIES = 5
# While nothing ends for this many seconds, the driver checks that the cluster still has a
# node with CPUs; when none has come back this many seconds later, the computation fails
# instead of waiting for ever on fragments no node can run.
STALL_CHECK_S = 5
NO_NODES_WAIT_S = 60

_remote: dict[str, object] = {}


def _ray():
    try:
        import ray
    except ImportError:
        raise ImportError('scheduler="ray" needs Ray: pip install "tegula[ray]"') from None
    return ray


def _functions(ray):
    """The two remote functions, defined once per process (Ray pickles them on first use)."""
    if not _remote:
        _remote["given"] = ray.remote(max_retries=RETRIES)(_given)
        _remote["run"] = ray.remote(max_retries=RETRIES)(_run_fragment)
    return _remote["given"], _remote["run"]


def _given(block):
    return block


def _run_fragment(fragment, memory, *blocks):
    """Runs one fragment; returns its blocks, then what it did: when it started and ended,
    the node it ran on, its blocks' sizes and the most bytes its executor held."""
    import ray

    from . import _tegula

    start = time.time()
    out, peak = _tegula.run_fragment(fragment, list(blocks), memory=memory, return_peak=True)
    node = ray.get_runtime_context().get_node_id()
    return (*out, (start, time.time(), node, [b.nbytes for b in out], peak))


def worker_nodes(ray):
    """The live nodes that have CPUs, in a fixed order (their ids)."""
    nodes = [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0]
    if not nodes:
        raise RuntimeError("the Ray cluster has no live node with CPUs to run tegula's fragments")
    return sorted(nodes, key=lambda n: n["NodeID"])


def _pinned(node):
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(node_id=node["NodeID"], soft=True)


class Runner:
    """What tegula's executor registry calls for ``scheduler="ray"`` (see ``hosted.rs``):
    the plan is cut and placed in Rust; this ships it."""

    def nodes(self, workers):
        """The number of worker nodes and the memory of the smallest (None: unknown)."""
        ray = _ray()
        if not ray.is_initialized():
            # As the process pool's workers: functions pickled by reference to the caller's
            # modules unpickle on the workers, which search the caller's module path.
            path = {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": path})
        self.cluster = worker_nodes(ray)
        memory = min(int(n["Resources"].get("memory", 0)) for n in self.cluster)
        return len(self.cluster), memory or None

    def run(self, plan, events):
        """Runs `plan`'s fragments; returns the result blocks by task id and the bytes Ray
        copied between nodes."""
        return _Run(_ray(), plan, self.cluster, events).all()


class _Run:
    """One computation on Ray: fragments submitted as the plan's dispatch (Rust's
    ``Dispatch``) admits them, a few in flight per node; the blocks it lets go of are released
    (after noting the nodes Ray copied them to) and the results it hands over fetched as
    others still run; measures what each node did as it goes."""

    def __init__(self, ray, plan, nodes, events):
        self.ray, self.plan, self.nodes, self.events = ray, plan, nodes, events
        self.fragments = plan.fragments()
        cpus = [max(1, int(n["Resources"].get("CPU", 1))) for n in nodes]
        memory = [int(n["Resources"].get("memory", 0)) or None for n in nodes]
        self.budget = [m // c if m else None for m, c in zip(memory, cpus)]
        self.dispatch = plan.dispatch(slots=[IN_FLIGHT_PER_CPU * c for c in cpus], memory=memory,
                                      fetch_batch=FETCH_BATCH_BYTES)
        self.refs = {}
        self.returned = {t for tasks in plan.outputs() for t in tasks}
        self.results = {}
        self.in_flight = {}
        self.measured = Measured([n["NodeID"] for n in nodes])
        self.driver_node = ray.get_runtime_context().get_node_id()
        self.last_end = time.monotonic()
        self.no_nodes_since = None

    def all(self):
        given, run = _functions(self.ray)
        now = time.time()
        for task, node in self.plan.given():
            pinned = _pinned(self.nodes[node])
            block = self.plan.given_block(task)
            self.measured.gave(task, node, block.nbytes, now)
            self.refs[task] = given.options(scheduling_strategy=pinned).remote(block)
        while not self.dispatch.started_all():
            k = self.dispatch.start()
            if k is None:
                self._wait_for_one()
                continue
            fragment, inputs, outputs, node, _ = self.fragments[k]
            args = [self.refs[t] for t in inputs]
            options = dict(num_returns=len(outputs) + 1, scheduling_strategy=_pinned(self.nodes[node]))
            *out, done = run.options(**options).remote(fragment, self.budget[node], *args)
            self.refs.update(zip(outputs, out))
            self.in_flight[done] = k
        while self.in_flight:
            self._wait_for_one()
        wanted = sorted(self.returned)
        self._let_go(wanted, when=None)
        # The last batch, and results no fragment made (blocks the caller gave).
        self._fetch([t for t in wanted if t not in self.results])
        values = [self.results[t] for t in wanted]
        return dict(zip(wanted, values)), self.measured.result(sum(v.nbytes for v in values))

    def _wait_for_one(self):
        """Waits for a running fragment to end (a moment at most), and takes what ended."""
        for done in self._wait(list(self.in_flight), 1):
            self._ended(done, self.in_flight.pop(done))

    def _fetch(self, tasks):
        """Brings the blocks of `tasks` (results) to this process, into ``self.results``."""
        if not tasks:
            return
        refs = [self.refs[t] for t in tasks]
        while len(self._wait(refs, len(refs), fetch_local=True)) < len(refs):
            pass
        self.results.update(zip(tasks, self._get(refs)))

    def _wait(self, refs, count, fetch_local=False):
        """Up to a moment's wait for `count` of `refs` to be ready (the ready ones); raises
        once the cluster has had no node with CPUs for ``NO_NODES_WAIT_S`` (nothing could
        run, or rebuild a lost block, again)."""
        ready, _ = self.ray.wait(refs, num_returns=count, timeout=0.1, fetch_local=fetch_local)
        now = time.monotonic()
        if ready:
            self.last_end = now
        elif now - self.last_end > STALL_CHECK_S:
            self.last_end = now
            alive = any(n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0 for n in self.ray.nodes())
            self.no_nodes_since = None if alive else (self.no_nodes_since or now)
            if self.no_nodes_since is not None and now - self.no_nodes_since >= NO_NODES_WAIT_S:
                raise RuntimeError(
                    f"the Ray cluster has had no live node with CPUs for {NO_NODES_WAIT_S} s: "
                    f"{len(self.in_flight) or len(refs)} of tegula's fragments can no longer run"
                )
        return ready

    def _ended(self, done, k):
        """Fragment `k` ended: its error is raised, its time reported and measured, the blocks
        the dispatch lets go of released, and the results it hands over fetched."""
        start, end, node_id, sizes, peak = self._get([done])[0]
        _, inputs, outputs, node, _ = self.fragments[k]
        self.measured.ran(self.measured.node(node_id), start, end, peak, inputs, outputs, sizes)
        self.events.done(k, node, start, end)
        finished, fetch = self.dispatch.ended(k, sizes)
        self._let_go(finished, when=time.time())
        for t in finished:
            del self.refs[t]
        # Results are fetched while other fragments still run, not all at the end (512 MB of
        # them took 0.6-0.9 s after the last fragment), in batches of ``FETCH_BATCH_BYTES``
        # so that many small results do not cost a round trip each.
        self._fetch(fetch)

    def _let_go(self, tasks, when):
        """Notes where Ray holds each of `tasks`' blocks, which are let go at `when` (None:
        kept, the results)."""
        if not tasks:
            return
        from ray.experimental import get_object_locations

        located = get_object_locations([self.refs[t] for t in tasks])
        # Results already fetched have a copy on this process's node, which is the result
        # handed back, not a move between nodes (unless a fragment there read it too).
        here = self.measured.index.get(self.driver_node)
        for t in tasks:
            info = located.get(self.refs[t], {})
            holders = [self.measured.index[n] for n in info.get("node_ids", []) if n in self.measured.index]
            if t in self.results and here not in self.measured.read_at.get(t, {}):
                holders = [h for h in holders if h != here or h == self.measured.made_on.get(t)]
            self.measured.let_go(t, holders, when, size=info.get("object_size") or 0)

    def _get(self, refs):
        """The values of `refs`; a fragment's error is raised as the exception its task raised
        (an error passes on to every fragment reading its blocks, so the results carry it)."""
        try:
            return self.ray.get(refs)
        except self.ray.exceptions.RayTaskError as e:
            cause = e.cause if isinstance(e.cause, BaseException) else e
            raise cause from None
