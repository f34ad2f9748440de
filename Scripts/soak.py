#!/usr/bin/env python3
"""A bounded soak of the Runway daemon: random control commands from several clients, misbehaving children.

    python3 Scripts/soak.py [--runway PATH] [--seconds 60] [--clients 4] [--max-commands 100000] [--seed 1]

It writes a configuration into a temporary directory (short budgets and graces), starts `runway run` on it, and for
`--seconds` (or until `--max-commands` requests were sent) lets `--clients` threads send random requests over the
control socket (lifecycle commands, user actions, device events, tasks, extend/expire, status, malformed lines),
while the apps misbehave on their own: one floods stdout, one double-forks a grandchild that calls setsid(), one
crashes now and then, one protocol app begins tasks with long names and ignores its expiration warnings, one writes
garbage on its protocol channel. An `events` subscriber records every transition. The daemon's resident memory and
its zombie children are sampled every second.

At the end it checks: the daemon is alive; `status` agrees with the last event of every app; no zombie child was
seen twice in a row (a zombie reaped within a second is fine); the resident set stayed under `--rss-limit-mb`; after
SIGTERM the daemon exits within its graces and no process started by the apps is left (every app process carries
RUNWAY_SOAK=<run id> in its environment, found through /proc/PID/environ). It prints the figures and exits 0 when
every check held, 1 otherwise. Everything stays on this machine: the only socket is a Unix socket in the temporary
directory.
"""

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from xml.sax.saxutils import escape

APPS = {
    "com.soak.quiet": ["/bin/sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"],
    "com.soak.flood": ["/bin/sh", "-c", "exec yes soak-flood-line-of-output"],
    "com.soak.escaper": [
        "/bin/sh", "-c",
        "(setsid sh -c 'while :; do sleep 1; done' &) ; trap 'exit 0' TERM; while :; do sleep 1; done",
    ],
    "com.soak.crasher": ["/bin/sh", "-c", "sleep $((RANDOM % 5 + 1)); kill -SEGV $$"],
}

PROTOCOL_APP = r'''
import json, os, random, sys, time
fd = int(os.environ["RUNWAY_FD"])
channel = os.fdopen(fd, "r+b", buffering=0)
mode = sys.argv[1]
request = 0
def send(obj):
    channel.write((json.dumps(obj) + "\n").encode())
buffer = b""
while True:
    chunk = channel.read(65536)
    if not chunk:
        time.sleep(0.05)
        continue
    buffer += chunk
    while b"\n" in buffer:
        line, buffer = buffer.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError:
            continue
        token = message.get("token")
        if token is not None:
            send({"type": "ack", "token": token})
        request += 1
        if mode == "greedy":
            send({"type": "beginBackgroundTask", "request": request, "name": "n" * random.randint(1, 4096)})
        elif mode == "garbage" and random.random() < 0.3:
            channel.write(b"{this is not json\n")
'''

COMMANDS = [
    "launch", "launchInBackground", "activate", "resignActive", "enterBackground", "enterForeground", "terminate",
    "home", "summon", "openSwitcher", "switcherSelectThis", "switcherSelectOther", "lock", "unlock",
    "offerShutdown", "cancelShutdown", "alert", "alertIgnored", "alertAnswered",
]


def plist(entries):
    body = "".join(entries)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict>' + body + "</dict></plist>\n"
    )


def key(name, value):
    if isinstance(value, bool):
        return f"<key>{name}</key><{'true' if value else 'false'}/>"
    if isinstance(value, (int, float)):
        return f"<key>{name}</key><real>{value}</real>"
    if isinstance(value, list):
        return f"<key>{name}</key><array>" + "".join(f"<string>{escape(v)}</string>" for v in value) + "</array>"
    if isinstance(value, dict):
        return f"<key>{name}</key><dict>" + "".join(key(k, v) for k, v in value.items()) + "</dict>"
    return f"<key>{name}</key><string>{escape(value)}</string>"


