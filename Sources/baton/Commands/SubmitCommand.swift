import ArgumentParser
import Baton
import BatonCommandLine
import BatonDemo
import BatonStore
import Foundation

struct SubmitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Validate a graph file, store it as a new run and print the run id.")
    @Argument(help: "Graph file (JSON, or YAML for .yaml/.yml).") var file: String
    @Flag(help: "Show live progress and exit non-zero unless the run succeeded.") var wait = false
    @Option(help: "Reuse the run submitted earlier with this key instead of creating another.") var idempotencyKey: String?
    @Flag(help: "Accept procedures that no live worker serves yet.") var allowUnknownProcedures = false
    @Flag(help: "Do not check inputs against the procedures' schemas.") var noTypeCheck = false
    @Option(parsing: .unconditional, help: "With --wait: give up after this many seconds (exit 3).") var timeout: Double?
    @OptionGroup var runInput: RunInputOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Traces (service name baton-cli)") var tracingOptions: TracingOptions

    func run() async throws {
        let tracing = try SubmitTracing(tracingOptions)
        do { try await submit(tracing: tracing) } catch {
            tracing?.finish(error: error)
            throw error
        }
        tracing?.finish(error: nil)
    }

    private func submit(tracing: SubmitTracing?) async throws {
        if timeout != nil && !wait { throw CLIFailure("--timeout only makes sense with --wait", exitCode: 2) }
        if let t = timeout, !(t > 0) { throw CLIFailure("--timeout must be a positive number of seconds", exitCode: 2) }
        if let key = idempotencyKey, key.isEmpty || key.count > 200 {
            throw CLIFailure("--idempotency-key must be 1 to 200 characters", exitCode: 2)
        }
        let bytes: [UInt8]
        let input: JSON?
        do {  // before any connection; the file is read this once (it may be a pipe)
            bytes = try GraphFile.read(file)
            input = try runInput.value()
        } catch let failure as CLIFailure { throw reportingInvalid(failure) }
        let access = try connection.openRuns()
        defer { access.close() }
        let submission = Submission(
            path: file, bytes: bytes, input: input, idempotencyKey: idempotencyKey, allowUnknownProcedures: allowUnknownProcedures,
            typeCheck: !noTypeCheck, traceparent: tracing?.traceparent)
        let run: SubmittedRunAnswer
        do { run = try await access.submit(submission) } catch let failure as CLIFailure
            where failure.exitCode == 2 && !failure.message.hasPrefix("--idempotency-key")
        {
            throw reportingInvalid(failure)
        }
        let unserved = run.unserved
        let existing = run.existing
        tracing?.stored(runID: run.id, nodes: run.nodeCount, existing: existing)
        for line in unserved.warnings { Output.error("baton: " + line) }
        if !wait {
            if output.json {
                Output.json(
                    .object(
                        JSONObject([
                            ("run_id", .string(run.id)), ("status", .string(run.status.rawValue)),
                            ("existing", .bool(existing)), ("unserved", unserved.json),
                        ])))
            } else {
                // stdout stays the id alone, for scripts; that it is an earlier run goes to stderr.
                if existing, let key = idempotencyKey { Output.error("\(run.id) (existing run for key \(key), status \(run.status.rawValue))") }
                print(run.id)
            }
            return
        }
        if !output.json {
            if existing, let key = idempotencyKey {
                Output.error("run \(run.id) already exists (key \(key)); waiting")
            } else {
                Output.error("run \(run.id) submitted (\(run.nodeCount) node\(run.nodeCount == 1 ? "" : "s"))")
            }
        }
        let final = try await RunWaiter(runs: access, runID: run.id, showProgress: !output.json, timeout: timeout).wait()
        if output.json {
            var result: [(key: String, value: JSON)] = [
                ("run_id", .string(run.id)), ("status", .string(final.status.rawValue)),
                ("existing", .bool(existing)), ("unserved", unserved.json),
            ]
            if let error = final.error { result.append(("error", .string(error))) }
            result.append(("outputs", try await access.outputs(ofRun: run.id)))
            Output.json(.object(JSONObject(result)))
        } else if final.status == .succeeded {
            print("run \(run.id) succeeded")
        }
        if final.status != .succeeded {
            throw CLIFailure("run \(run.id) \(final.status.rawValue)\(final.error.map { ": \($0)" } ?? "")")
        }
    }

    /// With `--json`, prints what `validate --json` prints for the file; the failure still goes to stderr.
    private func reportingInvalid(_ failure: CLIFailure) -> CLIFailure {
        if output.json { Output.json(GraphFile.invalidReport(failure)) }
        return failure
    }
}
