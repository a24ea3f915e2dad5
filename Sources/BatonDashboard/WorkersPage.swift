import Baton
import BatonStore

/// Live workers: each with its host, pools, slots, the procedures it serves and its last heartbeat,
/// and totals by pool; below them the live coordinators, with the partitions each owns. The script
/// refreshes it.
public struct WorkersPage: Sendable {
    public var workers: [WorkerRow]
    public var coordinators: [CoordinatorRow]

    public init(workers: [WorkerRow], coordinators: [CoordinatorRow] = []) {
        self.workers = workers
        self.coordinators = coordinators
    }

    public func render(layout: PageLayout) -> String {
        var slotsByPool: [String: (workers: Int, slots: Int)] = [:]
        for worker in workers {
            for pool in worker.pools {
                let known = slotsByPool[pool] ?? (0, 0)
                slotsByPool[pool] = (known.workers + 1, known.slots + worker.slots)
            }
        }
        let pools = slotsByPool.keys.sorted().map { pool in
            let entry = slotsByPool[pool]!
            return
                "<span class=\"chip\"><b>\(HTML.escape(pool))</b> \(entry.workers) worker\(entry.workers == 1 ? "" : "s") · \(entry.slots) slots</span>"
        }.joined()
        let rows = workers.map(row).joined(separator: "\n")
        let empty = "<tr class=\"empty\"><td colspan=\"7\">No live workers: start one with <code>baton worker</code></td></tr>"
        let total = workers.reduce(0) { $0 + $1.slots }
        let body = """
            <div class="page-head"><h1>Workers</h1><div class="chips" id="pools">\(pools)</div></div>
            <p class="muted" id="workers-summary">\(workers.count) live worker\(workers.count == 1 ? "" : "s") · \(total) slots</p>
            <div class="card">
            <table class="workers"><thead><tr><th>Worker</th><th>Host</th><th>Pools</th><th>Slots</th><th>Procedures</th><th>Started</th>\
            <th>Last heartbeat</th></tr></thead>
            <tbody id="workers-body">
            \(workers.isEmpty ? empty : rows)
            </tbody></table></div>
            <h2>Coordinators</h2>
            <p class="muted" id="coordinators-summary">\(Self.coordinatorSummary(coordinators))</p>
            <div class="card">
            <table class="coordinators"><thead><tr><th>Coordinator</th><th>Host</th><th>Partitions</th><th>Epochs</th><th>Runs</th>\
            <th>Nodes/s</th><th>Last seen</th></tr></thead>
            <tbody id="coordinators-body">
            \(coordinators.isEmpty ? Self.noCoordinator : coordinators.map(coordinatorRow).joined(separator: "\n"))
            </tbody></table></div>
            """
        return layout.page(title: "Workers", section: .workers, body: body)
    }

    static let noCoordinator =
        "<tr class=\"empty\"><td colspan=\"7\">No coordinator is running: start one with <code>baton coordinator</code></td></tr>"

    static func coordinatorSummary(_ coordinators: [CoordinatorRow]) -> String {
        let held = coordinators.reduce(0) { $0 + $1.partitions.count }
        return "\(coordinators.count) live coordinator\(coordinators.count == 1 ? "" : "s") · \(held) partitions held"
    }

    private func coordinatorRow(_ c: CoordinatorRow) -> String {
        """
        <tr data-coordinator="\(HTML.escape(c.id))"><td class="mono">\(HTML.escape(c.id))</td>\
        <td>\(HTML.escape(c.host)) <span class="muted">pid \(c.pid)</span></td>\
        <td class="mono">\(c.partitions.count): \(PartitionRanges.text(c.partitions.map(\.partition)))</td><td>\(c.epochRange)</td>\
        <td>\(c.runs)</td><td>\(Int(c.nodesPerSecond.rounded()))</td>\
        <td class="time">\(HTML.escape(DisplayTime.duration(c.secondsSinceSeen))) ago</td></tr>
        """
    }

    private func row(_ worker: WorkerRow) -> String {
        let procedures = worker.procedures.map { "<span class=\"tag mono\">\(HTML.escape($0))</span>" }.joined(separator: " ")
        return """
            <tr data-worker="\(HTML.escape(worker.id))"><td class="mono">\(HTML.escape(worker.id))</td>\
            <td>\(HTML.escape(worker.host)) <span class="muted">pid \(worker.pid)</span></td>\
            <td>\(worker.pools.map(HTML.escape).joined(separator: ", "))</td><td>\(worker.slots)</td>\
            <td class="procedures">\(procedures)</td><td class="time">\(HTML.escape(DisplayTime.short(worker.startedAt)))</td>\
            <td class="time">\(HTML.escape(DisplayTime.duration(worker.secondsSinceSeen))) ago</td></tr>
            """
    }
}
