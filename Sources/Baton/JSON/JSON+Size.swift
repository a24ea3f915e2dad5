extension JSON {
    /// About the bytes of the value serialized (strings counted as their UTF-8, numbers as 20 bytes,
    /// plus punctuation), without serializing it: a walk of the value, with no allocation. Used to
    /// bound batches and memory in bytes, where a close upper estimate is enough.
    public var estimatedBytes: Int {
        switch self {
        case .null, .bool: return 5
        case .int, .double: return 20
        case let .string(text): return text.utf8.count + 2
        case let .array(items):
            var total = 2
            for item in items { total += item.estimatedBytes + 1 }
            return total
        case let .object(object):
            var total = 2
            for member in object.members { total += member.key.utf8.count + 4 + member.value.estimatedBytes }
            return total
        }
    }
}
