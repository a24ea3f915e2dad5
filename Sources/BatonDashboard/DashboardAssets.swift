/// The files the pages load, served under /assets/: the script, the stylesheet and the icon. Their
/// sources are `Sources/BatonDashboard/Assets/` (checked by deploy/local/check-assets.sh), compiled into
/// the binary by SwiftPM (`embedInCode`), so an installed `baton` needs no resource bundle beside it.
enum DashboardAssets {
    /// /assets/dashboard.js: the pages' script, then the run page's timeline.
    static let script = text(PackageResources.dashboard_js, PackageResources.timeline_js)
    /// /assets/dashboard.css: the pages' rules, then the timeline card's.
    static let style = text(PackageResources.dashboard_css, PackageResources.timeline_css)
    /// /assets/favicon.svg.
    static let favicon = text(PackageResources.favicon_svg)

    private static func text(_ parts: [UInt8]...) -> String {
        String(decoding: parts.joined(), as: UTF8.self)
    }
}
