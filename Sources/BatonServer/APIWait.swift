/// `?wait=`: how long an answer may wait for a run to end, 0 to 60 s (`250ms`, `30s`, `1m`).
enum APIWait {
    static let longest = 60.0

    /// Seconds (0 when not sent), or the 400 for a value that is not such a duration.
    static func parse(_ text: String?) throws -> Double {
        guard let text else { return 0 }
        let bad = APIError.badRequest("wait: '\(text)' is not a duration of 0 to 60 s (such as 250ms, 30s or 1m)")
        let seconds: Double
        if text.hasSuffix("ms"), let ms = Double(text.dropLast(2)), text.dropLast(2).allSatisfy(\.isNumber) {
            seconds = ms / 1000
        } else if text.hasSuffix("s"), let s = Double(text.dropLast()), text.dropLast().allSatisfy({ $0.isNumber || $0 == "." }) {
            seconds = s
        } else if text == "1m" {
            seconds = 60
        } else {
            throw bad
        }
        guard seconds >= 0, seconds <= longest else { throw bad }
        return seconds
    }
}
