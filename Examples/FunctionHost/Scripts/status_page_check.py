#!/usr/bin/env python3
"""The host's status page in a real browser: headless Chromium (Debian's `chromium`) loads GET /status, runs its
script (which reads /status.json) and dumps the DOM; this checks that every function's row shows the state that
/status.json reports at the same moment, and keeps a screenshot of the page.

    status_page_check.py --url http://127.0.0.1:PORT --screenshot PATH [--chromium chromium]

The states must hold still during the check: /status.json is read before and after the browser runs, and the
check fails unless both readings agree (so that "the same moment" is the whole interval). Exits 0 when every
function's row matches, 1 with the differences otherwise, 2 when Chromium is missing or fails. Standard library
only.
"""
import argparse
import html.parser
import json
import shutil
import subprocess
import sys
import tempfile
import urllib.request

BROWSER_SECONDS = 120
# Virtual time the page's script gets: its first fetch of /status.json and a few refreshes (every 500 ms).
VIRTUAL_TIME_MS = 3000


class Rows(html.parser.HTMLParser):
    """Collects the data-state of each <tr data-function> and whether the script marked the page loaded."""

    def __init__(self):
        super().__init__()
        self.states = {}
        self.loaded = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "tr" and "data-function" in attributes:
            self.states[attributes["data-function"]] = attributes.get("data-state")
        if attributes.get("id") == "updated" and attributes.get("data-loaded") == "true":
            self.loaded = True


def status_states(url):
    with urllib.request.urlopen(url + "/status.json", timeout=10) as reply:
        status = json.load(reply)
    return {function["name"]: function["state"] for function in status["functions"]}


def chromium(binary, profile, *arguments):
    command = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--user-data-dir=" + profile, "--virtual-time-budget=%d" % VIRTUAL_TIME_MS, *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=BROWSER_SECONDS)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the host's base URL, e.g. http://127.0.0.1:8080")
    parser.add_argument("--screenshot", required=True, help="where to write the PNG screenshot")
    parser.add_argument("--chromium", default="chromium", help="the Chromium binary (default: chromium)")
    options = parser.parse_args()
    binary = shutil.which(options.chromium)
    if binary is None:
        print("status_page_check: %s not found (apt-get install chromium)" % options.chromium)
        return 2
    page = options.url + "/status"
    with tempfile.TemporaryDirectory(prefix="status-page-check.") as profile:
        before = status_states(options.url)
        dump = chromium(binary, profile, "--dump-dom", page)
        after = status_states(options.url)
        shot = chromium(binary, profile, "--window-size=1100,360", "--screenshot=" + options.screenshot, page)
    if dump.returncode != 0 or shot.returncode != 0:
        print("status_page_check: chromium failed:\n%s%s" % (dump.stderr[-2000:], shot.stderr[-2000:]))
        return 2
    rows = Rows()
    rows.feed(dump.stdout)
    problems = []
    if not rows.loaded:
        problems.append("the page's script never filled the table from /status.json")
    if before != after:
        problems.append("the states moved during the check: %s, then %s" % (before, after))
    if rows.states != after:
        problems.append("the page shows %s, /status.json says %s" % (rows.states, after))
    print("status_page_check: page %s, json %s; screenshot %s" % (rows.states, after, options.screenshot))
    for problem in problems:
        print("status_page_check: " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
