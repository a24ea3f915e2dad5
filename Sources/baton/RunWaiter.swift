import Baton
import BatonCommandLine
import BatonStore
import Foundation

/// Follows a run until it ends, drawing a progress line on stderr.
struct RunWaiter {
    let store: Store
    let runID: String
    let showProgress: Bool
    let timeout: Double?

    func wait() throws -> (status: RunStatus, error: String?) {
        let started = Date()
        let tty = isatty(STDERR_FILENO) == 1
        var lastLine = ""
        var unserved = ""
        var lastUnservedCheck = Date.distantPast
        while true {
            let progress: RunProgress
            do { progress = try store.progress(ofRun: runID) } catch { throw CLIFailure("lost track of run \(runID): \(error)") }
            if showProgress {
                let counts = progress.counts
                let running = counts[.running] ?? 0
                var line = progress.line()
                // Queued nodes no live worker can take are shown, so a missing worker is not a silent hang.
                if (counts[.queued] ?? 0) > 0 {
                    if Date().timeIntervalSince(lastUnservedCheck) >= 1 {
                        lastUnservedCheck = Date()
                        unserved =
                            (try? store.unservedNodes(ofRun: runID, limit: 3))
                            .map { $0.map(\.description).joined(separator: ", ") } ?? ""
                    }
                } else {
                    unserved = ""
                }
                if !unserved.isEmpty { line += ", waiting for a worker: " + unserved }
                if running > 0 {
                    let names = try store.runningNodes(ofRun: runID, limit: 3)
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
            // The refresh interval of a display for people, not synchronisation; counting
            // a big run's nodes costs the database, so big runs refresh less often.
            Thread.sleep(forTimeInterval: progress.counts.values.reduce(0, +) > 2_000 ? 0.5 : 0.1)
        }
    }
}
