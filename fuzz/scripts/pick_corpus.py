"""Picks the small corpus checked in for a fuzz target.

Reads edges_per_input.sh's lines on stdin, keeps the hand-written inputs
(descriptive names; libFuzzer names its own by SHA-1), then adds, one at a
time, the input that reaches the most edges not reached yet per byte, until
MAX_FILES are kept or nothing is left to gain. Prints what it keeps.

Usage: edges_per_input.sh BINARY INPUT... | pick_corpus.py MAX_FILES
"""

import os
import re
import sys

# Per-byte gain with this much added to each size, so that a one-byte
# input does not win on a single edge over a useful 100-byte one.
SIZE_OFFSET = 100


def main():
    most = int(sys.argv[1])
    edges, size = {}, {}
    for line in sys.stdin:
        path, length, *reached = line.split()
        edges[path], size[path] = set(reached), int(length)
    kept = [p for p in edges if not re.fullmatch(r"[0-9a-f]{40}", os.path.basename(p))]
    reached = set().union(*(edges[p] for p in kept))
    while len(kept) < most:
        best = max(edges, key=lambda p: (len(edges[p] - reached) / (size[p] + SIZE_OFFSET), -size[p]))
        if not edges[best] - reached:
            break
        kept.append(best)
        reached |= edges[best]
    everything = set().union(*edges.values())
    print(f"# {len(kept)} inputs, {sum(size[p] for p in kept)} bytes, "
          f"{len(reached)} of {len(everything)} edges", file=sys.stderr)
    for path in kept:
        print(path)


if __name__ == "__main__":
    main()
