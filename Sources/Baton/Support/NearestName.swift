/// The name a mistyped one most likely meant, for "did you mean ...?" in error messages.
public enum NearestName {
    /// The candidate closest to `name` by edit distance (letters inserted, removed or changed),
    /// if it is close enough to be a typo: at most a third of the name's length, and at least 1.
    /// Ties go to the first in sorted order, so the suggestion is the same every time.
    public static func suggestion(for name: String, among candidates: some Sequence<String>) -> String? {
        let limit = max(1, name.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in Set(candidates).sorted() where candidate != name {
            let distance = editDistance(Array(name.lowercased()), Array(candidate.lowercased()), limit: limit)
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// " (did you mean 'x'?)" or "".
    public static func hint(for name: String, among candidates: some Sequence<String>) -> String {
        suggestion(for: name, among: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// Edit distance counting a swap of two neighbouring letters as one edit (optimal string
    /// alignment), or `limit + 1` as soon as it must exceed `limit`.
    static func editDistance(_ a: [Character], _ b: [Character], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMin = i
            for j in 1...b.count {
                var cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { cost = min(cost, before[j - 2] + 1) }
                current[j] = cost
                rowMin = min(rowMin, cost)
            }
            if rowMin > limit { return limit + 1 }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