def write_config(directory, socket_path, run_id):
    os.makedirs(os.path.join(directory, "Apps"))
    settings = [
        key("BackgroundTimeBudget", 2.0), key("ExpirationWarningLead", 0.5), key("BackgroundEntryGrace", 1.0),
        key("TerminationGrace", 1.0), key("ControlSocket", socket_path), key("MemoryPressureSource", "off"),
    ]
    with open(os.path.join(directory, "Runway.plist"), "w") as f:
        f.write(plist(settings))
    environment = {"RUNWAY_SOAK": run_id}
    programs = dict(APPS)
    with open(os.path.join(directory, "soak_app.py"), "w") as f:
        f.write(PROTOCOL_APP)
    for name, mode in (("com.soak.greedy", "greedy"), ("com.soak.garbage", "garbage"), ("com.soak.polite", "ok")):
        programs[name] = [sys.executable, os.path.join(directory, "soak_app.py"), mode]
    for name, arguments in programs.items():
        entries = [key("CFBundleIdentifier", name), key("ProgramArguments", arguments),
                   key("EnvironmentVariables", environment)]
        if name in ("com.soak.greedy", "com.soak.garbage", "com.soak.polite"):
            entries.append("<key>RunwayProtocol</key><integer>1</integer>")
        with open(os.path.join(directory, "Apps", name + ".plist"), "w") as f:
            f.write(plist(entries))
    return sorted(programs)


