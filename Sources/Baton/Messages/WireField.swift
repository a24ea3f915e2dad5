/// Optional fields of a message read without `Codable`, as `decodeIfPresent` reads them: absent and
/// null are nil; another type is nil at the outer level, which leaves the message to `Codable`.
enum WireField {
    static func string(_ json: JSON?) -> String?? {
        switch json {
        case nil, .null?: return .some(nil)
        case let .string(s)?: return .some(s)
        default: return nil
        }
    }

    static func number(_ json: JSON?) -> Double?? {
        switch json {
        case nil, .null?: return .some(nil)
        case let .int(i)?: return .some(Double(i))
        case let .double(d)?: return .some(d)
        default: return nil
        }
    }
}
