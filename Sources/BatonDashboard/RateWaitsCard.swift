import Baton
import BatonStore
import Foundation

/// The card of a run's nodes waiting for rate limits: per key, how many wait and which (links that
/// select the node), the limit, the tokens used and when the next is due. Nothing when none waits.
struct RateWaitsCard {
    let waits: [RateWait]

    /// Nodes named per key at most.
    static let maxNodes = 10

    func render() -> String {
        guard !waits.isEmpty else { return "" }
        let rows = waits.map { w -> String in
            let links = w.nodes.prefix(Self.maxNodes).map {
                "<a class=\"mono\" href=\"#node=\(HTML.escape($0))\" data-node=\"\(HTML.escape($0))\">\(HTML.escape($0))</a>"
            }
            let more = w.nodes.count > Self.maxNodes ? " <span class=\"muted\">and \(w.nodes.count - Self.maxNodes) more</span>" : ""
            let next = w.nextTokenAt.map { HTML.escape(Self.time($0)) } ?? "now (waiting for something else too)"
            return """
                <tr data-rate="\(HTML.escape(w.key))"><td class="mono">\(HTML.escape(w.key))</td>\
                <td>\(w.limit) per \(HTML.escape(DurationText.format(w.perSeconds)))</td><td>\(w.used) of \(w.limit)</td>\
                <td class="rate-next">\(next)</td><td>\(w.nodes.count): \(links.joined(separator: ", "))\(more)</td></tr>
                """
        }
        return """
            <section class="card rate-waits" id="rate-waits"><div class="card-title">Waiting for rate limits \
            <span class="muted">nodes waiting for a rate token (they hold no worker slot)</span></div>
            <table><thead><tr><th>Rate key</th><th>Limit</th><th>Used</th><th>Next token at</th><th>Waiting nodes</th></tr></thead>
            <tbody id="rate-waits-body">
            \(rows.joined(separator: "\n"))
            </tbody></table></section>
            """
    }

    /// A time of day, UTC, to the millisecond.
    static func time(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullTime, .withFractionalSeconds, .withTimeZone]
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
