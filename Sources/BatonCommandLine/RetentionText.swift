import BatonCommandLineCore

/// How long history is kept, as `--older-than` and `--retention` write it: a whole or decimal number
/// with `s`, `m`, `h`, `d` (days) or `w` (weeks), such as `30d`, `12h` or `1.5w`.
public enum RetentionText {
    /// Seconds, or one line saying what is wrong with `text` for `flag`.
    public static func parse(_ text: String, flag: String) -> Result<Double, CLIFailure> {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        let failure = CLIFailure(
            "\(flag): '\(text)' is not a duration (use a number with s, m, h, d or w, such as 30d or 12h)", exitCode: 2)
        guard let unit = text.last, let seconds = units[unit] else { return .failure(failure) }
        let number = text.dropLast()
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            number.filter({ $0 == "." }).count <= 1, let value = Double(number)
        else { return .failure(failure) }
        let total = value * seconds
        guard total >= 1 else { return .failure(CLIFailure("\(flag): '\(text)' is shorter than a second", exitCode: 2)) }
        guard total <= 100 * 366 * 86_400 else { return .failure(CLIFailure("\(flag): '\(text)' is longer than 100 years", exitCode: 2)) }
        return .success(total)
    }
}
