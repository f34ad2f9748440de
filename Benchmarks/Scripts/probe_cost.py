#!/usr/bin/env python3
"""What a health probe costs the daemon at N apps, beside a scrape (Docs/Operations.md, "Health probes").

usage: probe_cost.py RUNWAY N [REQUESTS]
   e.g. python3 Benchmarks/Scripts/probe_cost.py "$(swift build -c release --show-bin-path)/runway" 10000
Generates N process apps (/bin/sleep, not started), runs `runway run --metrics-address 127.0.0.1:0`, waits for
/readyz 200, then sends REQUESTS requests to /healthz and to /readyz and REQUESTS/10 to /metrics, each path on one
kept-alive connection (so that the connection's own cost, its accept and the loopback peer's lookup in
/proc/net/tcp, is paid once), and prints the daemon's CPU time per request (utime + stime of /proc/PID/stat, before
and after) and, where strace is installed, its system calls per request (strace -c -f -p PID over a second run of
the same requests). CPU times need a quiet machine; the system call counts do not.
"""
import os, re, shutil, socket, subprocess, sys, tempfile, time

def get(port, path):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk: break
        data += chunk
    s.close()
    return int(data.split(b" ", 2)[1]), data

class KeepAlive:
    """One connection for every request: the per-connection cost (accept, the peer lookup) is paid once."""
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port)); self.buffer = b""
    def get(self, path):
        self.s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        while b"\r\n\r\n" not in self.buffer: self.buffer += self.s.recv(65536)
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
        while len(self.buffer) < length: self.buffer += self.s.recv(65536)
        self.buffer = self.buffer[length:]
        return int(head.split(b" ", 2)[1])

def cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

runway, n = sys.argv[1], int(sys.argv[2])
requests = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
root = tempfile.mkdtemp(prefix="probe-cost-")
os.makedirs(f"{root}/Apps")
open(f"{root}/Runway.plist", "w").write(
    '<?xml version="1.0"?><plist version="1.0"><dict>'
    f'<key>ControlSocket</key><string>{root}/c.sock</string>'
    '<key>MemoryPressureSource</key><string>off</string></dict></plist>')
for i in range(n):
    open(f"{root}/Apps/com.example.app{i}.plist", "w").write(
        '<?xml version="1.0"?><plist version="1.0"><dict>'
        f'<key>CFBundleIdentifier</key><string>com.example.app{i}</string>'
        '<key>ProgramArguments</key><array><string>/bin/sleep</string><string>1000</string></array>'
        '</dict></plist>')
out = open(f"{root}/out.txt", "w")
daemon = subprocess.Popen([runway, "run", "--config", root, "--metrics-address", "127.0.0.1:0",
                           "--state-directory", f"{root}/state"], stdout=out, stderr=out)
try:
    port = None
    for _ in range(6000):
        m = re.search(r"metrics: http://127\.0\.0\.1:(\d+)/metrics", open(f"{root}/out.txt").read())
        if m:
            port = int(m.group(1))
            try:
                if get(port, "/readyz")[0] == 200: break
            except OSError: pass
        time.sleep(0.01)
    print(f"apps {n}, requests {requests} per path, load {os.getloadavg()[0]:.2f}")
    idle = cpu(daemon.pid); time.sleep(2.0); idle = (cpu(daemon.pid) - idle) / 2.0
    print(f"  idle: {idle * 1e3:.1f} ms daemon CPU per second")
    for path, count in (("/healthz", requests), ("/readyz", requests), ("/metrics", max(1, requests // 10))):
        before = cpu(daemon.pid); started = time.monotonic()
        connection = KeepAlive(port)
        for _ in range(count):
            status = connection.get(path)
            assert status == 200, (path, status)
        after = cpu(daemon.pid); wall = time.monotonic() - started
        calls = ""
        if shutil.which("strace"):
            tracer = subprocess.Popen(["strace", "-c", "-f", "-p", str(daemon.pid), "-o", f"{root}/strace.txt"],
                                      stderr=subprocess.DEVNULL)
            time.sleep(1.0)
            connection = KeepAlive(port)
            for _ in range(count):
                connection.get(path)
            tracer.terminate(); tracer.wait()
            total = [l for l in open(f"{root}/strace.txt") if l.strip().endswith("total")]
            if total:
                calls = f", {int(total[0].split()[3]) / count:.1f} system calls per request (strace -c -f)"
        print(f"  {path}: {(after - before) / count * 1e6:.0f} µs daemon CPU per request{calls}")
finally:
    daemon.terminate(); daemon.wait(timeout=60)
    shutil.rmtree(root, ignore_errors=True)
