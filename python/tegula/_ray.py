"""``scheduler="ray"``: a plan's fragments run as Ray tasks, each on the node tegula placed it on.

The plan is cut and placed in Rust (``_tegula.plan_cluster``): fragments, not single tasks,
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

# Fragments a node is given at once, per CPU of that node: enough to keep its CPUs busy
# while the driver waits, few enough that sources do not run far ahead of their readers;
# fewer when their projected bytes would pass the node's memory.
IN_FLIGHT_PER_CPU = 2
# A fragment whose node died or whose worker was killed runs again, up to this many times.
RETRIES = 5

_remote = {}


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
    """Runs one fragment; returns its blocks, then when it started and ended."""
    from tegula import _tegula

    start = time.time()
    out = _tegula.run_fragment(fragment, list(blocks), memory=memory)
    return (*out, (start, time.time()))


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
    """One computation on Ray: submits fragments in plan order, at most a few in flight per
    node, and lets go of each block once every fragment reading it has ended (after counting
    the nodes Ray copied it to)."""

    def __init__(self, ray, plan, nodes, events):
        self.ray, self.plan, self.nodes, self.events = ray, plan, nodes, events
        self.fragments = plan.fragments()
        self.cpus = [max(1, int(n["Resources"].get("CPU", 1))) for n in nodes]
        memory = [int(n["Resources"].get("memory", 0)) or None for n in nodes]
        self.memory = memory
        self.budget = [m // c if m else None for m, c in zip(memory, self.cpus)]
        self.refs = {}
        self.readers = {}
        for _, inputs, _, _, _ in self.fragments:
            for t in set(inputs):
                self.readers[t] = self.readers.get(t, 0) + 1
        self.returned = {t for tasks in plan.outputs() for t in tasks}
        self.in_flight = {}
        self.ids = {n["NodeID"] for n in nodes}
        self.moved = 0

    def all(self):
        given, run = _functions(self.ray)
        for task, node in self.plan.given():
            pinned = _pinned(self.nodes[node])
            self.refs[task] = given.options(scheduling_strategy=pinned).remote(self.plan.given_block(task))
        for k, (fragment, inputs, outputs, node, need) in enumerate(self.fragments):
            self._wait_for_room(node, need)
            args = [self.refs[t] for t in inputs]
            options = dict(num_returns=len(outputs) + 1, scheduling_strategy=_pinned(self.nodes[node]))
            *out, timing = run.options(**options).remote(fragment, self.budget[node], *args)
            self.refs.update(zip(outputs, out))
            self.in_flight[timing] = (k, node, need)
        self._wait_for_room(None)
        wanted = sorted(self.returned)
        self._count_copies([self.refs[t] for t in wanted])
        values = self._get([self.refs[t] for t in wanted])
        return dict(zip(wanted, values)), self.moved

    def _wait_for_room(self, node, need=0):
        """Waits until `node` has room for a fragment needing `need` bytes: fewer than
        ``IN_FLIGHT_PER_CPU`` per CPU in flight there, their projected bytes and `need` within
        its memory, or none in flight (None: waits until all have ended)."""
        while self.in_flight:
            if node is not None:
                running = [b for _, n, b in self.in_flight.values() if n == node]
                room = len(running) < IN_FLIGHT_PER_CPU * self.cpus[node]
                fits = self.memory[node] is None or sum(running) + need <= self.memory[node]
                if not running or (room and fits):
                    return
            ready, _ = self.ray.wait(list(self.in_flight), num_returns=1, timeout=0.1, fetch_local=False)
            for timing in ready:
                self._ended(timing, *self.in_flight.pop(timing))

    def _ended(self, timing, k, node, _need):
        """Fragment `k` ended: its error is raised, its time reported, and the blocks no
        fragment reads any more are counted and let go."""
        start, end = self._get([timing])[0]
        self.events.done(k, node, start, end)
        done = []
        for t in set(self.fragments[k][1]):
            self.readers[t] -= 1
            if self.readers[t] == 0 and t not in self.returned:
                done.append(t)
        self._count_copies([self.refs[t] for t in done])
        for t in done:
            del self.refs[t]

    def _count_copies(self, refs):
        """Adds the bytes of each block's copies beyond the first on the worker nodes."""
        if not refs:
            return
        from ray.experimental import get_object_locations

        for info in get_object_locations(refs).values():
            copies = sum(1 for n in info.get("node_ids", []) if n in self.ids)
            self.moved += (info.get("object_size") or 0) * max(0, copies - 1)

    def _get(self, refs):
        """The values of `refs`; a fragment's error is raised as the exception its task raised
        (an error passes on to every fragment reading its blocks, so the results carry it)."""
        try:
            return self.ray.get(refs)
        except self.ray.exceptions.RayTaskError as e:
            cause = e.cause if isinstance(e.cause, BaseException) else e
            raise cause from None
