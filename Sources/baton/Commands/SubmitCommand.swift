import ArgumentParser
import Baton
import BatonDemo
import BatonStore
import Foundation

struct SubmitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "submit",
        abstract: "Validate a graph file, store it as a new run and print the run id.")
    @Argument(help: "Graph file (JSON).") var file: String
    @Flag(help: "Show live progress and exit non-zero unless the run succeeded.") var wait = false
    @Option(help: "Reuse the run submitted earlier with this key instead of creating another.") var idempotencyKey: String?
    @Flag(help: "Accept procedures that no live worker serves yet.") var allowUnknownProcedures = false
    @Option(help: "With --wait: give up after this many seconds (exit 3).") var timeout: Double?
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        if timeout != nil && !wait { throw CLIFailure("--timeout only makes sense with --wait", exitCode: 2) }
        if let t = timeout, !(t > 0) { throw CLIFailure("--timeout must be a positive number of seconds", exitCode: 2) }
        if let key = idempotencyKey, key.isEmpty || key.count > 200 {
            throw CLIFailure("--idempotency-key must be 1 to 200 characters", exitCode: 2)
        }
        _ = try GraphFile.read(file)  // a missing file is the user's first problem, before any connection
        let store = try connection.openStore()
        defer { store.close() }
        var known: Set<String>? = nil
        if !allowUnknownProcedures {
            known = Set(ProcedureRegistry.demo.names).union((try? store.servedProcedures()) ?? [])
        }
        let graph = try GraphFile.load(file, knownProcedures: known)
        let run: SubmittedRun
        do { run = try store.submit(graph, idempotencyKey: idempotencyKey) } catch { throw CLIFailure("cannot store the run: \(error)") }
        if !wait {
            if output.json { Output.json(["run_id": .string(run.id), "status": .string(run.status.rawValue)]) } else { print(run.id) }
            return
        }
        if !output.json { Output.error("run \(run.id) submitted (\(graph.order.count) nodes)") }
        let final = try RunWaiter(store: store, runID: run.id, showProgress: !output.json, timeout: timeout).wait()
        if output.json {
            var result: [(key: String, value: JSON)] = [("run_id", .string(run.id)), ("status", .string(final.status))]
            if let error = final.error { result.append(("error", .string(error))) }
            Output.json(.object(JSONObject(result)))
        } else if final.status == "succeeded" {
            print("run \(run.id) succeeded")
        }
        if final.status != "succeeded" {
            throw CLIFailure("run \(run.id) \(final.status)\(final.error.map { ": \($0)" } ?? "")")
        }
    }
}

/// Follows a run until it ends, drawing a progress line on stderr.
struct RunWaiter {
    let store: Store
    let runID: String
    let showProgress: Bool
    let timeout: Double?

    func wait() throws -> (status: String, error: String?) {
        let started = Date()
        let tty = isatty(STDERR_FILENO) == 1
        var lastLine = ""
        while true {
            let progress: (status: String, error: String?, counts: [String: Int])
            do { progress = try store.progress(ofRun: runID) } catch { throw CLIFailure("lost track of run \(runID): \(error)") }
            if showProgress {
                let total = progress.counts.values.reduce(0, +)
                let done = ["succeeded", "failed", "cancelled", "skipped"].reduce(0) { $0 + (progress.counts[$1] ?? 0) }
                let running = progress.counts["running"] ?? 0
                let failed = progress.counts["failed"] ?? 0
                let width = 30
                let filled = total == 0 ? 0 : done * width / total
                let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
                var line = "[\(bar)] \(done)/\(total) nodes done"
                if failed > 0 { line += ", \(failed) failed" }
                if let waiting = progress.counts["waiting"], waiting > 0 { line += ", \(waiting) waiting" }
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
            if let status = RunStatus(rawValue: progress.status), status.isTerminal {
                if showProgress && tty { FileHandle.standardError.write(Data("\n".utf8)) }
                return (progress.status, progress.error)
            }
            if let timeout, Date().timeIntervalSince(started) > timeout {
                if showProgress && tty { FileHandle.standardError.write(Data("\n".utf8)) }
                throw CLIFailure("run \(runID) still \(progress.status) after \(timeout) s (it goes on; see `baton show \(runID)`)", exitCode: 3)
            }
            // The refresh interval of a display for people, not synchronisation; counting
            // a big run's nodes costs the database, so big runs refresh less often.
            Thread.sleep(forTimeInterval: progress.counts.values.reduce(0, +) > 2_000 ? 0.5 : 0.1)
        }
    }
}
