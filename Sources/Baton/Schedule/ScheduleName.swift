/// Schedule names: like node keys, `[a-z0-9][a-z0-9_.-]*`, at most 128 characters (so a name never
/// holds the `:` that separates it from the due time in `schedule:NAME:TIME`).
public enum ScheduleName {
    /// What is wrong with `name`, or nil if it is a schedule name.
    public static func problem(_ name: String) -> String? {
        let allowed = { (c: Character) in c.isASCII && (c.isLowercase || c.isNumber || c == "_" || c == "." || c == "-") }
        guard let first = name.first, first.isASCII, first.isLowercase || first.isNumber, name.count <= 128, name.allSatisfy(allowed)
        else {
            return "schedule name '\(name)' must be 1 to 128 of a-z, 0-9, '_', '.', '-', starting with a letter or digit"
        }
        return nil
    }
}
