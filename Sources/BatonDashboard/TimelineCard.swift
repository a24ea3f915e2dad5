/// The run page's timeline card: the canvas the script draws the run's timeline on (from
/// `/api/runs/ID/timeline.json`), its zoom buttons and its legend. Static markup: every value the
/// timeline shows comes from the API and is drawn on the canvas or set as text by the script.
struct TimelineCard: Sendable {
    /// A legend entry: its CSS class (`tl-…`, the same color the script draws) and its label.
    static let legend: [(String, String)] = [
        ("tl-queued", "queued"), ("tl-running", "running"), ("tl-succeeded", "succeeded"), ("tl-failed", "failed"),
        ("tl-timed_out", "timed out"), ("tl-cancelled", "cancelled"), ("tl-skipped", "skipped"), ("tl-dead_lettered", "dead-lettered"),
        ("tl-lost", "worker lost"), ("tl-condition", "condition"), ("tl-wait-retry", "waiting: retry"),
        ("tl-wait-delay", "waiting: delay"), ("tl-wait-admission", "waiting: mutex, concurrency, cache"), ("tl-wait-rate", "waiting: rate"),
        ("tl-wait-signal", "waiting: signal"), ("tl-wait-other", "waiting: other"),
    ]

    func render() -> String {
        let legend = Self.legend.map { "<span class=\"tl-key\"><span class=\"tl-swatch \($0.0)\"></span>\($0.1)</span>" }.joined()
        return """
            <section class="card timeline-card" id="timeline-card"><div class="card-title">Timeline \
            <span class="muted" id="timeline-summary">loading…</span><span class="timeline-tools">\
            <button type="button" class="timeline-button" data-zoom="in" title="Zoom in (+)">+</button>\
            <button type="button" class="timeline-button" data-zoom="out" title="Zoom out (-)">−</button>\
            <button type="button" class="timeline-button" data-zoom="fit" title="Show the whole run (0)">Fit</button></span></div>
            <div class="timeline-legend">\(legend)</div>
            <div class="timeline-view" id="timeline-view" tabindex="0" aria-label="Timeline: wheel scrolls, Ctrl+wheel or +/- zooms, drag pans">\
            <canvas id="timeline-canvas"></canvas><div class="timeline-tip" id="timeline-tip" role="tooltip" hidden></div></div>
            <div class="timeline-hint muted">Wheel scrolls the nodes, Ctrl+wheel (or Shift+wheel to pan) zooms around the pointer, drag pans; \
            hover a bar for its times.</div>
            </section>
            """
    }
}
