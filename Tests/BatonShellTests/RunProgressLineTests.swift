import Baton
import BatonStore
import Testing

/// The line `baton submit --wait` draws: its total never moves as a map's children become known.
@Suite("RunProgress: the submit --wait line")
struct RunProgressLineTests {
    @Test func theTotalIsTheGraphsOwnNodesAndChildrenAreCountedApart() {
        // A list, a map over it and a report: the map starts, then its 40 children are added and run.
        let before = RunProgress(status: .running, top: [.succeeded: 1, .running: 1, .pending: 1])
        let expanded = RunProgress(status: .running, top: [.succeeded: 1, .running: 1, .pending: 1], children: [.queued: 40])
        let halfway = RunProgress(
            status: .running, top: [.succeeded: 1, .running: 1, .pending: 1], children: [.succeeded: 19, .failed: 1, .running: 20])
        let ended = RunProgress(status: .failed, top: [.succeeded: 1, .failed: 1, .cancelled: 1], children: [.succeeded: 39, .failed: 1])
        #expect(before.line() == "[==========                    ] 1/3 nodes done")
        #expect(expanded.line() == "[==========                    ] 1/3 nodes done (+40 children, 0 done)")
        #expect(halfway.line() == "[==========                    ] 1/3 nodes done (+40 children, 20 done), 1 failed")
        #expect(ended.line() == "[==============================] 3/3 nodes done (+40 children, 40 done), 2 failed")
    }

    @Test func waitingNodesAndAnEmptyRun() {
        #expect(RunProgress(status: .pending, top: [:]).line(width: 4) == "[    ] 0/0 nodes done")
        #expect(RunProgress(status: .running, top: [.waiting: 1, .succeeded: 1]).line(width: 4) == "[==  ] 1/2 nodes done, 1 waiting")
        #expect(RunProgress(status: .running, top: [.pending: 1], children: [.waiting: 2]).counts == [.pending: 1, .waiting: 2])
    }
}
