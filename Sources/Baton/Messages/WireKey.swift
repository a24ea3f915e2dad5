/// A member's name as a `CodingKey`, for the `Codable` side of a message's description.
struct WireKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: StaticString) { stringValue = name.description }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
