/// Rules for node keys and pool names: `[a-z0-9][a-z0-9_.-]*`, at most 128 characters.
public enum NodeKey {
    public static let maxLength = 128

    /// Why `key` is not a valid key, or nil if it is.
    public static func problem(with key: String) -> String? {
        if key.isEmpty { return "must not be empty" }
        if key.utf8.count > maxLength { return "is longer than \(maxLength) characters" }
        let bytes = Array(key.utf8)
        func lowerAlnum(_ b: UInt8) -> Bool { (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) }
        guard lowerAlnum(bytes[0]) else { return "must start with a lowercase letter or digit" }
        for b in bytes.dropFirst() where !(lowerAlnum(b) || b == UInt8(ascii: "_") || b == UInt8(ascii: ".") || b == UInt8(ascii: "-")) {
            return "may only contain lowercase letters, digits, '_', '.' and '-'"
        }
        return nil
    }
}
