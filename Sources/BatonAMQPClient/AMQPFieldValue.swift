/// A value in an AMQP field table: queue arguments and message headers.
///
/// Integers of every wire width decode to ``int(_:)``; floats and decimals to
/// ``double(_:)``. Integers are sent as signed 64-bit values, which RabbitMQ
/// accepts for `x-message-ttl`, `x-max-priority`, `x-delivery-limit` and the like.
public enum AMQPFieldValue: Sendable, Hashable {
    case string(String)
    case bytes([UInt8])
    case int(Int64)
    case bool(Bool)
    case double(Double)
    /// Seconds since the Unix epoch.
    case timestamp(UInt64)
    case array([AMQPFieldValue])
    case table([String: AMQPFieldValue])
    case void

    /// The value if it is an ``int(_:)``.
    public var intValue: Int64? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The value if it is a ``string(_:)``.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value if it is a ``bool(_:)``.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements if it is an ``array(_:)``.
    public var arrayValue: [AMQPFieldValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The entries if it is a ``table(_:)``.
    public var tableValue: [String: AMQPFieldValue]? {
        if case .table(let value) = self { return value }
        return nil
    }
}

extension AMQPFieldValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
