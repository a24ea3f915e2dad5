/// One side of a wire message's codec: a writer or a reader, direct (`WireWriter`, `WireReader`)
/// or through `Codable` (`WireEncoding`, `WireDecoding`). A message's `members` description calls
/// these once per member, in wire order; writers write what they are given, readers set it.
protocol WireCoder {
    /// A member that is always there. Readers refuse a message without it (a `JSON` member may be null).
    mutating func required<V: WireValue>(_ name: StaticString, _ value: inout V) throws

    /// A member that may be absent. Writers write `value` unless it is nil; readers set it, nil when
    /// the member is absent or null, or refuse the message then if it is `required`.
    mutating func member<V: WireValue>(_ name: StaticString, _ value: inout V?, required: Bool) throws

    /// An optional member that a reader which cannot read it drops, keeping the rest of the message
    /// (a newer form of it, from a newer build).
    mutating func tolerated<V: WireValue>(_ name: StaticString, _ value: inout V?) throws

    /// The version member `"v"`: writers write `WireFormat.version`; readers refuse any other, and
    /// check it before anything else.
    mutating func version() throws
}

extension WireCoder {
    /// A member that may be absent, or null: nil then, and not written when nil.
    mutating func optional<V: WireValue>(_ name: StaticString, _ value: inout V?) throws {
        try member(name, &value, required: false)
    }

    /// A member written only when it differs from `standard`, which an absent (or null) one reads as.
    mutating func defaulted<V: WireValue & Equatable>(_ name: StaticString, _ value: inout V, standard: V) throws {
        var present: V? = value == standard ? nil : value
        try member(name, &present, required: false)
        value = present ?? standard
    }

    /// A member always written, which an absent (or null) one reads as `absent`.
    mutating func required<V: WireValue>(_ name: StaticString, _ value: inout V, absent: V) throws {
        var present: V? = value
        try member(name, &present, required: false)
        value = present ?? absent
    }
}
