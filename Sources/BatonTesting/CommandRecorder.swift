import Baton
import Foundation

/// Collects what a run emits, stamped with the virtual time.
final class CommandRecorder: @unchecked Sendable {
    // Safe: `list` is only touched under `lock`.
    private let lock = NSLock()
    private var list: [TestEvent] = []
    private let clock: TestClock

    init(clock: TestClock) { self.clock = clock }

    func record(_ command: SchedulerCommand) {
        let at = clock.now
        let event: TestEvent?
        switch command {
        case let .node(change): event = TestEvent(at: at, node: change.key, kind: change.eventKind.rawValue, change: change)
        case let .event(key, kind, detail): event = TestEvent(at: at, node: key, kind: kind.rawValue, detail: detail)
        case let .runStatus(status, error):
            event = TestEvent(at: at, node: nil, kind: EventKind(run: status).rawValue, detail: error.map { .string($0) })
        case let .dispatch(task): event = TestEvent(at: at, node: task.key, kind: "dispatched", detail: task.input)
        case let .expand(parent, _, _): event = TestEvent(at: at, node: parent, kind: "expanded")
        case let .prune(parent): event = TestEvent(at: at, node: parent, kind: "pruned")
        case .cancelTasks, .acquire, .release, .cacheStore: event = nil  // admission shows as awaiting_admission, admitted, cached
        }
        if let event { lock.withLock { list.append(event) } }
    }

    var events: [TestEvent] { lock.withLock { list } }
}
