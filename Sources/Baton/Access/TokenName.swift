/// The name of an API token (`baton token create NAME`): what lists, the audit trail and revoking use.
public enum TokenName {
    /// Nil when `name` is a good token name; otherwise one line saying why not.
    public static func problem(_ name: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_.-".utf8)
        guard let first = name.utf8.first, name.utf8.count <= 64 else {
            return "a token name must be 1 to 64 characters, got \(name.utf8.count)"
        }
        guard Set("abcdefghijklmnopqrstuvwxyz0123456789".utf8).contains(first), name.utf8.allSatisfy(allowed.contains) else {
            return "token name '\(name)' must be lowercase letters, digits, '_', '.' or '-', starting with a letter or digit"
        }
        return nil
    }
}
