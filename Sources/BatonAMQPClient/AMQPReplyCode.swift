/// An AMQP 0-9-1 reply code, as the broker sends it in `connection.close` and `channel.close`.
/// Extensible: any code is kept; the ones Baton decides on have names.
public struct AMQPReplyCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public var description: String { String(rawValue) }

    /// An operator closed the connection, or the broker is shutting down.
    public static let connectionForced = AMQPReplyCode(320)
    /// Wrong credentials, or no permission for what was asked.
    public static let accessRefused = AMQPReplyCode(403)
    public static let notFound = AMQPReplyCode(404)
    /// An exclusive queue is held by another connection.
    public static let resourceLocked = AMQPReplyCode(405)
    /// A declare that disagrees with what exists (a queue with other arguments).
    public static let preconditionFailed = AMQPReplyCode(406)
    /// A vhost that does not exist or may not be used.
    public static let notAllowed = AMQPReplyCode(530)
    public static let resourceError = AMQPReplyCode(506)
    public static let notImplemented = AMQPReplyCode(540)
    public static let internalError = AMQPReplyCode(541)
}
