import Foundation

/// A message on one of Baton's queues, described once: `members` lists its members in wire order
/// (sorted by name, as UTF-8 bytes), and the four coders follow that one list. Messages are written
/// directly (`written()`) and read directly when they have the shape written (`read(_:)`); their
/// `Codable` conformance follows the same list, writes the same bytes, and reads what the direct
/// reader leaves to it, with an error that names the member at fault.
protocol WireMessage: Codable {
    /// What the message is called in errors ("task message", "report").
    static var what: String { get }

    /// A message for a reader to fill in: members that decide which others there are (a report's
    /// `type`) are read here first. Only readers call it.
    static func blank<C: WireCoder>(_ coder: inout C) throws -> Self

    /// Every member of `message`, in wire order: writers write them, readers set them.
    static func members<C: WireCoder>(_ coder: inout C, _ message: inout Self) throws

    /// What a reader makes of the members it has read: checked and normalized (as it is, by default).
    static func checked(_ message: Self) throws -> Self
}

extension WireMessage {
    static func checked(_ message: Self) throws -> Self { message }

    /// Reads a message with `reader`: its version first, then what `blank` needs, then every member.
    static func reading<C: WireCoder>(_ reader: inout C) throws -> Self {
        try reader.version()
        var message = try blank(&reader)
        try members(&reader, &message)
        return try checked(message)
    }

    /// The message body, written directly: the bytes `WireFormat.encode` writes through `Codable`.
    func written(capacity: Int = 160) -> [UInt8] {
        var writer = WireWriter(capacity: capacity)
        var message = self
        // Members are strings, numbers and JSON values, and `Codable` types of those: writing cannot fail.
        do { try Self.members(&writer, &message) } catch { preconditionFailure("a Baton message failed to encode: \(error)") }
        return writer.finished()
    }

    /// The message `bytes` hold when they have the shape this build writes; nil when only
    /// `Codable` can read them (or say why not).
    static func read(_ bytes: [UInt8]) -> Self? {
        guard case let .object(object)? = try? JSONParser.parse(bytes) else { return nil }
        var reader = WireReader(object)
        return try? reading(&reader)
    }

    /// Reads a message body: directly, or through `Codable` when that is the only way, with one line
    /// naming what is wrong.
    static func decoded(from bytes: [UInt8]) throws -> Self {
        try read(bytes) ?? WireFormat.decode(Self.self, from: bytes, what: what)
    }

    /// `Codable`'s reading, from the same description.
    static func decoded(from decoder: Decoder) throws -> Self {
        var reader = try WireDecoding(decoder, what: what)
        return try reading(&reader)
    }

    /// `Codable`'s writing, from the same description.
    func encodeMembers(to encoder: Encoder) throws {
        var writer = WireEncoding(encoder)
        var message = self
        try Self.members(&writer, &message)
    }
}
