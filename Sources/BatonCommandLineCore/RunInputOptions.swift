import ArgumentParser
import Baton

/// `--input JSON` or `--input @FILE`: the run's input, merged over the graph's `input` defaults.
public struct RunInputOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The run's input: a JSON object, or @FILE (JSON, or YAML for .yaml/.yml), merged over the graph's `input` defaults.",
            valueName: "json|@file"))
    public var input: String?

    public init() {}

    /// The parsed input, or nil when `--input` was not given; a one-line error for every bad form.
    public func value() throws -> JSON? {
        guard let input else { return nil }
        let limits = try Limits.fromEnvironment()
        let maxDepth = limits.maxDepth
        let json: JSON
        if input.hasPrefix("@") {
            let path = String(input.dropFirst())
            if path.isEmpty { throw CLIFailure("--input @ needs a file name after the @", exitCode: 2) }
            let bytes: [UInt8]
            do { bytes = try GraphFile.read(path) } catch let failure as CLIFailure {
                throw CLIFailure("--input @" + failure.message, exitCode: 2)
            }
            if GraphFileYAML.isYAML(path) {
                do { json = try GraphFileYAML.required(for: path).parse(bytes, path, limits).json } catch let failure as CLIFailure {
                    throw CLIFailure("--input @" + failure.message, exitCode: 2)
                }
            } else {
                do { json = try JSONParser.parse(bytes, maxDepth: maxDepth) } catch {
                    throw CLIFailure("--input @\(path): \(error.description)", exitCode: 2)
                }
            }
        } else {
            do { json = try JSONParser.parse(input, maxDepth: maxDepth) } catch {
                throw CLIFailure("--input: \(error.description) (give a JSON object, or @FILE)", exitCode: 2)
            }
        }
        guard case .object = json else {
            throw CLIFailure("--input must be a JSON object, found \(json.kindName)", exitCode: 2)
        }
        // It is stored with the graph, so it is held to the graph's size limit.
        let size = json.serializedBytes().count
        if size > limits.maxGraphBytes {
            throw CLIFailure("--input is \(size) bytes as JSON, more than the limit of \(limits.maxGraphBytes) (BATON_MAX_GRAPH_BYTES)", exitCode: 2)
        }
        return json
    }
}
