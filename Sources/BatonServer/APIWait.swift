/// `?wait=`: how long an answer may wait for a run to end, 0 to 60 s (`250ms`, `30s`, `1m`).
enum APIWait {
    static let longest = 60.0

    /// Seconds (0 when not sent), or the 400 for a value that is not such a duration.
    static func parse(_ text: String?) throws -> Double {
        guard let text else { return 0 }
        let bad = APIError.badRequest("wait: '\(text.prefix(40))' is not a duration of 0 to 60 s (such as 250ms, 30s or 1m)")
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

    /// Asks `check` until it answers or `wait` seconds have passed, sleeping between asks (no store
    /// thread is held meanwhile): 5 ms at first, doubling up to `every`, so a run that ends soon is
    /// answered soon and a long wait costs a query per `every`. `check` is told when it is asked for
    /// the last time; nil if it never answered.
    static func poll<T: Sendable>(
        wait: Double, every: Duration = .milliseconds(100), _ check: (_ last: Bool) async throws -> T?
    ) async throws -> T? {
        let deadline = ContinuousClock.now + .milliseconds(Int(wait * 1000))
        var pause = Duration.milliseconds(5)
        while true {
            let last = ContinuousClock.now >= deadline
            if let answer = try await check(last) { return answer }
            if last { return nil }
            try await Task.sleep(for: min(pause, deadline - ContinuousClock.now))
            pause = min(pause * 2, every)
        }
    }
}
