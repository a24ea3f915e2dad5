import Baton

/// What one committed batch adds to the coordinator's metrics: runs and nodes that ended, by
/// state, and the runs that began running or ended (for their durations). A value, computed from
/// the commands after they were committed, never before: a batch that fails to commit counts nothing.
struct BatchTally: Equatable, Sendable {
    var runsEnded: [RunStatus: Int] = [:]
    var nodesEnded: [NodeStatus: Int] = [:]
    /// Runs that became `running` (started, or retried), in order.
    var runsStarted: [String] = []
    /// Runs that ended, with their final status, in order.
    var runsFinished: [String] = []
    var commands = 0

    init(_ runs: [(runID: String, commands: [SchedulerCommand])]) {
        for (runID, commands) in runs {
            self.commands += commands.count
            for command in commands {
                switch command {
                case let .runStatus(status, _):
                    if status.isTerminal {
                        runsEnded[status, default: 0] += 1
                        runsFinished.append(runID)
                    } else if status == .running {
                        runsStarted.append(runID)
                    }
                case let .node(change) where change.status.isTerminal:
                    nodesEnded[change.status, default: 0] += 1
                default:
                    break
                }
            }
        }
    }
}
