#!/usr/bin/python3
"""Runs a command under a resident-memory cap (used by bench/run.sh).

    memcap.py --limit-gib 12 [--interval 0.1] -- COMMAND [ARG ...]

Polls the resident set (RSS, /proc/<pid>/statm) of COMMAND and all its
descendants every --interval seconds; when their sum exceeds --limit-gib
GiB it kills them all with SIGKILL, prints one line to stderr and exits
with status 99 (OUT_OF_MEMORY). Otherwise it exits with COMMAND's status
(128 + N when COMMAND died of signal N). --limit-gib 0 runs COMMAND
uncapped. The cap is on resident memory, not address space: `ulimit -v`
would trip over the large virtual reservations of PyTorch and LibTorch,
while a process that keeps growing is stopped long before the machine
starts to thrash. Polling reads a few small /proc files, far below 1% of
a core; memory touched within one interval (at most a few hundred MiB at
page-fault speed) can overshoot the cap.

COMMAND stays in memcap's process group, so a terminal's Ctrl-C reaches
it directly; SIGTERM and SIGHUP sent to memcap are forwarded to it.
Uses only the standard library; runs with any Python 3.
"""
import argparse
import os
import select
import signal
import subprocess
import sys
import time

OUT_OF_MEMORY = 99
PAGE = os.sysconf("SC_PAGE_SIZE")


def descendants(pid):
    """pid and its descendants (via /proc/<pid>/task/<tid>/children)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
            except OSError:
                pass
    return found


def rss_bytes(pids):
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            pass  # exited in between
    return total


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--limit-gib", type=float, required=True,
                        help="cap on the summed RSS in GiB (0: no cap)")
    parser.add_argument("--interval", type=float, default=0.1,
                        help="seconds between polls (default 0.1)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")
    limit = int(args.limit_gib * 2**30)

    try:
        child = subprocess.Popen(command)
    except OSError as error:
        print(f"memcap: {command[0]}: {error}", file=sys.stderr)
        return 127

    def forward(signum, _frame):
        try:
            child.send_signal(signum)
        except OSError:
            pass
    # A terminal's Ctrl-C reaches the child directly (same process group):
    # memcap only waits for it to exit. A SIGTERM or SIGHUP sent to memcap
    # alone is passed on.
    signal.signal(signal.SIGINT, lambda _signum, _frame: None)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, forward)

    if limit > 0:
        try:  # wakes as soon as the child exits (Linux >= 5.3)
            pidfd = os.pidfd_open(child.pid)
        except (AttributeError, OSError):
            pidfd = None
        peak = 0
        while child.poll() is None:
            pids = descendants(child.pid)
            rss = rss_bytes(pids)
            peak = max(peak, rss)
            if rss > limit:
                for p in pids:
                    try:
                        os.kill(p, signal.SIGKILL)
                    except OSError:
                        pass
                child.wait()
                print(f"memcap: out of memory: killed {os.path.basename(command[0])}"
                      f" (pid {child.pid}{f' and {len(pids) - 1} more' if len(pids) > 1 else ''})"
                      f" at {rss / 2**20:.0f} MiB resident, over the cap of"
                      f" {limit / 2**20:.0f} MiB ({args.limit_gib:g} GiB)",
                      file=sys.stderr)
                return OUT_OF_MEMORY
            if pidfd is not None:
                try:
                    select.select([pidfd], [], [], args.interval)
                except InterruptedError:
                    pass
            else:
                time.sleep(args.interval)
    status = child.wait()
    return 128 - status if status < 0 else status


if __name__ == "__main__":
    sys.exit(main())
