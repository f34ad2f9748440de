#!/usr/bin/env python3
"""`make prometheus-check`: the alerting rules and the Grafana dashboard of Deploy/prometheus/ against promtool and
against what a real daemon exports.

1. `promtool check rules` on runway.rules.yml, `promtool test rules` on runway.rules.test.yml (each alert fires in
   one case and stays quiet in another), `promtool check config` on the sample prometheus.yml that loads them.
2. runway.dashboard.json is JSON and a dashboard Grafana can load: a uid and title, panels with unique ids on the
   24-column grid, every query with a refId and an expression promtool parses (Grafana's variables replaced), the
   data source the `datasource` variable.
3. Every metric name the rules and the dashboard use is one the daemon exports: a `runway run` on a scratch
   configuration (MetricsPerApp `all`, one process app launched at load) is scraped with a real HTTP GET of
   /metrics, and each name missing from it is named with where it is used. Nothing else happens first, so a
   series must be there from the start, as Docs/Operations.md says every documented one is. Prometheus' own `up`
   and `scrape_*` series are made by the server, not exported, and are excepted.

Usage: check-prometheus.py RUNWAY_BINARY, or check-prometheus.py --self-test (the name extraction and comparison
on known expressions: it must find every name and report one not exported). Python 3 with PyYAML (.ci/run installs
it) and promtool (Debian's `prometheus`).
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
import urllib.request

import yaml

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRECTORY = os.path.join(REPOSITORY, "Deploy", "prometheus")
RULES = os.path.join(DIRECTORY, "runway.rules.yml")
RULE_TESTS = os.path.join(DIRECTORY, "runway.rules.test.yml")
CONFIG = os.path.join(DIRECTORY, "prometheus.yml")
DASHBOARD = os.path.join(DIRECTORY, "runway.dashboard.json")
OPERATIONS = os.path.join(REPOSITORY, "Docs", "Operations.md")
# Series Prometheus makes for each scrape itself (https://prometheus.io/docs/concepts/jobs_instances/).
SERVER_SERIES = re.compile(r"^(up|scrape_[a-z_]+)$")
KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left", "group_right",
            "inf", "nan", "Inf", "NaN"}

RUNWAY_PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>ControlSocket</key><string>{scratch}/control.sock</string>
<key>StateDirectory</key><string>{scratch}/state</string>
<key>MetricsAddress</key><string>127.0.0.1:0</string>
<key>MetricsPerApp</key><string>all</string>
</dict></plist>
"""
APP_PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>com.example.sleeper</string>
<key>ProgramArguments</key><array><string>/bin/sleep</string><string>600</string></array>
<key>RunAtLoad</key><true/>
</dict></plist>
"""


def metric_names(expression):
    """The metric names a PromQL expression selects (Grafana's `$variables` allowed)."""
    text = re.sub(r"\$\{?\w+\}?", "", expression)
    text = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', "", text)
    text = re.sub(r"\{[^}]*\}|\[[^\]]*\]", " ", text)
    text = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    names = set()
    for match in re.finditer(r"(?<![\w:.])[A-Za-z_:][\w:]*", text):
        name = match.group(0)
        if name in KEYWORDS or re.match(r"\s*\(", text[match.end():]):
            continue  # an operator, or a function or aggregation applied to what follows
        names.add(name)
    return names


def exported_names(exposition):
    """Every series name in a Prometheus text exposition, and each family a `# TYPE` line declares."""
    names = set()
    for line in exposition.splitlines():
        if line.startswith("# TYPE "):
            family, kind = line.split()[2:4]
            names.add(family)
            suffixes = {"histogram": ["_bucket", "_sum", "_count"], "summary": ["_sum", "_count"]}.get(kind, [])
            names.update(family + suffix for suffix in suffixes)
        elif line and not line.startswith("#"):
            names.add(re.match(r"[A-Za-z_:][\w:]*", line).group(0))
    return names


def missing(uses, exported):
    """(name, where) for each name used and not exported, the server's own series excepted."""
    return sorted({(name, where) for where, names in uses for name in names
                   if name not in exported and not SERVER_SERIES.match(name)})


def rule_uses():
    """Checks that each alert says how long, how bad and what to do, its runbook a section of Operations.md, and
    returns the names each alert's expression uses."""
    with open(RULES) as f:
        groups = yaml.safe_load(f)["groups"]
    with open(OPERATIONS) as f:
        anchors = {"Docs/Operations.md#" + re.sub(r"[^\w\- ]", "", line[5:].strip()).lower().replace(" ", "-")
                   for line in f if line.startswith("#### ")}
    for rule in (rule for group in groups for rule in group["rules"]):
        annotations = rule.get("annotations", {})
        if "for" not in rule or rule.get("labels", {}).get("severity") not in ("critical", "warning", "info") \
                or not annotations.get("summary") or annotations.get("runbook") not in anchors \
                or annotations["runbook"] not in annotations.get("description", ""):
            sys.exit("%s: alert %s needs `for`, a severity label, a summary, and a runbook annotation naming a "
                     "section of Docs/Operations.md that its description cites" % (RULES, rule.get("alert")))
    return [("%s alert %s" % (os.path.basename(RULES), rule["alert"]), metric_names(rule["expr"]))
            for group in groups for rule in group["rules"]]


def dashboard_uses(dashboard):
    """Checks the dashboard's shape (failing with what is wrong) and returns its queries' names."""
    problems, uses, queries = [], [], []
    for key in ("uid", "title", "panels", "templating", "schemaVersion"):
        if key not in dashboard:
            problems.append("no %r" % key)
    variables = {variable["name"]: variable for variable in dashboard.get("templating", {}).get("list", [])}
    if variables.get("datasource", {}).get("type") != "datasource":
        problems.append("no `datasource` variable of type datasource")
    ids = [panel.get("id") for panel in dashboard.get("panels", [])]
    if len(ids) != len(set(ids)) or None in ids:
        problems.append("panel ids missing or repeated: %s" % ids)
    for panel in dashboard.get("panels", []):
        title = "%s panel %r" % (os.path.basename(DASHBOARD), panel.get("title"))
        grid = panel.get("gridPos", {})
        if not all(isinstance(grid.get(k), int) for k in "xywh") or grid["x"] + grid["w"] > 24:
            problems.append("%s: gridPos %s is not on the 24-column grid" % (title, grid))
        if panel.get("type") == "row":
            continue
        if panel.get("datasource", {}).get("uid") != "${datasource}" or not panel.get("targets"):
            problems.append("%s: no targets, or a data source other than ${datasource}" % title)
        for target in panel.get("targets", []):
            names = metric_names(target.get("expr", ""))
            if not target.get("refId") or not names:
                problems.append("%s: a target without refId or without a metric: %r" % (title, target))
            uses.append((title, names))
            queries.append(target.get("expr", ""))
    for name, variable in variables.items():
        query = variable.get("query")
        if isinstance(query, dict):
            selected = re.match(r"label_values\(\s*([^,]+),", query.get("query", ""))
            uses.append(("%s variable %s" % (os.path.basename(DASHBOARD), name),
                         metric_names(selected.group(1)) if selected else {"<no label_values(metric, label)>"}))
    if problems:
        sys.exit("%s is not a dashboard Grafana loads:\n  %s" % (DASHBOARD, "\n  ".join(problems)))
    return uses, queries


def check_queries(queries):
    """promtool parses each dashboard query, as the expression of a recording rule, Grafana's variables replaced."""
    values = {"__rate_interval": "5m", "__interval": "1m", "__range": "1h"}
    rules = [{"record": "dashboard:query_%d" % index,
              "expr": re.sub(r"\$\{?(\w+)\}?", lambda m: values.get(m.group(1), ".*"), query)}
             for index, query in enumerate(queries)]
    with tempfile.NamedTemporaryFile("w", suffix=".yml") as f:
        yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, f)
        f.flush()
        if subprocess.run(["promtool", "check", "rules", f.name], stdout=subprocess.DEVNULL).returncode != 0:
            sys.exit("check-prometheus: a query of %s is not PromQL (promtool above)" % DASHBOARD)


