/// The pages' stylesheet (/assets/dashboard.css) and icon (/assets/favicon.svg): served by the
/// dashboard itself, no fonts or files from elsewhere.
enum DashboardStyle {
    static let favicon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1e293b"/>\
        <circle cx="9" cy="10" r="4" fill="#4ade80"/><circle cx="23" cy="16" r="4" fill="#60a5fa"/><circle cx="9" cy="22" r="4" fill="#fbbf24"/>\
        <path d="M12 11 L20 15 M12 21 L20 17" stroke="#e2e8f0" stroke-width="2"/></svg>
        """

    static let source = """
        :root {
          --bg: #f6f7fb; --card: #ffffff; --ink: #0f172a; --muted: #64748b; --line: #e2e8f0; --accent: #4f46e5;
          --succeeded: #15803d; --succeeded-bg: #dcfce7; --failed: #b91c1c; --failed-bg: #fee2e2;
          --cancelled: #4b5563; --cancelled-bg: #e5e7eb; --skipped: #6b7280; --skipped-bg: #f3f4f6;
          --running: #1d4ed8; --running-bg: #dbeafe; --queued: #b45309; --queued-bg: #fef3c7;
          --pending: #475569; --pending-bg: #f1f5f9;
          font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", Helvetica, Arial, sans-serif;
          font-size: 14px; color: var(--ink); background: var(--bg);
        }
        * { box-sizing: border-box; }
        body { margin: 0; }
        a { color: var(--accent); text-decoration: none; }
        a:hover { text-decoration: underline; }
        [hidden] { display: none !important; }
        .mono, code, pre { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
        .muted { color: var(--muted); }
        .topbar { display: flex; align-items: center; gap: 28px; padding: 0 28px; height: 56px; background: #0f172a; color: #e2e8f0; }
        .brand { display: flex; align-items: center; gap: 10px; color: #fff; font-weight: 700; font-size: 17px; letter-spacing: .2px; }
        .brand:hover { text-decoration: none; }
        .logo { width: 22px; height: 22px; border-radius: 6px; background: url(/assets/favicon.svg) center / cover; }
        .topbar nav { display: flex; gap: 4px; }
        .topbar nav a { color: #cbd5e1; padding: 8px 12px; border-radius: 8px; }
        .topbar nav a:hover { background: #1e293b; text-decoration: none; color: #fff; }
        .topbar nav a.active { background: #1e293b; color: #fff; }
        .account { margin-left: auto; display: flex; align-items: center; gap: 8px; font-size: 13px; color: #bbf7d0; }
        .account .dot { background: #4ade80; }
        .account .scopes { color: #94a3b8; }
        .account.read-only { color: #94a3b8; border: 1px solid #334155; padding: 4px 10px; border-radius: 999px; }
        .account.read-only a { color: #c7d2fe; }
        .sign-out { margin: 0; }
        .sign-out button.link { color: #c7d2fe; }
        .login { max-width: 420px; margin: 64px auto; padding: 24px 28px; }
        .login h1 { font-size: 20px; margin: 0 0 6px; }
        .login form { display: flex; flex-direction: column; gap: 10px; margin-top: 16px; }
        .login input { border: 1px solid var(--line); border-radius: 8px; padding: 8px 10px; font-size: 14px; }
        .login .error-text { margin: 12px 0 0; }
        tr.audit-refused td:last-child { color: var(--failed); font-weight: 600; }
        main { max-width: 1480px; margin: 0 auto; padding: 24px 28px 48px; }
        h1 { font-size: 22px; margin: 0; font-weight: 650; }
        h2 { font-size: 16px; margin: 0; }
        h3 { font-size: 12px; text-transform: uppercase; letter-spacing: .6px; color: var(--muted); margin: 18px 0 6px; }
        .page-head { display: flex; align-items: center; gap: 20px; flex-wrap: wrap; margin-bottom: 16px; }
        .breadcrumbs { color: var(--muted); margin-bottom: 10px; }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; box-shadow: 0 1px 2px rgba(15, 23, 42, .04); }
        .card-title { padding: 14px 18px; border-bottom: 1px solid var(--line); font-weight: 600; display: flex; gap: 12px; align-items: baseline; }
        .card-title .muted { font-weight: 400; font-size: 13px; }
        section.card { margin-top: 18px; }
        table { width: 100%; border-collapse: collapse; }
        th { text-align: left; font-size: 12px; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .5px;
             padding: 10px 16px; border-bottom: 1px solid var(--line); background: #fafbfd; }
        td { padding: 11px 16px; border-bottom: 1px solid #f1f5f9; vertical-align: middle; }
        tbody tr:last-child td { border-bottom: none; }
        tbody tr:hover { background: #f8fafc; }
        tr.empty td { text-align: center; color: var(--muted); padding: 36px; }
        .run-name { font-weight: 600; }
        .row-error { color: var(--failed); font-size: 12.5px; margin-top: 3px; max-width: 560px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .time { color: #334155; white-space: nowrap; font-variant-numeric: tabular-nums; }
        .badge { display: inline-block; padding: 2px 10px; border-radius: 999px; font-size: 12px; font-weight: 600; border: 1px solid transparent; }
        .chips { display: flex; gap: 8px; flex-wrap: wrap; }
        .chip { display: inline-flex; align-items: center; gap: 6px; padding: 5px 12px; border-radius: 999px; background: var(--card);
                border: 1px solid var(--line); color: var(--ink); font-size: 13px; }
        a.chip:hover { text-decoration: none; border-color: #94a3b8; }
        .chip.selected { border-color: var(--accent); box-shadow: 0 0 0 2px rgba(79, 70, 229, .15); }
        .chip b { font-variant-numeric: tabular-nums; }
        .dot { width: 8px; height: 8px; border-radius: 50%; background: var(--muted); display: inline-block; }
        .status-succeeded { --c: var(--succeeded); --cb: var(--succeeded-bg); }
        .status-failed { --c: var(--failed); --cb: var(--failed-bg); }
        .status-cancelled { --c: var(--cancelled); --cb: var(--cancelled-bg); }
        .status-skipped { --c: var(--skipped); --cb: var(--skipped-bg); }
        .status-running { --c: var(--running); --cb: var(--running-bg); }
        .status-queued, .status-waiting { --c: var(--queued); --cb: var(--queued-bg); }
        .status-pending, .status-ready { --c: var(--pending); --cb: var(--pending-bg); }
        .badge[class*="status-"] { color: var(--c); background: var(--cb); border-color: color-mix(in srgb, var(--c) 25%, transparent); }
        .chip[class*="status-"] .dot { background: var(--c); }
        progress { appearance: none; -webkit-appearance: none; width: 120px; height: 8px; border: none; border-radius: 999px;
                   background: #e2e8f0; overflow: hidden; vertical-align: middle; }
        progress::-webkit-progress-bar { background: #e2e8f0; border-radius: 999px; }
        progress::-webkit-progress-value { background: var(--c, var(--accent)); border-radius: 999px; }
        progress::-moz-progress-bar { background: var(--c, var(--accent)); }
        .progress-cell { white-space: nowrap; }
        .progress-cell span { margin-left: 10px; font-size: 12.5px; font-variant-numeric: tabular-nums; }
        .filter { display: flex; gap: 8px; align-items: center; margin-bottom: 14px; }
        input, select, button, .button { font: inherit; border-radius: 8px; border: 1px solid #cbd5e1; padding: 7px 12px; background: #fff; color: var(--ink); }
        .filter input[type=search] { width: 280px; }
        button, .button { cursor: pointer; font-weight: 600; background: var(--accent); color: #fff; border-color: var(--accent); }
        button:hover:not(:disabled), .button:hover { filter: brightness(1.08); text-decoration: none; }
        button:disabled { opacity: .45; cursor: not-allowed; }
        button.danger { background: #fff; color: var(--failed); border-color: #fca5a5; }
        button.link { background: none; border: none; color: #93c5fd; padding: 0; font-weight: 400; text-decoration: underline; }
        .pager { display: flex; justify-content: space-between; align-items: center; margin-top: 14px; color: var(--muted); }
        .pager-links { display: flex; gap: 8px; }
        .run-head h1 { font-size: 24px; }
        .run-id { margin-top: 4px; }
        .actions { margin-left: auto; display: flex; gap: 8px; align-items: center; }
        .action-message { color: var(--muted); font-size: 13px; max-width: 360px; }
        .action-message.error { color: var(--failed); }
        .signal-form { display: flex; flex-direction: column; gap: 8px; align-items: flex-start; }
        .signal-value { width: 100%; box-sizing: border-box; font: inherit; }
        .facts { display: flex; gap: 36px; margin: 0 0 14px; padding: 14px 18px; background: var(--card); border: 1px solid var(--line); border-radius: 12px; flex-wrap: wrap; }
        .facts dt { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .5px; }
        .facts dd { margin: 4px 0 0; font-weight: 600; font-variant-numeric: tabular-nums; }
        .run-error { background: var(--failed-bg); color: var(--failed); border: 1px solid #fecaca; border-radius: 10px; padding: 10px 14px; margin-bottom: 14px; white-space: pre-wrap; }
        #node-counts { margin-bottom: 14px; }
        .run-layout { display: grid; grid-template-columns: minmax(0, 1fr) 420px; gap: 18px; align-items: start; }
        @media (max-width: 1100px) { .run-layout { grid-template-columns: 1fr; } }
        .graph-card { margin-top: 0 !important; }
        .graph { overflow: auto; padding: 12px; max-height: 78vh; }
        .graph svg { display: block; margin: 0 auto; max-width: 100%; height: auto; }
        .graph .baton-node, .graph .baton-cluster { cursor: pointer; }
        .graph .baton-node:hover rect { stroke-width: 2.5; }
        .graph .selected > rect { stroke: var(--accent); stroke-width: 3; }
        .node-panel { padding: 16px 18px; position: sticky; top: 16px; max-height: calc(100vh - 32px); overflow: auto; }
        .panel-empty { color: var(--muted); line-height: 1.5; }
        .panel-head { display: flex; align-items: center; gap: 10px; justify-content: space-between; }
        .panel-head h2 { word-break: break-all; }
        .kv { display: grid; grid-template-columns: 90px 1fr; gap: 6px 12px; margin: 14px 0 0; }
        .kv dt { color: var(--muted); }
        .kv dd { margin: 0; word-break: break-all; }
        pre.code { background: #0f172a; color: #e2e8f0; padding: 10px 12px; border-radius: 8px; margin: 0; max-height: 260px; overflow: auto; white-space: pre-wrap; word-break: break-word; }
        pre.error-text, p.error-text { background: var(--failed-bg); color: var(--failed); }
        .logs { margin: 0; padding: 0; list-style: none; font-family: "DejaVu Sans Mono", Menlo, monospace; font-size: 12px; max-height: 200px; overflow: auto; }
        .logs li { display: flex; gap: 10px; padding: 2px 0; }
        .events td { padding: 4px 6px; font-size: 12px; border-bottom: 1px solid #f1f5f9; }
        .events .kind { font-weight: 600; }
        .events .detail { color: var(--muted); word-break: break-all; }
        .node-progress { display: flex; align-items: center; gap: 10px; }
        .node-progress progress { width: 180px; }
        tr.node-row { cursor: pointer; }
        tr.node-row.selected { background: #eef2ff; }
        .tag { display: inline-block; background: #f1f5f9; border: 1px solid var(--line); border-radius: 6px; padding: 1px 6px; margin: 2px 0; }
        .procedures { max-width: 520px; }
        .error-card { padding: 28px; max-width: 720px; }
        .error-card p { margin: 12px 0 0; }
        .error-text { white-space: pre-wrap; }
        .offline { position: fixed; bottom: 16px; right: 16px; background: #fff7ed; color: #9a3412; border: 1px solid #fed7aa; padding: 8px 14px; border-radius: 10px; }
        """
}
