#!/usr/bin/env python3
"""Paired whole-process CPU of generator builds: `BIN --check` for each binary in turn (round
robin, after one warm-up run each), in the current directory, RUNS times; CPU is user + sys
of the process and its children, from wait4's rusage (what /usr/bin/time prints, to the
microsecond). Prints each binary's median CPU and wall, and the run-by-run CPU ratio to the
last binary (the baseline): its median and the ratio of the sums.

Usage: scripts/bench-paired-cpu.py RUNS BIN... BASELINE

Build every binary in this checkout (a generator built in another checkout is refused as
another workspace's), e.g. `cargo build -p codegen && cp target/debug/codegen target/bench/a`.
"""
import os
import statistics
import subprocess
import sys
import time


def run(binary):
    start = time.perf_counter()
    child = subprocess.Popen([binary, "--check"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        sys.exit(f"{binary} --check failed (status {status})")
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - start


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    runs, binaries = int(sys.argv[1]), sys.argv[2:]
    for binary in binaries:
        run(binary)
    cpu = {b: [] for b in binaries}
    wall = {b: [] for b in binaries}
    loads = []
    for _ in range(runs):
        for binary in binaries:
            c, w = run(binary)
            cpu[binary].append(c)
            wall[binary].append(w)
        loads.append(os.getloadavg()[0])
    base = binaries[-1]
    print(f"{runs} runs each, load average {min(loads):.1f}-{max(loads):.1f}")
    for b in binaries:
        ratios = [x / y for x, y in zip(cpu[b], cpu[base])]
        print(
            f"{b}: median CPU {statistics.median(cpu[b]) * 1000:.1f} ms, "
            f"median wall {statistics.median(wall[b]) * 1000:.0f} ms, "
            f"CPU / {os.path.basename(base)}: paired median {statistics.median(ratios):.3f}, "
            f"sums {sum(cpu[b]) / sum(cpu[base]):.3f}"
        )


if __name__ == "__main__":
    main()
