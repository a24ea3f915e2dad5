import Baton
import Foundation
import Yams

/// A YAML text read as Baton's `JSON`, remembering where each value was written so problems
/// found later (by `GraphDecoder`) can name a line.
///
/// Scalars follow YAML 1.2's core schema: `true`/`false` are booleans (`yes`, `no`, `on`, `off` are
/// strings), `null`, `~` and an empty value are null, integers stay integers (decimal, `0o`, `0x`),
/// other numbers are doubles, anything else is a string; quoting always makes a string. Mapping
/// order is kept. Anchors, aliases and merge keys (`<<`) are resolved. What JSON cannot say is an
/// error with its line: a key that is not a string, a tag other than the core ones (`!!binary`,
/// `!!set`, `!custom`), `.inf` and `.nan`, and more than one document.
public struct YAMLDocument: Sendable {
    public let json: JSON
    /// Where each value was written, by JSON pointer: the key's place for an object member,
    /// the value's for an array element and for the root.
    public let marks: [String: YAMLMark]

    /// Parses `bytes` (UTF-8). `maxDepth` bounds nesting; `maxBytes` bounds the size of the JSON the
    /// document expands to, so aliases repeating a large part cannot blow up; `maxAliasedNodes` bounds
    /// the nodes (scalars, lists, mappings) aliases add, counted before any is expanded, so nested aliases
    /// cannot either. Aliases may add that many nodes, or ten for each node written if that is more:
    /// a large graph may merge its defaults (`<<: *defaults`) into every node.
    public static func parse(
        _ bytes: [UInt8], maxDepth: Int = 64, maxBytes: Int = 64 << 20, maxAliasedNodes: Int = 100_000
    ) throws(YAMLError) -> YAMLDocument {
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            throw YAMLError(mark: nil, message: "the file is not valid UTF-8")
        }
        try AliasExpansion.check(bytes, limit: maxAliasedNodes)
        let root: Node?
        do {
            root = try Parser(yaml: text, resolver: Self.resolver).singleRoot()
        } catch {
            throw Self.translate(error)
        }
        guard let root else { throw YAMLError(mark: YAMLMark(line: 1, column: 1), message: "the document is empty") }
        var converter = YAMLConverter(maxDepth: maxDepth, budget: maxBytes)
        converter.record([], root.mark.map { YAMLMark(line: $0.line, column: $0.column) })
        let json = try converter.convert(root, path: [], depth: 1)
        return YAMLDocument(json: json, marks: converter.marks)
    }

    /// Where a graph problem is written: the nearest place on the path to its node and field
    /// (a group's child `g/c` lives at `/nodes/g/group/nodes/c`).
    public func mark(node: String?, field: String) -> YAMLMark? {
        var tokens: [String] = []
        if let node {
            for (i, part) in node.split(separator: "/", omittingEmptySubsequences: false).enumerated() {
                // A child sits in its group's `group/nodes` (or `nodes`, where a group is written without `group`).
                let grouped = i > 0 && marks[JSONPointer(tokens: tokens + ["group"]).description] != nil
                tokens += grouped ? ["group", "nodes", String(part)] : ["nodes", String(part)]
            }
        }
        if !field.isEmpty {
            tokens += (try? JSONPointer(parsing: "/" + field).tokens) ?? field.split(separator: "/").map(String.init)
        }
        while true {
            if let mark = marks[JSONPointer(tokens: tokens).description] { return mark }
            if tokens.isEmpty { return nil }
            tokens.removeLast()
        }
    }

    /// YAML 1.2's core schema, so `no` stays a string and `0755` a decimal; timestamps stay strings.
    static let resolver: Resolver = {
        let rules: [(Tag.Name, String)] = [
            (.null, "^(?:~|null|Null|NULL|)$"),
            (.bool, "^(?:true|True|TRUE|false|False|FALSE)$"),
            (.int, "^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
            (.float, "^(?:[-+]?(?:\\.[0-9]+|[0-9]+(?:\\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN))$"),
            (.merge, "^<<$"),
        ]
        return rules.reduce(Resolver.basic) { resolver, rule in try! resolver.appending(rule.0, rule.1) }
    }()

    private static func translate(_ error: Error) -> YAMLError {
        func mark(_ m: Mark) -> YAMLMark { YAMLMark(line: m.line, column: m.column) }
        guard let error = error as? YamlError else { return YAMLError(mark: nil, message: "\(error)") }
        switch error {
        case let .scanner(context, problem, m, _), let .parser(context, problem, m, _), let .composer(context, problem, m, _):
            let while_ = context.map { "\($0.text) at \(mark($0.mark)): " } ?? ""
            return YAMLError(mark: mark(m), message: while_ + problem)
        case let .duplicatedKeysInMapping(duplicates, context):
            let keys = duplicates.sorted().map { "'\($0)'" }.joined(separator: ", ")
            return YAMLError(mark: mark(context.mark), message: "duplicate key \(keys) in a mapping")
        case let .reader(problem, offset, _, _):
            return YAMLError(mark: nil, message: problem + (offset.map { " (at byte \($0))" } ?? ""))
        default:
            return YAMLError(mark: nil, message: "\(error)")
        }
    }
}
