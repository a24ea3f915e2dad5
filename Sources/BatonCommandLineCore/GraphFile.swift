import Baton
import Foundation

/// Reads and validates a graph file (JSON, or YAML for `.yaml` and `.yml` where `GraphFileYAML` is
/// installed), with errors that name the file.
public enum GraphFile {
    /// `input` is the run's input (`--input`), merged over the graph's `input` defaults. With `schemas`,
    /// a graph whose inputs do not fit them (`TypeChecker`) is refused like an invalid one.
    public static func load(
        _ path: String, knownProcedures: Set<String>?, input: JSON? = nil, schemas: [String: ProcedureSchema]? = nil,
        unknownProcedureHint: String? = nil, servedVersions: ServedVersions? = nil
    )
        throws -> Graph
    {
        try decode(
            try read(path), path: path, knownProcedures: knownProcedures, input: input, schemas: schemas,
            unknownProcedureHint: unknownProcedureHint, servedVersions: servedVersions)
    }

    /// As `load`, for the bytes `read` took from `path` (which names the file in errors, and whose
    /// extension says JSON or YAML): a command that reads the file before connecting reads it once.
    /// `servedVersions` plans each node that names no version (`GraphDecoder.servedVersions`).
    public static func decode(
        _ bytes: [UInt8], path: String, knownProcedures: Set<String>?, input: JSON? = nil, schemas: [String: ProcedureSchema]? = nil,
        unknownProcedureHint: String? = nil, servedVersions: ServedVersions? = nil
    )
        throws -> Graph
    {
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        var decoder = GraphDecoder(knownProcedures: knownProcedures, limits: try Limits.fromEnvironment())
        if let unknownProcedureHint { decoder.unknownProcedureHint = unknownProcedureHint }
        decoder.servedVersions = servedVersions
        let graph: Graph
        var locate: (@Sendable (GraphProblem) -> String?)?
        if GraphFileYAML.isYAML(path) {
            let yaml = try GraphFileYAML.required(for: path)
            let limit = decoder.limits.maxGraphBytes
            if bytes.count > limit { throw CLIFailure("\(path): graph file is \(bytes.count) bytes, more than the limit of \(limit)", exitCode: 2) }
            let parsed = try yaml.parse(bytes, path, decoder.limits)
            locate = parsed.locate
            do { graph = try decoder.decode(parsed.json, input: input, defaultName: name, measuringInputs: true) } catch {
                throw invalid(path, error.problems, locate)
            }
        } else {
            do { graph = try decoder.decode(bytes, input: input, defaultName: name) } catch { throw invalid(path, error.problems, nil) }
        }
        if let schemas {
            let problems = TypeChecker(schemas: schemas).check(graph)
            if !problems.isEmpty { throw invalid(path, problems, locate) }
        }
        return graph
    }

    /// Every problem, one line each; in a YAML file, each with the line of the node or field it is
    /// about (`locate`), as editors and CI logs link them.
    public static func invalid(_ path: String, _ problems: [GraphProblem], _ locate: ((GraphProblem) -> String?)?) -> CLIFailure {
        let n = problems.count
        let lines = problems.map { problem in "  - " + (locate?(problem).map { "\(path):\($0): " } ?? "") + problem.description }
        return CLIFailure("\(path): invalid graph (\(n) problem\(n == 1 ? "" : "s")):\n" + lines.joined(separator: "\n"), exitCode: 2)
    }

    /// What `--json` prints for a graph file that `load` or `read` refused (`validate` and `submit` alike).
    public static func invalidReport(_ failure: CLIFailure) -> JSON {
        ["valid": false, "error": .string(failure.message)]
    }

    /// The file's bytes, read to its end: a pipe too (`baton submit <(generate-graph)`), which can be read only once.
    public static func read(_ path: String) throws -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIFailure("\(path): no such file", exitCode: 2)
        }
        if isDirectory.boolValue { throw CLIFailure("\(path): is a directory, not a graph file", exitCode: 2) }
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw CLIFailure("\(path): cannot read the file (permissions?)", exitCode: 2)
        }
        defer { try? file.close() }
        do { return Array(try file.readToEnd() ?? Data()) } catch {
            throw CLIFailure("\(path): cannot read the file: \(error.localizedDescription)", exitCode: 2)
        }
    }
}
