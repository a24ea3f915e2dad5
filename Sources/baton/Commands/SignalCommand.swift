import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore
import BatonYAML
import Foundation

struct SignalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signal",
        abstract: "Send a value to a signal node of a run: it succeeds with it (or keeps it until it waits).",
        discussion: """
            The value is stored durably and applied by the coordinator that owns the run. Refused, with \
            nothing stored: a run that ended, an unknown run or node, a node that is not a signal, a node \
            that already has a signal, a value over BATON_MAX_OUTPUT_BYTES.
            """)
    @Argument(help: "Run id (or a unique prefix of it).") var runID: String
    @Argument(help: "The signal node's key (a child of a group as group/child).") var node: String
    @Option(
        help: ArgumentHelp(
            "The value: any JSON, or @FILE (JSON, or YAML for .yaml/.yml). Default: null.", valueName: "json|@file"))
    var data: String?
    @Option(parsing: .unconditional, help: "Seconds to wait for the coordinator to apply the signal (0: do not wait).")
    var timeout: Double = 30
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        guard timeout >= 0 else { throw CLIFailure("--timeout must not be negative", exitCode: 2) }
        let limits = try Limits.fromEnvironment()
        let value = try Self.value(data, limits: limits)
        let access = try connection.openRuns()
        defer { access.close() }
        let id: String
        do { id = try await access.resolveRunID(runID) } catch let failure as CLIFailure { throw CLIFailure(failure.message, exitCode: 2) }
        let (applied, status) = try await access.signal(id, node: node, value: value, maxBytes: limits.maxOutputBytes, timeout: timeout)
        if output.json {
            var o: [(key: String, value: JSON)] = [("run_id", .string(id)), ("node", .string(node)), ("applied", .bool(applied))]
            if let status { o.append(("status", .string(status.rawValue))) }
            Output.json(.object(JSONObject(o)))
        } else if !applied {
            print("run \(id) node \(node): signal stored; no coordinator has applied it yet (it will when one runs)")
        } else if status == .succeeded {
            print("run \(id) node \(node): signal delivered; the node succeeded")
        } else {
            print("run \(id) node \(node): signal kept; the node (\(status?.rawValue ?? "gone")) takes it when it waits")
        }
    }

    /// `--data` parsed: JSON text, or @FILE (JSON, or YAML for .yaml/.yml); `null` when not given.
    static func value(_ data: String?, limits: GraphLimits) throws -> JSON {
        guard let data else { return .null }
        guard data.hasPrefix("@") else {
            do { return try JSONParser.parse(data, maxDepth: limits.maxDepth) } catch {
                throw CLIFailure("--data: \(error.description) (give JSON, or @FILE)", exitCode: 2)
            }
        }
        let path = String(data.dropFirst())
        if path.isEmpty { throw CLIFailure("--data @ needs a file name after the @", exitCode: 2) }
        let bytes: [UInt8]
        do { bytes = try GraphFile.read(path) } catch let failure as CLIFailure { throw CLIFailure("--data @" + failure.message, exitCode: 2) }
        if GraphFileDecoding.isYAML(path) {
            do { return try YAMLDocument.parse(bytes, maxDepth: limits.maxDepth, maxBytes: limits.maxGraphBytes).json } catch {
                throw CLIFailure("--data @" + (error.mark.map { "\(path):\($0): " } ?? "\(path): ") + error.message, exitCode: 2)
            }
        }
        do { return try JSONParser.parse(bytes, maxDepth: limits.maxDepth) } catch {
            throw CLIFailure("--data @\(path): \(error.description)", exitCode: 2)
        }
    }
}
