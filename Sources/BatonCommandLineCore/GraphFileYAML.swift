import Baton
import Foundation

/// How YAML graph files (`.yaml`, `.yml`) are read, where a binary links a YAML parser: `baton`, and a
/// worker built with `BatonWorkerExtras` (`WorkerMain.main(registry:extras: .all)`). A lean worker reads
/// JSON graph files only and says, for a YAML one, what to add.
public struct GraphFileYAML: Sendable {
    /// A YAML file's bytes as JSON, with where in the file each problem of the graph is (`LINE:COL`);
    /// throws a `CLIFailure` naming the file (and line) when the text is not YAML.
    public typealias Parse =
        @Sendable (_ bytes: [UInt8], _ path: String, _ limits: GraphLimits) throws -> (
            json: JSON, locate: @Sendable (GraphProblem) -> String?
        )
    public let parse: Parse

    public init(parse: @escaping Parse) { self.parse = parse }

    nonisolated(unsafe) private static var installed: GraphFileYAML?

    /// Makes YAML graph files readable in this process. Call once, before the arguments are parsed.
    public static func install(_ yaml: GraphFileYAML) { installed = yaml }

    /// Whether a file is read as YAML: by its extension.
    public static func isYAML(_ path: String) -> Bool {
        ["yaml", "yml"].contains(URL(fileURLWithPath: path).pathExtension.lowercased())
    }

    /// The installed reader, or a usage error (exit 2) for `path` naming the opt-in.
    public static func required(for path: String) throws -> GraphFileYAML {
        guard let installed else {
            throw CLIFailure(
                "\(path): this binary reads JSON graph files only; for YAML, build the worker with the BatonWorkerExtras product "
                    + "and `WorkerMain.main(registry:extras: .all)` (see docs/procedures.md), or give a JSON file",
                exitCode: 2)
        }
        return installed
    }
}
