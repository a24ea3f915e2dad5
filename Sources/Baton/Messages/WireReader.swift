import Foundation

/// Reads a message directly from its parsed members, as its description asks for them. It reads
/// only what it can read exactly (a member of the type written, nothing to convert); on anything
/// else it throws `WireReader.Unread`, and the caller leaves the message to `Codable`, which reads
/// what it can convert and says what is wrong with the rest: what is refused, and why, is one thing.
struct WireReader: WireCoder {
    /// The message needs `Codable` to be read, or to be refused with a reason.
    struct Unread: Error {}

    private let members: [(key: String, value: JSON)]
    /// Where the next search starts: members written by `WireWriter` come in the order they are asked for.
    private var next = 0

    init(_ object: JSONObject) { members = object.members }

    mutating func required<V: WireValue>(_ name: StaticString, _ value: inout V) throws {
        guard let json = find(name), let read = V(wire: json) else { throw Unread() }
        value = read
    }

    mutating func member<V: WireValue>(_ name: StaticString, _ value: inout V?, required: Bool) throws {
        switch find(name) {
        case nil:
            if required { throw Unread() }
            value = nil
        case .null? where !required:
            value = nil
        case let json?:  // null, for a required member, is read only by `JSON`
            guard let read = V(wire: json) else { throw Unread() }
            value = read
        }
    }

    mutating func tolerated<V: WireValue>(_ name: StaticString, _ value: inout V?) throws {
        switch find(name) {
        case nil, .null?: value = nil
        case let json?: value = V(wire: json)
        }
    }

    mutating func version() throws {
        guard case .int(Int64(WireFormat.version))? = find("v") else { throw Unread() }
    }

    /// The member named `name`, searched from where the last one was found.
    private mutating func find(_ name: StaticString) -> JSON? {
        let count = members.count
        var seen = 0
        var i = next
        while seen < count {
            if i == count { i = 0 }
            if Self.same(members[i].key, name) {
                next = i + 1
                return members[i].value
            }
            i += 1
            seen += 1
        }
        return nil
    }

    @inline(__always)
    private static func same(_ key: String, _ name: StaticString) -> Bool {
        let length = name.utf8CodeUnitCount
        guard key.utf8.count == length else { return false }
        if length == 0 { return true }
        return key.utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, name.utf8Start, length) == 0 }
            ?? key.utf8.elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: length))
    }
}
