/// One condition of a trigger on an event's `data`: the value at a JSON Pointer equals a JSON value
/// (`--filter /order/tier=gold`, `{"pointer": "/order/tier", "value": "gold"}`). A trigger starts on
/// an event when all its filters match.
public struct TriggerFilter: Sendable, Equatable {
    public let pointer: JSONPointer
    public let value: JSON

    public init(pointer: JSONPointer, value: JSON) {
        self.pointer = pointer
        self.value = value
    }

    /// Whether `data` holds `value` at `pointer` (a missing member is no match). Numbers compare by
    /// value, so `3` matches `3.0`.
    public func matches(_ data: JSON) -> Bool {
        guard let found = try? pointer.resolve(in: data) else { return false }
        return Self.equal(found, value)
    }

    /// Parses the CLI's `POINTER=VALUE`: the pointer up to the first `=`, non-empty and starting with
    /// `/`; the value JSON when it reads as JSON (`3`, `true`, `"x"`, `{"a":1}`), else the text itself
    /// (`gold`). One line naming what is wrong otherwise.
    public static func parse(_ text: String) -> Result<TriggerFilter, TriggerFilterError> {
        guard let equals = text.firstIndex(of: "=") else {
            return .failure(TriggerFilterError("'\(text)' is not POINTER=VALUE (such as /order/tier=gold)"))
        }
        let pointerText = String(text[..<equals])
        let valueText = String(text[text.index(after: equals)...])
        let pointer: JSONPointer
        switch Self.pointer(pointerText) {
        case let .success(parsed): pointer = parsed
        case let .failure(problem): return .failure(TriggerFilterError("'\(text)': \(problem.description)"))
        }
        let value = (try? JSONParser.parse(Array(valueText.utf8))) ?? .string(valueText)
        return .success(TriggerFilter(pointer: pointer, value: value))
    }

    /// The API's `{"pointer", "value"}` form; one line naming what is wrong otherwise.
    public static func parse(_ json: JSON) -> Result<TriggerFilter, TriggerFilterError> {
        guard let object = json.objectValue else {
            return .failure(TriggerFilterError("a filter must be {\"pointer\", \"value\"}, not \(json.kindName)"))
        }
        if let unknown = object.map(\.key).first(where: { $0 != "pointer" && $0 != "value" }) {
            return .failure(TriggerFilterError("unknown member '\(unknown)' in a filter (expected pointer, value)"))
        }
        guard let text = object["pointer"]?.stringValue else {
            return .failure(TriggerFilterError("a filter needs `pointer`, a JSON Pointer string"))
        }
        guard let value = object["value"] else { return .failure(TriggerFilterError("filter '\(text)' needs `value`")) }
        return Self.pointer(text).map { TriggerFilter(pointer: $0, value: value) }
    }

    /// The filter as stored and answered: `{"pointer", "value"}`.
    public var json: JSON { ["pointer": .string(pointer.description), "value": value] }

    /// `POINTER=VALUE` as `baton trigger list` prints it.
    public var text: String {
        let valueText = value.stringValue.map { (try? JSONParser.parse(Array($0.utf8))) == nil ? $0 : value.serialized() } ?? value.serialized()
        return pointer.description + "=" + valueText
    }

    private static func pointer(_ text: String) -> Result<JSONPointer, TriggerFilterError> {
        guard !text.isEmpty else { return .failure(TriggerFilterError("the pointer is empty; name a member of the data, such as /tier")) }
        guard text.hasPrefix("/") else {
            return .failure(TriggerFilterError("pointer '\(text.prefix(200))' must start with '/' (such as /\(text.prefix(200)))"))
        }
        guard text.unicodeScalars.count <= 1024 else { return .failure(TriggerFilterError("the pointer is longer than 1024 characters")) }
        do { return .success(try JSONPointer(parsing: text)) } catch { return .failure(TriggerFilterError(error.description)) }
    }

    private static func equal(_ a: JSON, _ b: JSON) -> Bool {
        switch (a, b) {
        case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case let (.object(x), .object(y)):
            return x.count == y.count && x.allSatisfy { member in y[member.key].map { equal(member.value, $0) } ?? false }
        default:
            if let x = a.numberValue, let y = b.numberValue { return x == y }
            return a == b
        }
    }
}

/// A trigger filter that does not parse, in one line.
public struct TriggerFilterError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
