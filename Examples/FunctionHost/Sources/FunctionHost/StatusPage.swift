/// `GET /status`: one small HTML page, no framework. Its script fetches `/status.json` every 500 ms and rewrites
/// the table, so the page follows the functions live without a reload. Each row carries `data-function` and each
/// state cell `data-state`, which the browser check (Scripts/status_page_check.py) compares with the JSON.
enum StatusPage {
    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>Function host</title>
        <style>
        body { font: 14px system-ui, sans-serif; margin: 2em; color: #222; }
        table { border-collapse: collapse; }
        th, td { padding: 4px 12px; border-bottom: 1px solid #ddd; text-align: left; }
        td.state { font-weight: bold; }
        tr[data-state="active"] td.state { color: #080; }
        tr[data-state="background"] td.state { color: #a60; }
        tr[data-state="suspended"] td.state { color: #06c; }
        tr[data-state="notRunning"] td.state { color: #888; }
        #updated { color: #888; font-size: 12px; }
        </style>
        </head>
        <body>
        <h1>Function host</h1>
        <p>Functions are Runway process apps: active while serving, sent to the background after
        <span id="idle">?</span> s idle, suspended when their background work ends or their budget runs out.</p>
        <table>
        <thead><tr><th>function</th><th>state</th><th>pid</th><th>tasks</th><th>budget left</th>
        <th>budget</th><th>exits on suspend</th><th>last start</th><th>state kept</th></tr></thead>
        <tbody id="functions"></tbody>
        </table>
        <p id="updated">loading</p>
        <script>
        function cell(row, text, cls) {
          const td = document.createElement("td");
          td.textContent = text;
          if (cls) td.className = cls;
          row.appendChild(td);
          return td;
        }
        async function refresh() {
          try {
            const reply = await fetch("/status.json", { cache: "no-store" });
            const status = await reply.json();
            document.getElementById("idle").textContent = status.idleSeconds;
            const body = document.getElementById("functions");
            body.replaceChildren();
            for (const f of status.functions) {
              const row = document.createElement("tr");
              row.dataset.function = f.name;
              row.dataset.state = f.state;
              cell(row, f.name);
              const state = cell(row, f.state + (f.terminating ? " (terminating)" : ""), "state");
              state.dataset.state = f.state;
              cell(row, f.pid === null ? "-" : f.pid);
              cell(row, f.tasks);
              cell(row, f.budgetRemainingMs === null ? "unlimited" : (f.budgetRemainingMs / 1000).toFixed(1) + " s");
              cell(row, f.budgetSeconds + " s");
              cell(row, f.exitsOnSuspend ? "yes" : "no");
              cell(row, f.lastStart === null ? "-" : f.lastStart);
              cell(row, f.hasPreservedState ? "yes" : "no");
              body.appendChild(row);
            }
            const updated = document.getElementById("updated");
            updated.textContent = "updated " + new Date().toISOString();
            updated.dataset.loaded = "true";
          } catch (error) {
            document.getElementById("updated").textContent = "status.json failed: " + error;
          }
        }
        refresh();
        setInterval(refresh, 500);
        </script>
        </body>
        </html>
        """
}
