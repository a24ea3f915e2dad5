extension TypeSchema {
    /// The shape of the part of a value of this shape that `pointer` names, or nil when that is
    /// not known (`any`, a member the schema does not name, an index into a non-array).
    public func selecting(_ pointer: JSONPointer) -> TypeSchema? {
        var current = self
        for token in pointer.tokens {
            switch current.nonNull {
            case let .object(properties, additional):
                guard let next = properties.first(where: { $0.name == token })?.schema ?? additional else { return nil }
                current = next
            case let .array(items):
                guard let index = Int(token), index >= 0 else { return nil }
                current = items
            default:
                return nil
            }
        }
        return current
    }
}
