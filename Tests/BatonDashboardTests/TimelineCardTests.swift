import Baton
import BatonDashboard
import Testing

/// The run page's timeline card: static markup for the script's canvas, within the CSP (no inline
/// script or style), with its zoom buttons and legend.
@Suite("dashboard timeline card")
struct TimelineCardTests {
    @Test func theRunPageHasTheTimelineCanvasButtonsAndLegendAndNothingInline() throws {
        let page = RunPage(run: try PageTests.run(), counts: [.succeeded: 1], svg: "<svg></svg>", nodes: [], now: 0)
        let html = page.render(layout: PageLayout(viewer: .anonymous))
        #expect(html.contains("<section class=\"card timeline-card\" id=\"timeline-card\">"))
        #expect(html.contains("<canvas id=\"timeline-canvas\"></canvas>"))
        for zoom in ["in", "out", "fit"] { #expect(html.contains("data-zoom=\"\(zoom)\"")) }
        for swatch in [
            "tl-succeeded", "tl-failed", "tl-timed_out", "tl-wait-retry", "tl-wait-delay", "tl-wait-admission", "tl-wait-rate", "tl-wait-signal",
        ] {
            #expect(html.contains("tl-swatch \(swatch)"), "\(swatch)")
        }
        #expect(!html.contains(" style="), "the CSP allows no inline style")
        #expect(html.components(separatedBy: "<script").count == 2, "only the dashboard's own script element")
        let timeline = try #require(html.range(of: "id=\"timeline-card\""))
        let nodes = try #require(html.range(of: "<div class=\"card-title\">Nodes</div>"))
        #expect(timeline.lowerBound < nodes.lowerBound, "between the graph and the node table")
    }
}