def scrape(runway):
    """GET /metrics of a daemon started on a scratch configuration; the daemon is stopped after."""
    scratch = tempfile.mkdtemp(prefix="runway-prometheus-check-")
    os.makedirs(os.path.join(scratch, "Config", "Apps"))
    os.makedirs(os.path.join(scratch, "state"), mode=0o700)
    with open(os.path.join(scratch, "Config", "Runway.plist"), "w") as f:
        f.write(RUNWAY_PLIST.format(scratch=scratch))
    with open(os.path.join(scratch, "Config", "Apps", "com.example.sleeper.plist"), "w") as f:
        f.write(APP_PLIST)
    # Files, not pipes: a pipe nobody reads would block the daemon once full.
    out_path = os.path.join(scratch, "daemon.out")
    with open(out_path, "w") as out, open(os.path.join(scratch, "daemon.err"), "w") as err:
        daemon = subprocess.Popen([runway, "run", "--config", os.path.join(scratch, "Config")], stdout=out,
                                  stderr=err)
    try:
        deadline = time.monotonic() + 30
        url = None
        while url is None:
            if daemon.poll() is not None or time.monotonic() > deadline:
                with open(os.path.join(scratch, "daemon.err")) as f:
                    sys.exit("the daemon did not serve /metrics (exit %s):\n%s" % (daemon.poll(), f.read()))
            time.sleep(0.1)
            with open(out_path) as f:
                found = re.search(r"metrics: (http://\S+/metrics)", f.read())
            url = found and found.group(1)
        with urllib.request.urlopen(url, timeout=10) as response:
            return url, response.read().decode()
    finally:
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(timeout=20)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()
        shutil.rmtree(scratch, ignore_errors=True)


