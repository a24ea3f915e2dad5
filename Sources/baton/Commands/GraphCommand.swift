import ArgumentParser
import Baton
import BatonCommandLine
import BatonDemo
import BatonDrawing
import BatonStore
import Foundation

struct GraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Draw a graph file, or a run with its nodes' states, as DOT, Mermaid or SVG.")
    @Argument(help: "A run id (or a unique prefix of it), or a graph file (JSON, or YAML for .yaml/.yml).") var target: String
    @Option(help: "dot, mermaid or svg (drawn by Baton, no Graphviz needed).") var format = "svg"
    @Option(name: .customLong("output"), help: "Write the drawing to this file instead of stdout.") var outputFile: String?
    @Flag(help: "For a graph file: accept procedures that Baton's own worker does not serve.") var allowUnknownProcedures = false
    @Flag(help: "For a graph file: do not check inputs against the procedures' schemas.") var noTypeCheck = false
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        guard let format = DrawingFormat(rawValue: format) else {
            throw CLIFailure(
                "--format: unknown format '\(format)' (use \(DrawingFormat.allCases.map(\.rawValue).joined(separator: ", ")))", exitCode: 2)
        }
        let drawing = try Self.isFile(target) ? fileDrawing() : runDrawing()
        let text = format.render(drawing)
        var printed = text
        if output.json {
            var nodes: [JSON] = []
            for node in drawing.nodes { nodes.append(try Output.encode(node)) }
            let base: JSON = [
                "title": .string(drawing.title), "run": .bool(drawing.isRun), "format": .string(format.rawValue),
                "nodes": .array(nodes), "edges": try Output.encode(drawing.edges),
            ]
            var json = base.objectValue!
            if outputFile == nil { json["drawing"] = .string(text) }
            printed = JSON.object(json).prettyPrinted() + "\n"
        }
        if let outputFile {
            guard FileManager.default.createFile(atPath: outputFile, contents: Data(text.utf8)) else {
                throw CLIFailure("--output: cannot write \(outputFile)")
            }
            if output.json { print(printed, terminator: "") }
        } else {
            print(printed, terminator: "")
        }
    }

    /// A path to a file (it exists, or it is named like one): drawn from the file; anything else is a run id.
    static func isFile(_ target: String) -> Bool {
        FileManager.default.fileExists(atPath: target) || target.contains("/")
            || [".json", ".yaml", ".yml"].contains { target.lowercased().hasSuffix($0) }
    }

    private func fileDrawing() throws -> GraphDrawing {
        let registry = ProcedureRegistry.demo
        let graph = try GraphFile.load(
            target, knownProcedures: allowUnknownProcedures ? nil : Set(registry.names), schemas: noTypeCheck ? nil : registry.checkedSchemas,
            unknownProcedureHint: ValidateCommand.local.unknownProcedureHint)
        return GraphDrawing(graph: graph)
    }

    private func runDrawing() throws -> GraphDrawing {
        let (store, id) = try connection.openRun(target)
        defer { store.close() }
        guard let summary = try store.run(id), let graph = try store.runGraph(id) else { throw CLIFailure("no run with id \(id)") }
        let states = try store.nodes(ofRun: id).map {
            NodeRunState(key: $0.key, procedure: $0.procedure, status: NodeStatus(rawValue: $0.status) ?? .pending, attempts: $0.attempts)
        }
        return GraphDrawing(run: graph, states: states, title: "\(summary.name) · run \(id.prefix(8)) · \(summary.status.rawValue)")
    }
}
