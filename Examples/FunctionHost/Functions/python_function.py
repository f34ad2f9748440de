#!/usr/bin/env python3
"""The Python sample function of the function host (Examples/FunctionHost/README.md; standard library only).

A Runway protocol app (Docs/AppProtocol.md) that serves HTTP/1.1 on the Unix socket named by FUNCTION_SOCKET:

- `GET /` -> `{"function": NAME, "count": N, "pid": PID, "restored": BOOL}`. `count` counts every request this
  function has served, this one included, across purges: it is preserved (`preserveState`) when the function
  enters the background and handed back (`restoredState`) when a launch restores it; `restored` says whether
  this run began from a preserved state.
- `POST /work?ms=N` -> `{"accepted": N}` at once, then N ms of CPU work after the response, inside a background
  task begun before replying and ended when the work is done (the serverless `waitUntil` pattern). When Runway
  warns that the budget is running out (`backgroundTaskWillExpire`), the work stops and the task ends, so the
  function is suspended instead of killed (Behaviour.md B4, B5). With `&ignoreExpiration=1` the work goes on
  past the warning: the function is killed at its budget's deadline (B6).
- `GET /echo?x=S` -> S as text.

The socket listens before the function acknowledges `didFinishLaunching`, so the host can send the first request
as soon as the launch is done. FUNCTION_NAME holds the function's name.
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

NAME = os.environ.get("FUNCTION_NAME", "python")
# Characters of state text per preserveState line: JSON escapes a character into at most 12 bytes, so a part of
# 4,096 stays far below the protocol's 65,536-byte line limit.
PART_CHARACTERS = 4096
# The most work one request may ask for: a bound on what a client can make the function hold.
WORK_MILLISECONDS_LIMIT = 600_000


class Channel:
    """The app protocol on RUNWAY_FD: requests wait for their replies, read by `serve_messages`."""

    def __init__(self, descriptor):
        self.socket = socket.socket(fileno=descriptor)
        self.write_lock = threading.Lock()
        self.replies = {}
        self.reply_ready = threading.Condition()
        self.next_request = 0

    def send(self, line):
        data = (json.dumps(line, separators=(",", ":")) + "\n").encode()
        with self.write_lock:
            self.socket.sendall(data)

    def request(self, kind, **fields):
        """Sends a request and returns its reply or error line (None when none came within 30 s)."""
        with self.reply_ready:
            self.next_request += 1
            number = self.next_request
        self.send({"type": kind, "request": number, **fields})
        with self.reply_ready:
            self.reply_ready.wait_for(lambda: number in self.replies, timeout=30)
            return self.replies.pop(number, None)

    def answered(self, line):
        with self.reply_ready:
            self.replies[line["request"]] = line
            self.reply_ready.notify_all()


class Function:
    """The function's state: its count, whether this run was restored, and the work in flight."""

    def __init__(self, channel):
        self.channel = channel
        self.lock = threading.Lock()
        self.count = 0
        self.restored = False
        # Background task id -> the event that stops its work when its expiration warning comes.
        self.stops = {}

    def served(self):
        with self.lock:
            self.count += 1
            return self.count

    def restore(self, text, reason):
        try:
            value = int(json.loads(text)["count"])
        except (ValueError, KeyError, TypeError):
            say("restored state unreadable, starting from 0: %r" % text[:80])
            return
        with self.lock:
            self.count = value
            self.restored = True
        say("restored count %d (%s)" % (value, reason))

    def preserve(self):
        with self.lock:
            value = self.count
        text = json.dumps({"count": value})
        parts = [text[i : i + PART_CHARACTERS] for i in range(0, len(text), PART_CHARACTERS)] or [""]
        for index, part in enumerate(parts):
            fields = {"state": part}
            if index < len(parts) - 1:
                fields["more"] = True
            reply = self.channel.request("preserveState", **fields)
            if reply is None or reply.get("type") != "reply":
                if reply is not None and reply.get("code") == "stateTooLarge" and fields.get("more"):
                    # Every later part of a refused state is refused too: end it so that the next one is taken.
                    self.channel.request("preserveState", state="")
                say("count not preserved: %s" % reply)
                return
        say("preserved count %d" % value)

    def begin_work(self, milliseconds, ignore_expiration):
        """Begins the background task (before the reply is sent) and returns the function that runs the work."""
        reply = self.channel.request("beginBackgroundTask", name="work") or {}
        task = reply.get("task", 0)
        if task == 0:
            say("no background task for the work: %s" % reply)
        stop = threading.Event()
        if task != 0 and not ignore_expiration:
            with self.lock:
                self.stops[task] = stop

        def work():
            finished = spin(milliseconds, stop)
            if task == 0:
                return
            with self.lock:
                self.stops.pop(task, None)
            ended = self.channel.request("endBackgroundTask", task=task)
            say("work of task %d %s after %d ms: %s" % (task, "done" if finished else "stopped", milliseconds, ended))

        return work

    def expire(self, task):
        with self.lock:
            stop = self.stops.get(task)
        if stop is not None:
            stop.set()
        say("task %d will expire: work %s" % (task, "stopped" if stop is not None else "goes on"))


