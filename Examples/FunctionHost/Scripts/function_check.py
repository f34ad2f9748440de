#!/usr/bin/env python3
"""Checks a sample function on its own, under a `runway run` daemon of the main package, over its Unix socket.

The function is a protocol app of a scratch configuration (state directory and socket in a temporary directory,
removed after), its FUNCTION_SOCKET in a private directory. The check drives it with `runway` commands and talks to
it with `curl --unix-socket`, as the host would:

1. launched: its socket answers as soon as the app is active (it listens before acknowledging
   didFinishLaunching); `GET /` counts from 1 with `restored` false; `GET /echo?x=S` answers S;
2. `POST /work?ms=N` answers at once; sent Home, the function holds its background task until the work is done,
   then is suspended (B5), using no CPU while frozen; its count is preserved;
3. purged: the next launch restores it and the count goes on, with `restored` true;
4. work longer than the budget: the expiration warning stops it and the task ends: suspended, not killed (B4);
5. the same work with `ignoreExpiration=1`: killed at the deadline, `budgetOverrun` (B6).

Usage: function_check.py RUNWAY_BINARY PROGRAM [ARGUMENT...]   (Python 3, standard library only; needs curl)
Exits 0 when every step held, 1 with the failed step and the function's last output otherwise.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from xml.sax.saxutils import escape

APP = "com.example.function"
# Short budgets so that the check takes seconds: the warning comes at 2.5 s of a 5 s budget.
RUNWAY_PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>ControlSocket</key><string>{socket}</string>
<key>StateDirectory</key><string>{state}</string>
<key>BackgroundTimeBudget</key><real>5</real>
<key>ExpirationWarningLead</key><real>2.5</real>
</dict></plist>
"""
APP_PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>{app}</string>
<key>ProgramArguments</key><array>{arguments}</array>
<key>RunwayProtocol</key><integer>1</integer>
<key>EnvironmentVariables</key><dict>
<key>FUNCTION_SOCKET</key><string>{function_socket}</string>
<key>FUNCTION_NAME</key><string>check</string>
</dict>
</dict></plist>
"""


class CheckFailed(Exception):
    pass


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runway = os.path.abspath(sys.argv[1])
    program = [os.path.abspath(sys.argv[2])] + sys.argv[3:]
    if program[0].endswith(".py"):
        program = [sys.executable] + program
    scratch = tempfile.mkdtemp(prefix="runway-function-check-")
    config = os.path.join(scratch, "Config")
    os.makedirs(os.path.join(config, "Apps"))
    os.makedirs(os.path.join(scratch, "state"), mode=0o700)
    os.makedirs(os.path.join(scratch, "functions"), mode=0o700)
    function_socket = os.path.join(scratch, "functions", "check.sock")
    with open(os.path.join(config, "Runway.plist"), "w") as f:
        f.write(RUNWAY_PLIST.format(socket=os.path.join(scratch, "control.sock"), state=os.path.join(scratch, "state")))
    arguments = "".join("<string>%s</string>" % escape(argument) for argument in program)
    with open(os.path.join(config, "Apps", APP + ".plist"), "w") as f:
        f.write(APP_PLIST.format(app=APP, arguments=arguments, function_socket=function_socket))
    daemon_log = open(os.path.join(scratch, "daemon.log"), "w")
    daemon = subprocess.Popen([runway, "run", "--config", config], stdout=subprocess.DEVNULL, stderr=daemon_log)
    check = Check(runway, config, function_socket)
    try:
        wait_for("the daemon's socket", lambda: os.path.exists(os.path.join(scratch, "control.sock")))
        check.run()
        print("function_check: every step held for %s" % " ".join(program))
        return 0
    except CheckFailed as failure:
        print("function_check: FAILED: %s" % failure)
        print("the function's last output:\n" + check.cli("logs", APP, "-n", "20"))
        return 1
    finally:
        daemon.terminate()
        try:
            daemon.wait(timeout=15)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()
        daemon_log.close()
        shutil.rmtree(scratch, ignore_errors=True)


class Check:
    def __init__(self, runway, config, function_socket):
        self.runway = runway
        self.config = config
        self.function_socket = function_socket

    def cli(self, *arguments):
        command = [self.runway, *arguments, "--config", self.config]
        result = subprocess.run(command, capture_output=True, text=True, timeout=30)
        if result.returncode not in (0, 10, 11, 12, 13, 14, 15):
            raise CheckFailed("runway %s failed (%d): %s" % (" ".join(arguments), result.returncode, result.stderr))
        return result.stdout

    def status(self):
        return json.loads(self.cli("status", APP, "--json"))["apps"][0]

    def wait_for_state(self, state, seconds=20):
        wait_for("state " + state, lambda: self.status()["state"] == state, seconds)
        return self.status()

    def http(self, method, path):
        """One request over the function's socket; returns (status, body)."""
        result = subprocess.run(
            ["curl", "-sS", "--max-time", "10", "-X", method, "--unix-socket", self.function_socket,
             "-w", "\n%{http_code}", "http://function" + path],
            capture_output=True, text=True, timeout=20,
        )
        if result.returncode != 0:
            raise CheckFailed("%s %s: curl failed (%d): %s" % (method, path, result.returncode, result.stderr))
        body, _, status = result.stdout.rpartition("\n")
        return int(status), body

    def expect(self, what, condition):
        if not condition:
            raise CheckFailed(what)
        print("ok: " + what, flush=True)

    def count(self, expected, restored):
        status, body = self.http("GET", "/")
        answer = json.loads(body)
        self.expect(
            "GET / counts %d, restored %s (got %s)" % (expected, restored, body),
            status == 200 and answer["count"] == expected and answer["restored"] is restored
            and answer["function"] == "check" and answer["pid"] == self.status()["pid"],
        )

    def work(self, query, milliseconds):
        status, body = self.http("POST", "/work?" + query)
        self.expect("POST /work?%s accepted (got %s)" % (query, body),
                    status == 200 and json.loads(body) == {"accepted": milliseconds})

    def run(self):
        # 1. The socket answers as soon as the app is active: no retry.
        self.cli("launch", APP)
        self.wait_for_state("active")
        self.count(1, False)
        status, body = self.http("GET", "/echo?x=hello%20there")
        self.expect("GET /echo answers its text (got %r)" % body, status == 200 and body == "hello there")
        self.count(3, False)
        status, _ = self.http("GET", "/nowhere")
        self.expect("an unknown path is 404", status == 404)
        # 2. The work holds the background task; its end suspends the app (B5) before the warning.
        self.work("ms=800", 800)
        pid = self.status()["pid"]
        self.cli("home", APP)
        status = self.status()
        self.expect("in the background with the work's task (got %s)" % status["state"],
                    status["state"] == "background" and status.get("tasksTotal", 0) == 1)
        status = self.wait_for_state("suspended", 10)
        self.expect("suspended once the work was done, same pid, not killed", status["pid"] == pid)
        wait_for("the freeze confirmed", lambda: self.status().get("suspensionConfirmed") is True)
        self.expect("a frozen function uses no CPU (%s)" % frozen_cpu(pid), frozen_cpu(pid) == 0)
        export = subprocess.run([self.runway, "export-state", APP, "--config", self.config], capture_output=True)
        self.expect("its count was preserved", re.search(rb'"count"\s*:\s*4\b', export.stdout) is not None)
        # 3. A purge ends it; the next launch restores the count.
        self.cli("purge")
        self.wait_for_state("notRunning")
        self.cli("launch", APP)
        status = self.wait_for_state("active")
        self.expect("the launch restored (%s)" % status.get("restoredFrom"), status.get("restoredFrom") == "purged")
        self.count(5, True)
        # 4. Work past the budget: stopped at the expiration warning, the task ended: suspended, not killed.
        self.work("ms=60000", 60000)
        pid = self.status()["pid"]
        self.cli("home", APP)
        status = self.wait_for_state("suspended", 10)
        self.expect("work past the budget stopped at the warning: suspended, same pid", status["pid"] == pid)
        # 5. Work that ignores the warning: killed at the deadline (B6).
        self.cli("foreground", APP)
        self.wait_for_state("active")
        self.count(7, True)
        self.work("ms=60000&ignoreExpiration=1", 60000)
        self.cli("home", APP)
        status = self.wait_for_state("notRunning", 10)
        self.expect("work that ignores the warning is killed at the deadline (%s)" % status.get("lastTermination"),
                    status.get("lastTermination") == "budgetOverrun")


def frozen_cpu(pid, seconds=1.0):
    """Clock ticks of CPU the process used over `seconds` (utime + stime of /proc/PID/stat)."""

    def ticks():
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rpartition(")")[2].split()
        return int(fields[11]) + int(fields[12])

    before = ticks()
    time.sleep(seconds)
    return ticks() - before


def wait_for(what, condition, seconds=20):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise CheckFailed("timed out waiting for " + what)
        time.sleep(0.05)


if __name__ == "__main__":
    sys.exit(main())
