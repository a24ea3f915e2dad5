import Baton

/// `demo.chunk-text`: splits a text into `parts` pieces of about equal length, at word boundaries.
public struct ChunkTextProcedure: Procedure {
    public static let name = "demo.chunk-text"
    public struct Input: Codable, Sendable { public let text: String; public let parts: Int }
    public struct Output: Codable, Sendable { public let chunks: [String] }
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> Output {
        guard input.parts >= 1 else { throw ProcedureFailure("parts must be at least 1", permanent: true) }
        let words = input.text.split(whereSeparator: \.isWhitespace)
        let size = max(1, (words.count + input.parts - 1) / input.parts)
        var chunks: [String] = []
        for start in stride(from: 0, to: max(words.count, 1), by: size) {
            chunks.append(words[start..<min(start + size, words.count)].joined(separator: " "))
        }
        while chunks.count < input.parts { chunks.append("") }
        return Output(chunks: chunks)
    }
}

/// `demo.count-words`: counts the words of a text (lowercased, letters and digits only).
public struct CountWordsProcedure: Procedure {
    public static let name = "demo.count-words"
    public struct Input: Codable, Sendable { public let text: String }
    public struct Output: Codable, Sendable { public let counts: [String: Int]; public let total: Int }
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> Output {
        var counts: [String: Int] = [:]
        var total = 0
        for raw in input.text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "'") }) {
            let word = raw.trimmingCharacters(in: "'")
            guard !word.isEmpty else { continue }
            counts[word, default: 0] += 1
            total += 1
        }
        return Output(counts: counts, total: total)
    }
}

/// `demo.merge-counts`: adds several word counts together.
public struct MergeCountsProcedure: Procedure {
    public static let name = "demo.merge-counts"
    public struct Input: Codable, Sendable { public let counts: [[String: Int]] }
    public typealias Output = CountWordsProcedure.Output
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> Output {
        var merged: [String: Int] = [:]
        for part in input.counts { merged.merge(part, uniquingKeysWith: +) }
        return Output(counts: merged, total: merged.values.reduce(0, +))
    }
}

/// `demo.top-words`: the `n` most frequent words, most frequent first (ties by word).
public struct TopWordsProcedure: Procedure {
    public static let name = "demo.top-words"
    public struct Input: Codable, Sendable { public let counts: [String: Int]; public let n: Int }
    public struct Entry: Codable, Sendable, Equatable { public let word: String; public let count: Int }
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> [Entry] {
        input.counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(max(0, input.n)).map { Entry(word: $0.key, count: $0.value) }
    }
}

/// `demo.format`: fills `{name}` placeholders of a template from `values`.
public struct FormatProcedure: Procedure {
    public static let name = "demo.format"
    public struct Input: Codable, Sendable { public let template: String; public let values: [String: JSON] }
    public struct Output: Codable, Sendable { public let text: String }
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> Output {
        // One pass over the template, so a value containing "{name}" is never expanded again.
        var text = ""
        var rest = Substring(input.template)
        while let open = rest.firstIndex(of: "{") {
            text += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "}"), let value = input.values[String(rest[afterOpen..<close])] else {
                text.append("{")
                rest = rest[afterOpen...]
                continue
            }
            if case let .string(s) = value { text += s } else { text += value.serialized() }
            rest = rest[rest.index(after: close)...]
        }
        return Output(text: text + rest)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var s = self
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