def spin(milliseconds, stop):
    """Burns `milliseconds` of this thread's CPU time; returns False when `stop` was set first."""
    end = time.thread_time() + milliseconds / 1000
    while time.thread_time() < end:
        if stop.is_set():
            return False
        for _ in range(2000):
            pass
    return True


def say(text):
    print(text, flush=True)


def handler_for(function):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            self.serve("GET")

        def do_POST(self):
            self.serve("POST")

        def serve(self, method):
            url = urllib.parse.urlsplit(self.path)
            query = urllib.parse.parse_qs(url.query)
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            after = None
            if method == "GET" and url.path == "/":
                count = function.served()
                with function.lock:
                    restored = function.restored
                body = {"function": NAME, "count": count, "pid": os.getpid(), "restored": restored}
                self.answer(200, json.dumps(body), "application/json")
            elif method == "GET" and url.path == "/echo":
                function.served()
                self.answer(200, query.get("x", [""])[0], "text/plain; charset=utf-8")
            elif method == "POST" and url.path == "/work":
                try:
                    milliseconds = int(query.get("ms", ["0"])[0])
                except ValueError:
                    milliseconds = -1
                if not 0 <= milliseconds <= WORK_MILLISECONDS_LIMIT:
                    error = "ms must be an integer from 0 to %d" % WORK_MILLISECONDS_LIMIT
                    return self.answer(400, json.dumps({"error": error}), "application/json")
                function.served()
                after = function.begin_work(milliseconds, query.get("ignoreExpiration", ["0"])[0] == "1")
                self.answer(200, json.dumps({"accepted": milliseconds}), "application/json")
            else:
                error = "no route for %s %s" % (method, url.path)
                self.answer(404, json.dumps({"error": error}), "application/json")
            if after is not None:
                threading.Thread(target=after, daemon=True).start()

        def answer(self, status, text, content_type):
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

        def log_message(self, format, *arguments):
            # The default writes the client's address, which a Unix socket does not have.
            pass

    return Handler


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    # The listen backlog: socketserver's default of 5 refuses a burst of connections, which the host's
    # non-blocking connect sees as EAGAIN and answers with 502.
    request_queue_size = 128


def listen(path, function):
    if os.path.exists(path):
        os.unlink(path)
    server = Server(path, handler_for(function))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main():
    if "RUNWAY_FD" not in os.environ or "FUNCTION_SOCKET" not in os.environ:
        sys.exit("python_function.py: run it under Runway, with RUNWAY_FD and FUNCTION_SOCKET set")
    channel = Channel(int(os.environ["RUNWAY_FD"]))
    function = Function(channel)
    path = os.environ["FUNCTION_SOCKET"]
    # Listening before anything else: the socket accepts as soon as the launch (didFinishLaunching) is done.
    listen(path, function)
    restored_parts = []
    pending = []
    pending_ready = threading.Condition()

    def handle(line):
        message = line["message"]
        if message == "didFinishLaunching" and line.get("restoration") is not None:
            function.restore("".join(restored_parts), line["restoration"])
        elif message == "didEnterBackground":
            function.preserve()
        elif message == "backgroundTaskWillExpire":
            function.expire(line["task"])

    def worker():
        # Messages are handled here, one at a time, so that the replies to their requests can be read meanwhile.
        while True:
            with pending_ready:
                pending_ready.wait_for(lambda: pending)
                line = pending.pop(0)
            handle(line)
            channel.send({"type": "ack", "token": line["token"]})

    threading.Thread(target=worker, daemon=True).start()
    for raw in channel.socket.makefile("r", encoding="utf-8", newline="\n"):
        line = json.loads(raw)
        if line["type"] == "restoredState":
            # Not a message: no token, no ack; the parts come in order, before didFinishLaunching.
            restored_parts.append(line.get("state", ""))
        elif line["type"] == "message":
            with pending_ready:
                pending.append(line)
                pending_ready.notify()
        elif line["type"] in ("reply", "error") and line.get("request") is not None:
            channel.answered(line)
        elif line["type"] == "error":
            say("runway says: %s" % line)
    try:
        os.unlink(path)
    except OSError:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
