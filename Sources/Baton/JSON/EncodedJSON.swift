/// A JSON document still as bytes: a procedure's output on its way from the worker, serialized
/// once and never parsed until the coordinator reads it.
public struct EncodedJSON: Sendable, Equatable {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public init(_ json: JSON) { bytes = json.serializedBytes() }

    /// The parsed value.
    public func decoded() throws -> JSON { try JSONParser.parse(bytes, maxDepth: 1024) }
}
