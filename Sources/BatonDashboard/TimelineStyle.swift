/// The timeline card's rules, served after `DashboardStyle.source` in /assets/dashboard.css. The
/// swatch colors are the ones `TimelineScript` draws with.
enum TimelineStyle {
    static let source = #"""

        .timeline-card .card-title { align-items: center; }
        .timeline-tools { margin-left: auto; display: flex; gap: 6px; }
        .timeline-button { padding: 3px 10px; background: #fff; color: var(--ink); border-color: #cbd5e1; font-weight: 600; min-width: 34px; }
        .timeline-legend { display: flex; flex-wrap: wrap; gap: 6px 14px; padding: 10px 18px 0; font-size: 12px; color: var(--muted); }
        .tl-key { display: inline-flex; align-items: center; gap: 5px; }
        .tl-swatch { width: 14px; height: 10px; border-radius: 2px; display: inline-block; }
        .tl-queued { background: #fde68a; } .tl-running { background: #2563eb; } .tl-succeeded { background: #16a34a; }
        .tl-failed { background: #dc2626; } .tl-timed_out { background: #9333ea; } .tl-cancelled { background: #6b7280; }
        .tl-skipped { background: #d1d5db; } .tl-dead_lettered { background: #7f1d1d; } .tl-lost { background: #ea580c; }
        .tl-condition { background: #0ea5e9; }
        .tl-wait-retry, .tl-wait-delay, .tl-wait-admission, .tl-wait-rate, .tl-wait-signal, .tl-wait-other { height: 4px; }
        .tl-wait-retry { background: #f59e0b; } .tl-wait-delay { background: #64748b; } .tl-wait-admission { background: #8b5cf6; }
        .tl-wait-rate { background: #14b8a6; } .tl-wait-signal { background: #ec4899; } .tl-wait-other { background: #a8a29e; }
        .timeline-view { position: relative; margin: 10px 0 0; height: 120px; overflow: hidden; cursor: grab; border-top: 1px solid var(--line); outline: none; }
        .timeline-view:focus-visible { box-shadow: inset 0 0 0 2px var(--accent); }
        .timeline-view.dragging { cursor: grabbing; }
        .timeline-view canvas { display: block; width: 100%; height: 100%; }
        .timeline-tip { position: absolute; pointer-events: none; background: #0f172a; color: #e2e8f0; font-size: 12px; line-height: 1.45;
            padding: 6px 9px; border-radius: 6px; white-space: pre; max-width: 420px; overflow: hidden; box-shadow: 0 4px 14px rgba(15, 23, 42, .25); z-index: 2; }
        .timeline-hint { font-size: 12px; padding: 6px 18px 10px; }
        """#
}
