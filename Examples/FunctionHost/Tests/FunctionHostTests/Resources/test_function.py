#!/usr/bin/env python3
"""A function for the host's tests until Functions/python_function.py exists: the contract's HTTP surface
(Examples/FunctionHost/README.md) on FUNCTION_SOCKET and the app protocol on RUNWAY_FD (Docs/AppProtocol.md).

GET / counts requests (the count is preserved in didEnterBackground and restored at a launch that restores);
POST /work?ms=N replies at once and burns N ms of CPU in a background task begun before the reply, ended when done;
GET /echo?x=S answers S. It prints "backgroundTaskWillExpire TASK" when an expiration handler runs, and keeps
working: past its budget Runway kills it (B6).
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


def burn(task, milliseconds):
    end = time.monotonic() + milliseconds / 1000
    while time.monotonic() < end:
        sum(range(1000))
    print("work done, task %d" % task, flush=True)
    request("endBackgroundTask", task=task)


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
        if url.path == "/echo":
            self.reply(urllib.parse.parse_qs(url.query).get("x", [""])[0], "text/plain")
            return
        with state_lock:
            state["count"] += 1
            body = {"function": os.environ["FUNCTION_NAME"], "count": state["count"], "pid": os.getpid(),
                    "restored": state["restored"]}
        self.reply(json.dumps(body))

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        milliseconds = int(urllib.parse.parse_qs(url.query).get("ms", ["0"])[0])
        task = (request("beginBackgroundTask", name="work") or {}).get("task", 0)
        self.reply(json.dumps({"accepted": milliseconds}))
        if task:
            threading.Thread(target=burn, args=(task, milliseconds), daemon=True).start()


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
        print("backgroundTaskWillExpire %d" % line["task"], flush=True)


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