def self_test():
    cases = {
        'sum without (from, to, cause) (increase(runway_transitions_total{from="notRunning"}[30m])) > 5':
            {"runway_transitions_total"},
        'histogram_quantile(0.99, sum by (le) (rate(a_bucket{instance=~"$instance"}[$__rate_interval]))) > 1e-2':
            {"a_bucket"},
        "time() - process_start_time_seconds offset 5m": {"process_start_time_seconds"},
        'absent(up{job="runway"}) or on (job) b_total unless c:recorded': {"up", "b_total", "c:recorded"},
        'topk(10, x) / ignoring(app) group_left y and bool z{a="by (q) w"}': {"x", "y", "z"},
    }
    for expression, expected in cases.items():
        found = metric_names(expression)
        if found != expected:
            sys.exit("self-test: %r gave %s, expected %s" % (expression, sorted(found), sorted(expected)))
    exposition = "# TYPE h histogram\nh_bucket{le=\"1\"} 0\n# TYPE c counter\nc_total 0\ng{app=\"x\"} 1\n"
    exported = exported_names(exposition)
    if exported != {"h", "h_bucket", "h_sum", "h_count", "c", "c_total", "g"}:
        sys.exit("self-test: exported names %s" % sorted(exported))
    uses = [("rule A", {"h_count", "up", "scrape_duration_seconds"}), ("panel B", {"g", "absent_total"})]
    if missing(uses, exported) != [("absent_total", "panel B")]:
        sys.exit("self-test: missing gave %s" % missing(uses, exported))
    panel = {"id": 1, "type": "timeseries", "title": "p", "gridPos": {"x": 0, "y": 0, "w": 12, "h": 8},
             "datasource": {"uid": "${datasource}"}, "targets": [{"refId": "A", "expr": "rate(a_total[5m])"}]}
    good = {"uid": "u", "title": "t", "schemaVersion": 39, "panels": [panel],
            "templating": {"list": [{"name": "datasource", "type": "datasource"}]}}
    if [names for _, names in dashboard_uses(good)[0]] != [{"a_total"}]:
        sys.exit("self-test: a good dashboard gave %s" % (dashboard_uses(good),))
    broken = {"a repeated panel id": dict(good, panels=[panel, dict(panel, gridPos=dict(panel["gridPos"], x=12))]),
              "a panel off the grid": dict(good, panels=[dict(panel, gridPos=dict(panel["gridPos"], x=16))]),
              "a query without a metric": dict(good, panels=[dict(panel, targets=[{"refId": "A", "expr": "1"}])]),
              "another data source": dict(good, panels=[dict(panel, datasource={"uid": "prometheus"})]),
              "no datasource variable": dict(good, templating={"list": []})}
    for what, dashboard in broken.items():
        try:
            dashboard_uses(dashboard)
        except SystemExit:
            continue
        sys.exit("self-test: a dashboard with %s passed" % what)
    print("check-prometheus: self-test passed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for command in (["promtool", "check", "rules", RULES], ["promtool", "test", "rules", RULE_TESTS],
                    ["promtool", "check", "config", CONFIG]):
        if subprocess.run(command, cwd=DIRECTORY).returncode != 0:
            sys.exit("check-prometheus: `%s` failed" % " ".join(command))
    with open(DASHBOARD) as f:
        try:
            dashboard = json.load(f)
        except json.JSONDecodeError as error:
            sys.exit("%s is not JSON: %s" % (DASHBOARD, error))
    panel_uses, queries = dashboard_uses(dashboard)
    check_queries(queries)
    uses = rule_uses() + panel_uses
    url, exposition = scrape(os.path.abspath(sys.argv[1]))
    absent = missing(uses, exported_names(exposition))
    if absent:
        sys.exit("check-prometheus: names used but not exported by %s:\n  %s" % (
            url, "\n  ".join("%s (%s)" % pair for pair in absent)))
    print("check-prometheus: %d rules and %d dashboard queries use only names %s exports" % (
        len(rule_uses()), len(uses) - len(rule_uses()), url))


if __name__ == "__main__":
    main()
