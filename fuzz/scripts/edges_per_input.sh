#!/usr/bin/env bash
# Prints one line per input: its path, its size and the coverage edges it
# reaches on its own (libFuzzer's merge control file holds only the edges
# each input adds to those before it, so each input is merged alone).
# Usage: edges_per_input.sh FUZZ_BINARY INPUT...
set -euo pipefail
binary=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for input in "$@"; do
    rm -rf "$work/in" "$work/out" "$work/control"
    mkdir -p "$work/in" "$work/out"
    cp "$input" "$work/in/"
    "$binary" -merge=1 -use_counters=0 -use_value_profile=0 \
        -merge_control_file="$work/control" "$work/out" "$work/in" >/dev/null 2>&1
    edges=$(grep '^COV' "$work/control" | cut -d' ' -f3- | tr '\n' ' ')
    echo "$input $(stat -c %s "$input") $edges"
done
