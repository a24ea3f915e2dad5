import Testing

@testable import BatonDashboard

/// The assets are compiled into the module (no resource bundle to lose) and served in their order: the
/// pages' script then the timeline's, the pages' rules then the timeline card's.
@Suite("dashboard assets")
struct DashboardAssetsTests {
    @Test func scriptIsBothFilesInOrder() throws {
        let script = DashboardAssets.script
        #expect(script.hasPrefix("'use strict';\n"))
        let pages = try #require(script.range(of: "const page = body.dataset.page;"))
        let timeline = try #require(script.range(of: "document.getElementById('timeline-view')"))
        #expect(pages.lowerBound < timeline.lowerBound)
    }

    @Test func styleIsBothFilesInOrder() throws {
        let style = DashboardAssets.style
        let root = try #require(style.range(of: ":root {"))
        let timeline = try #require(style.range(of: ".timeline-card .card-title"))
        #expect(root.lowerBound < timeline.lowerBound)
    }

    @Test func favicon() {
        #expect(DashboardAssets.favicon.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(DashboardAssets.favicon.hasSuffix("</svg>\n"))
    }
}
