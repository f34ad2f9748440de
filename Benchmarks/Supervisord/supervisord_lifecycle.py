#!/usr/bin/env python3
"""The same lifecycle as Sources/ProcessLifecycle, driven through supervisord (PyPI `supervisor`).

Phases, each timed from the first request to the confirmation:
  spawn      startAllProcesses(wait=True): every program RUNNING (startsecs=0), pids known
  suspend    signalAllProcesses("STOP"), then every pid shows state T in /proc/PID/stat
  resume     signalAllProcesses("CONT"), then no pid shows T
  terminate  stopAllProcesses(wait=True): every program STOPPED, i.e. reaped by supervisord
supervisord has no suspension of its own; its batch XML-RPC calls are the fastest way it offers.
Usage: supervisord_lifecycle.py [apps=200] [rounds=1] [--loglevel LEVEL]; prints one JSON object per round.
--loglevel sets supervisord's `loglevel` (default `error`, as this script always did); `--loglevel default` leaves
the key out, so supervisord logs at its own default (`info`: a line per process started, stopped and exited).
"""
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
import xmlrpc.client

from supervisor.xmlrpc import SupervisorTransport

ARGUMENTS = [argument for argument in sys.argv[1:] if not argument.startswith("--")]
LOGLEVEL = "error"
if "--loglevel" in sys.argv:
    LOGLEVEL = sys.argv[sys.argv.index("--loglevel") + 1]
    ARGUMENTS.remove(LOGLEVEL)
COUNT = int(ARGUMENTS[0]) if len(ARGUMENTS) > 0 else 200
ROUNDS = int(ARGUMENTS[1]) if len(ARGUMENTS) > 1 else 1
TOOL = "supervisord" if LOGLEVEL == "error" else "supervisord-" + LOGLEVEL


def state(pid):
    with open("/proc/%d/stat" % pid) as handle:
        return handle.read().rsplit(")", 1)[1].split()[0]


def wait_until(condition, timeout=60, what="phase"):
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError("supervisord lifecycle %s timed out" % what)
        time.sleep(0.0002)


def one_round(directory, number):
    socket_path = os.path.join(directory, "supervisor.sock")
    config = os.path.join(directory, "supervisord.conf")
    with open(config, "w") as handle:
        handle.write(
            "[unix_http_server]\nfile=%s\n\n[supervisord]\nnodaemon=true\nlogfile=%s\npidfile=%s\n%s"
            "minfds=%d\n\n[rpcinterface:supervisor]\n"
            "supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface\n\n"
            % (
                socket_path,
                os.path.join(directory, "supervisord.log"),
                os.path.join(directory, "supervisord.pid"),
                "" if LOGLEVEL == "default" else "loglevel=%s\n" % LOGLEVEL,
                max(1024, COUNT * 4 + 64),
            )
        )
        for index in range(COUNT):
            handle.write(
                "[program:sleep%d]\ncommand=/bin/sleep 1000\nautostart=false\nautorestart=false\nstartsecs=0\n"
                "stopsignal=TERM\nstopwaitsecs=5\nstdout_logfile=NONE\nstderr_logfile=NONE\n\n" % index
            )
    daemon = subprocess.Popen([sys.executable, "-m", "supervisor.supervisord", "-c", config])
    try:
        server = xmlrpc.client.ServerProxy("http://127.0.0.1", transport=SupervisorTransport(None, None, "unix://" + socket_path))
        wait_until(lambda: os.path.exists(socket_path), what="start (socket)")
        wait_until(lambda: _ready(server), what="start (RUNNING)")
        phases = {}

        start = time.monotonic()
        server.supervisor.startAllProcesses(True)
        infos = server.supervisor.getAllProcessInfo()
        pids = [info["pid"] for info in infos if info["statename"] == "RUNNING"]
        assert len(pids) == COUNT, "only %d of %d programs are running" % (len(pids), COUNT)
        phases["spawn"] = (time.monotonic() - start) * 1000

        start = time.monotonic()
        server.supervisor.signalAllProcesses("STOP")
        wait_until(lambda: all(state(pid) == "T" for pid in pids), what="suspend")
        phases["suspend"] = (time.monotonic() - start) * 1000

        start = time.monotonic()
        server.supervisor.signalAllProcesses("CONT")
        wait_until(lambda: all(state(pid) != "T" for pid in pids), what="resume")
        phases["resume"] = (time.monotonic() - start) * 1000

        start = time.monotonic()
        server.supervisor.stopAllProcesses(True)
        stopped = server.supervisor.getAllProcessInfo()
        assert all(info["statename"] == "STOPPED" for info in stopped), "not every program stopped"
        phases["terminate"] = (time.monotonic() - start) * 1000
        server.supervisor.shutdown()
    finally:
        try:
            daemon.wait(timeout=30)
        except subprocess.TimeoutExpired:
            # Not left running (it would hold the caller's stdout open): killed, and the round fails.
            daemon.kill()
            daemon.wait()
            raise
    phases["total"] = sum(phases.values())
    print(json.dumps({"tool": TOOL, "apps": COUNT, "round": number, **{k: round(v, 2) for k, v in phases.items()}}), flush=True)


def _ready(server):
    try:
        return server.supervisor.getState()["statename"] == "RUNNING"
    except (OSError, xmlrpc.client.Fault, http.client.HTTPException):
        # Not listening yet, or answering half-started (seen: an HTTPException during startup).
        return False


if __name__ == "__main__":
    for number in range(ROUNDS):
        with tempfile.TemporaryDirectory(prefix="runway-supervisord-") as directory:
            one_round(directory, number)
