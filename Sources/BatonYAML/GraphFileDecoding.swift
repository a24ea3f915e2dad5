import Baton
import Foundation

/// A graph file's bytes, JSON or YAML (by the file's extension), decoded and validated the same way
/// for the CLI and the test kit; in a YAML file each problem can be placed on its line.
public enum GraphFileDecoding {
    /// Why a graph file was refused.
    public enum Failure: Error, Sendable {
        /// The YAML text is not YAML, or has no JSON meaning.
        case yaml(YAMLError)
        /// A YAML file larger than the graph size limit (a JSON one is refused by the decoder itself).
        case tooLarge(bytes: Int, limit: Int)
        /// The graph is invalid; `yaml` places each problem on its line, for a YAML file.
        case invalid([GraphProblem], yaml: YAMLDocument?)
    }

    /// Whether a file is read as YAML: by its extension.
    public static func isYAML(_ path: String) -> Bool {
        ["yaml", "yml"].contains(URL(fileURLWithPath: path).pathExtension.lowercased())
    }

    /// Decodes graph file bytes with `decoder`; `input` is the run's input (see `RunInput`). Returns the
    /// YAML document too, for placing later problems (type checks) on their lines.
    public static func decode(
        _ bytes: [UInt8], path: String, decoder: GraphDecoder, input: JSON?, defaultName: String
    ) throws(Failure) -> (graph: Graph, yaml: YAMLDocument?) {
        guard isYAML(path) else {
            do { return (try decoder.decode(bytes, input: input, defaultName: defaultName), nil) } catch {
                throw .invalid(error.problems, yaml: nil)
            }
        }
        let limits = decoder.limits
        if bytes.count > limits.maxGraphBytes { throw .tooLarge(bytes: bytes.count, limit: limits.maxGraphBytes) }
        let document: YAMLDocument
        do { document = try YAMLDocument.parse(bytes, maxDepth: limits.maxDepth, maxBytes: limits.maxGraphBytes) } catch {
            throw .yaml(error)
        }
        do {
            return (try decoder.decode(document.json, input: input, defaultName: defaultName, measuringInputs: true), document)
        } catch {
            throw .invalid(error.problems, yaml: document)
        }
    }

    /// Each problem on a line of its own: `FILE:LINE:COL: problem` where a YAML file says where it is.
    public static func lines(_ problems: [GraphProblem], path: String, yaml: YAMLDocument?) -> [String] {
        problems.map { problem in
            (yaml?.mark(node: problem.node, field: problem.field).map { "\(path):\($0): " } ?? "") + problem.description
        }
    }
}
