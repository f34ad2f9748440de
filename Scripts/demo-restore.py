#!/usr/bin/env python3
"""`make demo-restore`: an app purged from memory comes back where it was (Behaviour.md R1, R2).

Runs a daemon on a scratch configuration and state directory with one protocol app, the Python sample
(Config/Programs/sample_app.py), whose counter goes up twice a second while it is active. The app is launched, sent
Home (it preserves its counter in didEnterBackground and is suspended), purged as under memory pressure, and summoned
again: the launch restores, the app prints the counter it was handed, and the event and `runway status` show the
restoration. Exits 0 when the restored counter is the one preserved, 1 otherwise; removes everything it made.

Usage: demo-restore.py RUNWAY_BINARY   (Python 3, standard library only)
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

APP = "com.example.counter"
REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(REPOSITORY, "Config", "Programs", "sample_app.py")

RUNWAY_PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>ControlSocket</key><string>{socket}</string>
<key>StateDirectory</key><string>{state}</string>
</dict></plist>
"""
APP_PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>{app}</string>
<key>ProgramArguments</key><array><string>python3</string><string>{sample}</string></array>
<key>RunwayProtocol</key><integer>1</integer>
<key>EnvironmentVariables</key><dict>
<key>SAMPLE_COUNTER_SECONDS</key><string>0.5</string>
<key>SAMPLE_TASK_SECONDS</key><string>0.2</string>
</dict>
</dict></plist>
"""


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runway = os.path.abspath(sys.argv[1])
    scratch = tempfile.mkdtemp(prefix="runway-demo-restore-")
    config = os.path.join(scratch, "Config")
    os.makedirs(os.path.join(config, "Apps"))
    os.makedirs(os.path.join(scratch, "state"), mode=0o700)
    with open(os.path.join(config, "Runway.plist"), "w") as f:
        f.write(RUNWAY_PLIST.format(socket=os.path.join(scratch, "control.sock"), state=os.path.join(scratch, "state")))
    with open(os.path.join(config, "Apps", APP + ".plist"), "w") as f:
        f.write(APP_PLIST.format(app=APP, sample=SAMPLE))
    # The daemon's warnings go to a file: a pipe nobody reads would block the daemon once it held 64 KiB.
    daemon_log_path = os.path.join(scratch, "daemon.log")
    daemon_log = open(daemon_log_path, "w")
    daemon = subprocess.Popen([runway, "run", "--config", config], stdout=subprocess.DEVNULL, stderr=daemon_log)
    events = None
    try:
        cli = lambda *arguments: command(runway, config, *arguments)
        wait_for("the daemon's socket", lambda: os.path.exists(os.path.join(scratch, "control.sock")))
        step("launch %s: it counts while active" % APP)
        cli("launch", APP)
        time.sleep(2)
        show(cli("logs", APP, "-n", "3"))
        step("Home: the app preserves its counter in didEnterBackground, then is suspended")
        cli("home", APP)
        wait_for("the app suspended", lambda: state(cli) == "suspended")
        preserved = last_number(cli("logs", APP), r"preserved counter (\d+)")
        show(cli("logs", APP, "-n", "4"))
        step("purge: memory pressure ends the suspended app without a message")
        show(cli("purge"))
        show(cli("status", APP))
        step("summon: the launch restores, and the app starts from the counter it preserved")
        events = subprocess.Popen(
            [runway, "events", "--config", config, "--json"], stdout=subprocess.PIPE, text=True
        )
        time.sleep(0.5)
        cli("launch", APP)
        wait_for("the restored counter", lambda: "restored counter" in cli("logs", APP))
        restored = last_number(cli("logs", APP), r"restored counter (\d+)")
        show(cli("logs", APP, "-n", "3"))
        show(cli("status", APP))
        events.send_signal(signal.SIGINT)
        lines = events.communicate(timeout=10)[0].splitlines()
        restoring = [line for line in lines if '"restoration"' in line and '"from":"notRunning"' in line]
        print("event: " + (restoring[0] if restoring else "(no launch event with a restoration)"))
        if preserved is not None and preserved == restored and restoring:
            print("\ndemo-restore: counter intact: preserved %d, restored %d" % (preserved, restored))
            return 0
        print("\ndemo-restore: FAILED: preserved %s, restored %s" % (preserved, restored))
        with open(daemon_log_path) as f:
            print("the daemon's last warnings:\n" + "".join(f.readlines()[-20:]))
        return 1
    finally:
        if events is not None and events.poll() is None:
            events.kill()
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(timeout=15)
        except subprocess.TimeoutExpired:
            daemon.kill()
        daemon_log.close()
        shutil.rmtree(scratch, ignore_errors=True)


def command(runway, config, *arguments):
    result = subprocess.run([runway, *arguments, "--config", config], capture_output=True, text=True, timeout=30)
    if result.returncode not in (0, 10, 11, 12, 13, 14, 15):
        raise SystemExit("runway %s failed (%d): %s" % (" ".join(arguments), result.returncode, result.stderr))
    return result.stdout


def state(cli):
    return json.loads(cli("status", APP, "--json"))["apps"][0]["state"]


def last_number(text, pattern):
    numbers = re.findall(pattern, text)
    return int(numbers[-1]) if numbers else None


def wait_for(what, condition, seconds=20):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("demo-restore: timed out waiting for " + what)
        time.sleep(0.1)


def step(text):
    print("\n== " + text, flush=True)


def show(text):
    print(text.rstrip(), flush=True)


if __name__ == "__main__":
    sys.exit(main())
