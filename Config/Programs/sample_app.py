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

State restoration: the app keeps a counter, one more at each didBecomeActive and, with SAMPLE_COUNTER_SECONDS set,
every that many seconds while active. In didEnterBackground it preserves {"counter": N} (preserveState, before its
background task), and on a launch that restores it starts from the counter in the restoredState lines that came
before didFinishLaunching. It prints "counter N", "preserved counter N" and "restored counter N (REASON)".
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
# The counter and whether the app is active; the ticker thread and the message worker share them.
counter_lock = threading.Lock()
counter = {"value": 0, "active": False}
# restoredState parts gathered before didFinishLaunching (read by the main loop, used by the worker).
restored_parts = []
# Characters of state text per preserveState line: JSON escapes a character into at most 12 bytes, so a part of
# 4,096 stays far below the protocol's 65,536-byte line limit.
PART_CHARACTERS = 4096


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


def count(reason):
    with counter_lock:
        counter["value"] += 1
        value = counter["value"]
    say("counter %d (%s)" % (value, reason))


def tick_while_active(seconds):
    def ticker():
        while True:
            threading.Event().wait(seconds)
            with counter_lock:
                active = counter["active"]
            if active:
                count("tick")

    threading.Thread(target=ticker, daemon=True).start()


def preserve_state(text):
    """Hands Runway the state in parts; the reply to the last part comes once it is stored durably."""
    parts = [text[i : i + PART_CHARACTERS] for i in range(0, len(text), PART_CHARACTERS)] or [""]
    for index, part in enumerate(parts):
        fields = {"state": part}
        if index < len(parts) - 1:
            fields["more"] = True
        reply = request("preserveState", **fields)
        if reply is None or reply.get("type") != "reply":
            if reply is not None and reply.get("code") == "stateTooLarge" and fields.get("more"):
                # Runway refuses every part of a refused state up to its last one: end it, so that the next
                # state is taken.
                request("preserveState", state="")
            return reply
    return reply


def restore(line):
    text = "".join(restored_parts)
    restored_parts.clear()
    reason = line.get("restoration")
    if reason is None:
        return
    try:
        value = int(json.loads(text)["counter"])
    except (ValueError, KeyError, TypeError):
        say("restored state unreadable, starting from 0: %r" % text[:80])
        return
    with counter_lock:
        counter["value"] = value
    say("restored counter %d (%s)" % (value, reason))


def handle(message, line):
    if message == "didFinishLaunching":
        restore(line)
    if message == "didBecomeActive":
        with counter_lock:
            counter["active"] = True
        count("didBecomeActive")
    elif message == "willResignActive":
        with counter_lock:
            counter["active"] = False
    if message == "didFinishLaunching" and os.environ.get("SAMPLE_REFRESH_SECONDS"):
        seconds = float(os.environ["SAMPLE_REFRESH_SECONDS"])
        say("refresh scheduled in %s s: %s" % (seconds, request("scheduleRefresh", seconds=seconds)))
    elif message == "backgroundWake":
        say("wake %s %s wake#%d" % (line["reason"], line.get("payload", ""), line["wake"]))
        seconds = os.environ.get("SAMPLE_WAKE_SECONDS", "0.5")
        if seconds != "never":
            complete_wake_later(line["wake"], float(seconds))
    elif message == "didEnterBackground":
        with counter_lock:
            counter["active"] = False
            value = counter["value"]
        reply = preserve_state(json.dumps({"counter": value}))
        if reply is not None and reply.get("type") == "reply":
            say("preserved counter %d" % value)
        else:
            say("state not preserved: %s" % reply)
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
    if os.environ.get("SAMPLE_COUNTER_SECONDS"):
        tick_while_active(float(os.environ["SAMPLE_COUNTER_SECONDS"]))
    for raw in reader:
        line = json.loads(raw)
        if line["type"] == "restoredState":
            # Not a message: no token, no ack. The parts come in order, before didFinishLaunching.
            restored_parts.append(line.get("state", ""))
        elif line["type"] == "message":
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
