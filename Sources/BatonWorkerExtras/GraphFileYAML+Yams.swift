import BatonCommandLineCore
import BatonYAML

extension GraphFileYAML {
    /// YAML graph files read with `BatonYAML` (Yams), each problem placed on its line.
    public static let yams = GraphFileYAML { bytes, path, limits in
        let document: YAMLDocument
        do { document = try YAMLDocument.parse(bytes, maxDepth: limits.maxDepth, maxBytes: limits.maxGraphBytes) } catch let error as YAMLError {
            throw CLIFailure((error.mark.map { "\(path):\($0): " } ?? "\(path): ") + error.message, exitCode: 2)
        }
        return (document.json, { problem in document.mark(node: problem.node, field: problem.field)?.description })
    }
}
