import Foundation

/// How Baton's messages (task, report, control, heartbeat) travel: JSON, each with a version field
/// `v`, members sorted by name at every depth (`WireMessage` describes each message once, for its
/// direct writer and reader and its `Codable` conformance alike). A message of another version is
/// refused with a clear error (the coordinator and workers dead-letter it) rather than misread.
public enum WireFormat {
    /// The version this build writes and reads.
    public static let version = 1

    /// Encodes a message (keys sorted, so equal messages are equal bytes).
    public static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        // Every message type encodes only strings, numbers and JSON values: encoding cannot fail.
        do { return Array(try JSONCoding.encoder.encode(value)) } catch {
            preconditionFailure("a Baton message failed to encode: \(error)")
        }
    }

    /// Decodes a message, with one line naming what is wrong.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], what: String) throws -> T {
        do {
            return try JSONCoding.decoder.decode(T.self, from: Data(bytes))
        } catch let error as MessageError {
            throw error
        } catch {
            throw MessageError("\(what) is malformed: \(describeDecodingError(error))")
        }
    }
}
