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

from . import _tegula

# Fragments a node is given at once, per CPU of that node: enough to keep its CPUs busy
# while the driver waits, few enough that sources do not run far ahead of their readers.
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
    from tegula import _tegula

    out = _tegula.run_fragment(fragment, list(blocks), memory=memory)
    return out[0] if len(out) == 1 else tuple(out)


def worker_nodes(ray):
    """The live nodes that have CPUs, in a fixed order (their ids)."""
    nodes = [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0]
    if not nodes:
        raise RuntimeError("the Ray cluster has no live node with CPUs to run tegula's fragments")
    return sorted(nodes, key=lambda n: n["NodeID"])


def _pinned(ray, node):
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(node_id=node["NodeID"], soft=True)


def compute(handles, num_workers, fuse, settings, bar=None, measure=False):
    """Computes ``handles`` on Ray; returns the NumPy arrays and a report dict."""
    ray = _ray()
    if not ray.is_initialized():
        # As the process pool's workers: functions pickled by reference to the caller's
        # modules unpickle on the workers, which search the caller's module path.
        path = {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        ray.init(num_cpus=num_workers, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": path})
    nodes = worker_nodes(ray)
    node_memory = settings.get("memory") or min(int(n["Resources"].get("memory", 0)) for n in nodes) or None
    if node_memory is None:
        node_memory = _tegula.default_spec()[0]
    plan = _tegula.plan_cluster(handles, len(nodes), node_memory, fuse, settings.get("memory"))
    run = _Run(ray, plan, nodes, node_memory, bar, measure)
    blocks = run.all()
    outputs = plan.outputs()
    results = [plan.assemble(i, [blocks[t] for t in tasks]) for i, tasks in enumerate(outputs)]
    return results, run.report()


class _Run:
    """One computation on Ray: submits fragments in plan order, at most a few in flight per
    node, releasing each block once every fragment reading it is submitted."""

    def __init__(self, ray, plan, nodes, node_memory, bar, measure):
        self.ray, self.plan, self.nodes, self.bar, self.measure = ray, plan, nodes, bar, measure
        self.fragments = plan.fragments()
        self.cpus = [max(1, int(n["Resources"].get("CPU", 1))) for n in nodes]
        self.budget = [node_memory // c for c in self.cpus]
        self.refs = {}
        self.kept = {}
        self.readers = {}
        for _, inputs, _, _ in self.fragments:
            for t in set(inputs):
                self.readers[t] = self.readers.get(t, 0) + 1
        self.returned = {t for tasks in plan.outputs() for t in tasks}
        self.in_flight = {}
        self.done = 0
        self.start = time.perf_counter()

    def all(self):
        given, run = _functions(self.ray)
        for task, node in self.plan.given():
            self.refs[task] = given.options(scheduling_strategy=_pinned(self.ray, self.nodes[node])).remote(
                self.plan.given_block(task)
            )
        for fragment, inputs, outputs, node in self.fragments:
            self._wait_for_room(node)
            args = [self.refs[t] for t in inputs]
            options = dict(num_returns=len(outputs), scheduling_strategy=_pinned(self.ray, self.nodes[node]))
            out = run.options(**options).remote(fragment, self.budget[node], *args)
            out = [out] if len(outputs) == 1 else list(out)
            self.refs.update(zip(outputs, out))
            self.in_flight[out[0]] = node
            self._release(inputs)
        self._wait_for_room(None)
        missing = [t for t in self.returned if t not in self.refs]
        if missing:
            raise RuntimeError(f"tasks {missing[:5]} of the plan's results were not computed")
        wanted = sorted(self.returned)
        values = self._get([self.refs[t] for t in wanted])
        return dict(zip(wanted, values))

    def _release(self, inputs):
        for t in set(inputs):
            self.readers[t] -= 1
            if self.readers[t] == 0 and t not in self.returned:
                ref = self.refs.pop(t)
                if self.measure:
                    self.kept[t] = ref

    def _wait_for_room(self, node):
        """Waits until `node` has room for one more fragment (None: until all have ended)."""
        while self.in_flight:
            busy = sum(1 for n in self.in_flight.values() if n == node)
            if node is not None and busy < IN_FLIGHT_PER_CPU * self.cpus[node]:
                return
            ready, _ = self.ray.wait(list(self.in_flight), num_returns=1, timeout=0.1, fetch_local=False)
            for ref in ready:
                del self.in_flight[ref]
                self.done += 1
            if self.bar is not None:
                self.bar(self.done, len(self.fragments), 0, time.perf_counter() - self.start)

    def _get(self, refs):
        """The values of `refs`; a fragment's error is raised as the exception its task raised
        (an error passes on to every fragment reading its blocks, so the results carry it)."""
        try:
            return self.ray.get(refs)
        except self.ray.exceptions.RayTaskError as e:
            cause = e.cause if isinstance(e.cause, BaseException) else e
            raise cause from None

    def report(self):
        sim = self.plan.simulation()
        info = {
            "scheduler": "ray",
            "fragments": len(self.fragments),
            "nodes": len(self.nodes),
            "simulated": sim,
        }
        if self.measure:
            info["measured"] = self._measured()
        return info

    def _measured(self):
        """Bytes moved between nodes, from where Ray holds copies of each block."""
        from ray.experimental import get_object_locations

        ids = {n["NodeID"]: k for k, n in enumerate(self.nodes)}
        refs = list(self.kept.values()) + list(self.refs.values())
        moved = 0
        for info in get_object_locations(refs).values():
            copies = sum(1 for n in info.get("node_ids", []) if n in ids)
            moved += (info.get("object_size") or 0) * max(0, copies - 1)
        return {"bytes_between_nodes": moved}
