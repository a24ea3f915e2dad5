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

    /// `keys` with each child (`parent/child`) right after its parent and the parent's earlier
    /// children, keeping the given order otherwise: how `show` and `run --local` list a run.
    public static func treeOrder(_ keys: [String]) -> [String] {
        let present = Set(keys)
        var children: [String: [String]] = [:]
        var roots: [String] = []
        for key in keys {
            if let parent = RunState.parent(of: key), present.contains(parent) {
                children[parent, default: []].append(key)
            } else {
                roots.append(key)
            }
        }
        var result: [String] = []
        result.reserveCapacity(keys.count)
        var stack = Array(roots.reversed())
        while let key = stack.popLast() {
            result.append(key)
            stack += (children[key] ?? []).reversed()
        }
        return result
    }
}
