#!/bin/sh
# A worker that fails once (KeepAlive demo, Config/Apps/com.example.worker.plist): its first start under a daemon
# exits with status 3; the restart that KeepAlive makes runs until SIGTERM. "First" is remembered in a marker file
# named after the parent process (the daemon), so every new daemon sees the failure once.
marker="${TMPDIR:-/tmp}/runway-flaky-worker-$PPID"
if [ ! -e "$marker" ]; then
    : > "$marker"
    echo "flaky worker: first start, exiting with status 3"
    exit 3
fi
rm -f "$marker"
echo "flaky worker: started again, running until SIGTERM"
trap 'echo "flaky worker: SIGTERM, exiting"; exit 0' TERM
while :; do
    sleep 1 &
    wait $!
done
