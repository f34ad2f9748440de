#!/usr/bin/env python3
"""A Runway protocol app in plain Python (Behaviour.md A4; schema in Docs/AppProtocol.md).

It prints every lifecycle message (a notification also with its name and payload), and on entering the
background it begins a background task "upload" that it ends after SAMPLE_TASK_SECONDS seconds (default 1), or
never when the value is "never" (S12). Messages are acknowledged when handled: Runway sends nothing else to this
app until then (L2).

Background wake-ups (W1-W9): a backgroundWake message is printed with its reason, payload and token, and completed
(backgroundWakeCompleted) SAMPLE_WAKE_SECONDS seconds later (default 0.5), or never when the value is "never". With
SAMPLE_REFRESH_SECONDS set, the app asks after launching for a scheduled refresh that many seconds later
(scheduleRefresh).
"""
import json
import os
import socket
import sys
import threading

channel = socket.socket(fileno=int(os.environ["RUNWAY_FD"]))
reader = channel.makefile("r", encoding="utf-8", newline="\n")
write_lock = threading.Lock()
replies = {}
reply_ready = threading.Condition()
next_request = [0]


def send(line):
    data = (json.dumps(line, separators=(",", ":")) + "\n").encode()
    with write_lock:
        channel.sendall(data)


def say(text):
    print(text, flush=True)


def request(kind, **fields):
    """Sends a request and waits for its reply (read by the main loop)."""
    with reply_ready:
        next_request[0] += 1
        number = next_request[0]
    send({"type": kind, "request": number, **fields})
    with reply_ready:
        reply_ready.wait_for(lambda: number in replies, timeout=30)
        return replies.pop(number, None)


def finish_later(task, seconds):
    timer = threading.Timer(seconds, lambda: say("ended %s: %s" % (task, request("endBackgroundTask", task=task))))
    timer.daemon = True
    timer.start()


def complete_wake_later(wake, seconds):
    def complete():
        say("completed wake %d: %s" % (wake, request("backgroundWakeCompleted", wake=wake)))

    timer = threading.Timer(seconds, complete)
    timer.daemon = True
    timer.start()


def handle(message, line):
    if message == "didFinishLaunching" and os.environ.get("SAMPLE_REFRESH_SECONDS"):
        seconds = float(os.environ["SAMPLE_REFRESH_SECONDS"])
        say("refresh scheduled in %s s: %s" % (seconds, request("scheduleRefresh", seconds=seconds)))
    elif message == "backgroundWake":
        say("wake %s %s wake#%d" % (line["reason"], line.get("payload", ""), line["wake"]))
        seconds = os.environ.get("SAMPLE_WAKE_SECONDS", "0.5")
        if seconds != "never":
            complete_wake_later(line["wake"], float(seconds))
    elif message == "didEnterBackground":
        reply = request("beginBackgroundTask", name="upload")
        task = (reply or {}).get("task", 0)
        if task == 0:
            say("no background task: %s" % reply)
            return
        remaining = request("backgroundTimeRemaining")
        say("began task %d, %s s remaining" % (task, (remaining or {}).get("seconds")))
        seconds = os.environ.get("SAMPLE_TASK_SECONDS", "1")
        if seconds != "never":
            finish_later(task, float(seconds))
    elif message == "backgroundTaskWillExpire":
        say("task %d will expire" % line["task"])
    elif message == "notification":
        say("notification %s %s" % (line.get("name"), line.get("payload", "")))


def main():
    # Messages are handled on their own thread so that replies to the requests they make can be read here.
    pending = []
    pending_ready = threading.Condition()

    def worker():
        while True:
            with pending_ready:
                pending_ready.wait_for(lambda: pending)
                line = pending.pop(0)
            if line is None:
                return
            say("received %s" % line["message"])
            handle(line["message"], line)
            send({"type": "ack", "token": line["token"]})

    threading.Thread(target=worker, daemon=True).start()
    for raw in reader:
        line = json.loads(raw)
        if line["type"] == "message":
            with pending_ready:
                pending.append(line)
                pending_ready.notify()
        elif line["type"] in ("reply", "error") and line.get("request") is not None:
            with reply_ready:
                replies[line["request"]] = line
                reply_ready.notify_all()
        elif line["type"] == "error":
            say("runway says: %s" % line)
    say("channel closed")
    sys.exit(0)


if __name__ == "__main__":
    main()
