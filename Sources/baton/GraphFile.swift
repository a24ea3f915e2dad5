import Baton
import BatonYAML
import Foundation

/// Reads and validates a graph file (JSON, or YAML for `.yaml` and `.yml`), with errors that name the file.
enum GraphFile {
    /// `input` is the run's input (`--input`), merged over the graph's `input` defaults. With `schemas`,
    /// a graph whose inputs do not fit them (`TypeChecker`) is refused like an invalid one.
    static func load(
        _ path: String, knownProcedures: Set<String>?, input: JSON? = nil, schemas: [String: ProcedureSchema]? = nil
    )
        throws -> Graph
    {
        let bytes = try read(path)
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let limits = try Limits.fromEnvironment()
        let decoder = GraphDecoder(knownProcedures: knownProcedures, limits: limits)
        var document: YAMLDocument?
        let graph: Graph
        if isYAML(path) {
            if bytes.count > limits.maxGraphBytes {
                throw CLIFailure("\(path): graph file is \(bytes.count) bytes, more than the limit of \(limits.maxGraphBytes)", exitCode: 2)
            }
            let yaml = try parseYAML(bytes, path: path, maxDepth: limits.maxDepth, maxBytes: limits.maxGraphBytes)
            document = yaml
            do {
                graph = try decoder.decode(yaml.json, input: input, defaultName: name, measuringInputs: true)
            } catch {
                throw invalid(path, error.problems, document)
            }
        } else {
            do {
                graph = try decoder.decode(bytes, input: input, defaultName: name)
            } catch {
                throw CLIFailure("\(path): \(error.description)", exitCode: 2)
            }
        }
        if let schemas {
            let problems = TypeChecker(schemas: schemas).check(graph)
            if !problems.isEmpty { throw invalid(path, problems, document) }
        }
        return graph
    }

    /// Every problem, one line each; in a YAML file, each with the line of the node or field it is
    /// about, as editors and CI logs link them.
    static func invalid(_ path: String, _ problems: [GraphProblem], _ document: YAMLDocument?) -> CLIFailure {
        guard let document else { return CLIFailure("\(path): \(GraphValidationError(problems: problems).description)", exitCode: 2) }
        let n = problems.count
        let lines = problems.map { problem in
            "  - " + (document.mark(node: problem.node, field: problem.field).map { "\(path):\($0): " } ?? "") + problem.description
        }
        return CLIFailure("\(path): invalid graph (\(n) problem\(n == 1 ? "" : "s")):\n" + lines.joined(separator: "\n"), exitCode: 2)
    }

    /// Whether a file is read as YAML: by its extension.
    static func isYAML(_ path: String) -> Bool {
        ["yaml", "yml"].contains(URL(fileURLWithPath: path).pathExtension.lowercased())
    }

    /// A YAML text as JSON, or an error `FILE:LINE:COL: message`.
    static func parseYAML(_ bytes: [UInt8], path: String, maxDepth: Int, maxBytes: Int) throws -> YAMLDocument {
        do {
            return try YAMLDocument.parse(bytes, maxDepth: maxDepth, maxBytes: maxBytes)
        } catch {
            throw CLIFailure((error.mark.map { "\(path):\($0): " } ?? "\(path): ") + error.message, exitCode: 2)
        }
    }

    /// What `--json` prints for a graph file that `load` or `read` refused (`validate` and `submit` alike).
    static func invalidReport(_ failure: CLIFailure) -> JSON {
        ["valid": false, "error": .string(failure.message)]
    }

    static func read(_ path: String) throws -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIFailure("\(path): no such file", exitCode: 2)
        }
        if isDirectory.boolValue { throw CLIFailure("\(path): is a directory, not a graph file", exitCode: 2) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIFailure("\(path): cannot read the file (permissions?)", exitCode: 2)
        }
        return Array(data)
    }
}