class Client:
    """One control-socket connection: a JSON line out, a JSON line back."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(path)
        self.buffer = b""

    def request(self, obj=None, raw=None):
        self.sock.sendall(raw if raw is not None else (json.dumps(obj) + "\n").encode())
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("daemon closed the connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def close(self):
        self.sock.close()


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def children(pid):
    result = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            result.append((int(entry), fields[0]))
    return result


def tagged_processes(run_id, variable="RUNWAY_SOAK"):
    """The pids whose environment has `variable`=`run_id`: what one run's apps started, wherever they went."""
    marker = f"{variable}={run_id}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if marker in f.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runway", default=None, help="the runway binary (default: swift build --show-bin-path)")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--max-commands", type=int, default=10_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rss-limit-mb", type=float, default=200)
    options = parser.parse_args()
    runway = options.runway or os.path.join(
        subprocess.check_output(["swift", "build", "--show-bin-path"], text=True).strip(), "runway"
    )
    run_id = f"{os.getpid()}-{int(time.time())}"
    directory = tempfile.mkdtemp(prefix="runway-soak-")
    socket_path = os.path.join(directory, "control.sock")
    apps = write_config(directory, socket_path, run_id)
    log = open(os.path.join(directory, "daemon.log"), "w")
    daemon = subprocess.Popen(
        [runway, "run", "--config", directory, "--timeline", "always"], stdout=log, stderr=subprocess.STDOUT
    )
    deadline = time.time() + 20
    while not os.path.exists(socket_path):
        if time.time() > deadline or daemon.poll() is not None:
            print(f"soak: the daemon did not start (see {directory}/daemon.log)")
            return 1
        time.sleep(0.05)
    failures = []
    last_event = {}
    events = [0]
    stop = threading.Event()

    def subscribe():
        client = Client(socket_path)
        client.sock.settimeout(None)
        client.request({"command": "events"})
        while not stop.is_set():
            while b"\n" not in client.buffer:
                chunk = client.sock.recv(1 << 20)
                if not chunk:
                    return
                client.buffer += chunk
            line, client.buffer = client.buffer.split(b"\n", 1)
            event = json.loads(line).get("event")
            if event:
                last_event.setdefault(event["app"], []).append((event["atSeconds"], event["to"]))
                events[0] += 1

    subscriber = threading.Thread(target=subscribe, daemon=True)
    subscriber.start()
    counts = {}
    lock = threading.Lock()
    sent = [0]
    began = time.time()
    end = began + options.seconds

    def work(number):
        rng = random.Random(options.seed * 1000 + number)
        client = Client(socket_path)
        tasks = []
        while time.time() < end and not stop.is_set():
            with lock:
                if sent[0] >= options.max_commands:
                    return
                sent[0] += 1
            choice = rng.random()
            app = rng.choice(apps)
            try:
                if choice < 0.55:
                    command = rng.choice(COMMANDS)
                    reply = client.request({"command": command, "app": app})
                elif choice < 0.65:
                    reply = client.request({"command": "beginTask", "app": app, "task": "soak"})
                    if reply.get("ok"):
                        tasks.append((app, reply["task"]))
                    command = "beginTask"
                elif choice < 0.72 and tasks:
                    task_app, task = tasks.pop(rng.randrange(len(tasks)))
                    reply = client.request({"command": "endTask", "app": task_app, "taskID": task})
                    command = "endTask"
                elif choice < 0.78:
                    command = rng.choice(["extend", "expire"])
                    reply = client.request({"command": command, "app": app, "seconds": 1})
                elif choice < 0.9:
                    command = "status"
                    reply = client.request({"command": "status"})
                else:
                    command = "malformed"
                    reply = client.request(raw=rng.choice([b"{not json\n", b"[]\n", b'{"command":"nope"}\n']))
            except (ConnectionError, OSError, ValueError) as error:
                failures.append(f"client {number}: {error}")
                return
            outcome = "ok" if reply.get("ok") else reply.get("error", {}).get("code", "?")
            with lock:
                counts[(command, outcome)] = counts.get((command, outcome), 0) + 1
            time.sleep(rng.random() * 0.002)
        client.close()

    workers = [threading.Thread(target=work, args=(n,)) for n in range(options.clients)]
    for worker in workers:
        worker.start()
    peak_rss = 0
    zombie_streak = {}
    while any(worker.is_alive() for worker in workers):
        time.sleep(1)
        if daemon.poll() is not None:
            failures.append(f"the daemon exited with {daemon.returncode} during the run")
            break
        peak_rss = max(peak_rss, rss_kb(daemon.pid) or 0)
        zombies = {pid for pid, state in children(daemon.pid) if state == "Z"}
        for pid in zombies:
            zombie_streak[pid] = zombie_streak.get(pid, 0) + 1
            if zombie_streak[pid] == 3:
                failures.append(f"zombie {pid} under the daemon for 3 s")
        zombie_streak = {pid: n for pid, n in zombie_streak.items() if pid in zombies}
    for worker in workers:
        worker.join()
    time.sleep(0.5)
    if daemon.poll() is None:
        status = Client(socket_path).request({"command": "status"})
        now = status["daemon"]["uptimeSeconds"]
        time.sleep(0.5)
        for row in status.get("apps", []):
            # The last transition at or before the status, on the daemon's clock: what the status must agree with.
            seen = [to for at, to in last_event.get(row["app"], []) if at <= now]
            if seen and seen[-1] != row["state"] and not row.get("terminating"):
                failures.append(f"{row['app']}: status says {row['state']}, the last event said {seen[-1]}")
    if peak_rss > options.rss_limit_mb * 1024:
        failures.append(f"peak RSS {peak_rss / 1024:.1f} MB over the limit of {options.rss_limit_mb} MB")
    stop.set()
    started = time.time()
    daemon.send_signal(signal.SIGTERM)
    try:
        daemon.wait(timeout=30)
    except subprocess.TimeoutExpired:
        failures.append("the daemon did not stop within 30 s of SIGTERM")
        daemon.kill()
    stopped = time.time() - started
    time.sleep(0.5)
    leftovers = tagged_processes(run_id)
    if leftovers:
        failures.append(f"processes started by the apps still run after the stop: {leftovers}")
        for pid in leftovers:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    total = sum(counts.values())
    print(f"soak: {total} requests from {options.clients} clients in {time.time() - began - stopped:.0f} s, "
          f"{events[0]} events, peak daemon RSS {peak_rss / 1024:.1f} MB, stop took {stopped:.2f} s, "
          f"daemon exit {daemon.returncode}")
    for (command, outcome), count in sorted(counts.items()):
        print(f"  {command:22} {outcome:18} {count}")
    for failure in failures:
        print(f"FAILED: {failure}")
    print(f"soak: {'passed' if not failures else 'failed'} (config and daemon log in {directory})")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
