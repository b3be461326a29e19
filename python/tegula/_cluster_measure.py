"""What a computation on a cluster did, measured as it ran: for each node, the fragments that
ran there, the bytes of the blocks made there, the bytes copied to it and from it, and the
most bytes it held at once — the figures of tegula's placement simulation
(``report["simulated"]``), taken from what happened instead of from the plan.

A cluster runner feeds it: the blocks the caller gave, each fragment's run (where it really
ran, when, the sizes of the blocks it made and the peak its executor measured), and each
block's copies when the block is let go (the nodes the engine holds it on, where the engine
says; else the nodes that read it, which is where an engine that ships small blocks inside
task messages sends them). A node's holding over time is the blocks on it (from when they
were made or first read there until let go) plus the peaks of the fragments running there.
"""


class Measured:
    def __init__(self, node_ids):
        self.index = {node: k for k, node in enumerate(node_ids)}
        self.loads = [_load() for _ in node_ids]
        self.timeline = [[] for _ in node_ids]
        self.made_on = {}
        self.nbytes = {}
        self.read_at = {}
        self.between = 0
        self.given = 0

    def node(self, node_id):
        """The index of node `node_id`; a node the plan did not know (it joined later) gets
        the next one."""
        if node_id not in self.index:
            self.index[node_id] = len(self.loads)
            self.loads.append(_load())
            self.timeline.append([])
        return self.index[node_id]

    def made(self, task, node, nbytes, when):
        """Block `task`, of `nbytes` bytes, was made (or given) on node index `node` at `when`."""
        self.made_on[task] = node
        self.nbytes[task] = nbytes
        self.loads[node]["bytes_made"] += nbytes
        self.timeline[node].append((when, nbytes))

    def gave(self, task, node, nbytes, when):
        self.made(task, node, nbytes, when)
        self.given += nbytes

    def ran(self, node, start, end, peak, inputs, outputs, sizes):
        """A fragment reading blocks `inputs` ran on node index `node` from `start` to `end`,
        its executor holding at most `peak` bytes, and made blocks `outputs` of `sizes` bytes."""
        self.loads[node]["fragments"] += 1
        for task in set(inputs):
            self.read_at.setdefault(task, {}).setdefault(node, start)
        self.timeline[node] += [(start, peak), (end, -peak)]
        for task, nbytes in zip(outputs, sizes):
            self.made(task, node, nbytes, end)

    def let_go(self, task, holders=(), when=None, size=None):
        """Block `task` is held on node indices `holders` (empty: the engine does not say),
        and let go at `when` (None: kept, a result): each copy beyond the one where it was
        made is a transfer of `size` bytes (as the engine moves it; default: the block's)."""
        made_on = self.made_on.get(task)
        if made_on is None:
            return
        size = self.nbytes[task] if size is None else size
        read = self.read_at.pop(task, {})
        copies = set(holders) or set(read)
        for node in copies - {made_on}:
            self.between += size
            self.loads[node]["bytes_in"] += size
            self.loads[made_on]["bytes_out"] += size
            if node in read:
                self.timeline[node].append((read[node], self.nbytes[task]))
                if when is not None:
                    self.timeline[node].append((when, -self.nbytes[task]))
        if when is not None:
            self.timeline[made_on].append((when, -self.nbytes[task]))

    def transferred(self, moved):
        """The engine's own count of the bytes moved, in place of the copies counted from where
        blocks were read: (to node, from node, bytes) per transfer."""
        self.between = 0
        for load in self.loads:
            load["bytes_in"] = load["bytes_out"] = 0
        for to, frm, nbytes in moved:
            self.between += nbytes
            self.loads[to]["bytes_in"] += nbytes
            self.loads[frm]["bytes_out"] += nbytes

    def result(self, returned):
        """The measurements, as ``simulation_dict`` gives the simulation's (`returned`: the
        bytes of the results)."""
        for load, events in zip(self.loads, self.timeline):
            held = peak = 0
            # At the same moment, what ends goes first: a fragment's outputs replace its peak.
            for _, change in sorted(events, key=lambda e: (e[0], e[1])):
                held += change
                peak = max(peak, held)
            load["peak_bytes"] = peak
        return {
            "bytes_between_nodes": self.between,
            "bytes_given": self.given,
            "bytes_returned": returned,
            "nodes": self.loads,
        }


def _load():
    return {"fragments": 0, "bytes_made": 0, "bytes_in": 0, "bytes_out": 0, "peak_bytes": 0}
