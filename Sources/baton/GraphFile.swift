import Baton
import Foundation

/// Reads and validates a graph file, with errors that name the file.
enum GraphFile {
    /// With `schemas`, a graph whose inputs do not fit them (`TypeChecker`) is refused like an invalid one.
    static func load(_ path: String, knownProcedures: Set<String>?, schemas: [String: ProcedureSchema]? = nil) throws -> Graph {
        let bytes = try read(path)
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let limits = try Limits.fromEnvironment()
        let graph: Graph
        do {
            graph = try GraphDecoder(knownProcedures: knownProcedures, limits: limits).decode(bytes, defaultName: name)
        } catch {
            throw CLIFailure("\(path): \(error.description)", exitCode: 2)
        }
        if let schemas {
            let problems = TypeChecker(schemas: schemas).check(graph)
            if !problems.isEmpty { throw CLIFailure("\(path): \(GraphValidationError(problems: problems).description)", exitCode: 2) }
        }
        return graph
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
