import Baton
import BatonCommandLine
import BatonStore
import Foundation

/// Follows a run until it ends, drawing a progress line on stderr.
struct RunWaiter {
    let runs: any RunAccess
    let runID: String
    let showProgress: Bool
    let timeout: Double?

    func wait() async throws -> (status: RunStatus, error: String?) {
        let started = Date()
        let tty = isatty(STDERR_FILENO) == 1
        var lastLine = ""
        var lastEvent = 0
        while true {
            let snapshot = try await runs.snapshot(ofRun: runID)
            let progress = snapshot.progress
            if showProgress {
                let running = progress.counts[.running] ?? 0
                var line = progress.line()
                // Queued nodes no live worker can take are shown, so a missing worker is not a silent hang.
                if !snapshot.unserved.isEmpty { line += ", waiting for a worker: " + snapshot.unserved }
                if running > 0, !snapshot.running.isEmpty {
                    let names = snapshot.running
                    line += ", running: " + names.joined(separator: ", ") + (running > names.count ? " (+\(running - names.count))" : "")
                }
                if tty {
                    if line != lastLine { FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8)) }  // clear what a longer line left
                } else if line != lastLine {
                    Output.error(line)
                }
                lastLine = line
            }
            if progress.status.isTerminal {
                if showProgress && tty { FileHandle.standardError.write(Data("\n".utf8)) }
                return (progress.status, progress.error)
            }
            if let timeout, Date().timeIntervalSince(started) > timeout {
                if showProgress && tty { FileHandle.standardError.write(Data("\n".utf8)) }
                throw CLIFailure(
                    "run \(runID) still \(progress.status.rawValue) after \(timeout) s (it goes on; see `baton show \(runID)`)", exitCode: 3)
            }
            // Counting a big run's nodes costs the database, so big runs refresh less often.
            let refresh: Duration = progress.counts.values.reduce(0, +) > 2_000 ? .milliseconds(500) : .milliseconds(100)
            lastEvent = try await runs.awaitChange(ofRun: runID, after: lastEvent, refresh: refresh)
        }
    }
}
