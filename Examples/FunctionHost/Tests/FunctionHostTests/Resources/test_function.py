#!/usr/bin/env python3
"""A function for the host's tests until Functions/python_function.py exists: the contract's HTTP surface
(Examples/FunctionHost/README.md) on FUNCTION_SOCKET and the app protocol on RUNWAY_FD (Docs/AppProtocol.md).

Every request counts (the count is preserved in didEnterBackground and restored at a launch that restores);
POST /work?ms=N replies at once and burns N ms of CPU in a background task begun before the reply, ended when done
or when its expiration warning comes (B4, B5: then suspended), or with ignoreExpiration=1 only when done (B6: past
the budget, killed); GET /echo?x=S answers S. It prints "task N will expire" when an expiration handler runs.
"""
import json
import os
import socket
import socketserver
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler

channel = socket.socket(fileno=int(os.environ["RUNWAY_FD"]))
reader = channel.makefile("r", encoding="utf-8", newline="\n")
write_lock = threading.Lock()
replies = {}
reply_ready = threading.Condition()
next_request = [0]
state_lock = threading.Lock()
state = {"count": 0, "restored": False}
restored_parts = []
# Background task id -> the event that stops its work at its expiration warning.
stops = {}


def send(line):
    data = (json.dumps(line, separators=(",", ":")) + "\n").encode()
    with write_lock:
        channel.sendall(data)


def request(kind, **fields):
    with reply_ready:
        next_request[0] += 1
        number = next_request[0]
    send({"type": kind, "request": number, **fields})
    with reply_ready:
        reply_ready.wait_for(lambda: number in replies, timeout=30)
        return replies.pop(number, None)


def burn(task, milliseconds, stop):
    end = time.monotonic() + milliseconds / 1000
    while time.monotonic() < end and not stop.is_set():
        sum(range(1000))
    print("work of task %d %s" % (task, "stopped" if stop.is_set() else "done"), flush=True)
    request("endBackgroundTask", task=task)


def served():
    with state_lock:
        state["count"] += 1
        return state["count"]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, body, content_type="application/json"):
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        count = served()
        if url.path == "/echo":
            self.reply(urllib.parse.parse_qs(url.query).get("x", [""])[0], "text/plain")
            return
        with state_lock:
            restored = state["restored"]
        body = {"function": os.environ["FUNCTION_NAME"], "count": count, "pid": os.getpid(), "restored": restored}
        self.reply(json.dumps(body))

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        milliseconds = int(query.get("ms", ["0"])[0])
        served()
        task = (request("beginBackgroundTask", name="work") or {}).get("task", 0)
        stop = threading.Event()
        if task and query.get("ignoreExpiration", ["0"])[0] != "1":
            with state_lock:
                stops[task] = stop
        self.reply(json.dumps({"accepted": milliseconds}))
        if task:
            threading.Thread(target=burn, args=(task, milliseconds, stop), daemon=True).start()


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def handle(line):
    message = line["message"]
    if message == "didFinishLaunching" and line.get("restoration") is not None:
        try:
            count = int(json.loads("".join(restored_parts))["count"])
            with state_lock:
                state["count"], state["restored"] = count, True
        except (ValueError, KeyError, TypeError):
            pass
    elif message == "didEnterBackground":
        with state_lock:
            count = state["count"]
        request("preserveState", state=json.dumps({"count": count}))
    elif message == "backgroundTaskWillExpire":
        with state_lock:
            stop = stops.pop(line["task"], None)
        if stop is not None:
            stop.set()
        print("task %d will expire" % line["task"], flush=True)


def main():
    path = os.environ["FUNCTION_SOCKET"]
    if os.path.exists(path):
        os.unlink(path)
    server = Server(path, Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    pending = []
    pending_ready = threading.Condition()

    def worker():
        while True:
            with pending_ready:
                pending_ready.wait_for(lambda: pending)
                line = pending.pop(0)
            handle(line)
            send({"type": "ack", "token": line["token"]})

    threading.Thread(target=worker, daemon=True).start()
    for raw in reader:
        line = json.loads(raw)
        if line["type"] == "restoredState":
            restored_parts.append(line.get("state", ""))
        elif line["type"] == "message":
            with pending_ready:
                pending.append(line)
                pending_ready.notify()
        elif line["type"] in ("reply", "error") and line.get("request") is not None:
            with reply_ready:
                replies[line["request"]] = line
                reply_ready.notify_all()
    sys.exit(0)


if __name__ == "__main__":
    main()
