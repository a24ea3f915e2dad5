/// Partition numbers written short, as ranges: `0-3,7,9-10` (`-` for none), for logs and tables.
public enum PartitionRanges {
    /// `partitions`, sorted and deduplicated, as comma-separated ranges.
    public static func text<S: Sequence>(_ partitions: S) -> String where S.Element == Int {
        let sorted = Array(Set(partitions)).sorted()
        var parts: [String] = []
        var i = 0
        while i < sorted.count {
            var j = i
            while j + 1 < sorted.count, sorted[j + 1] == sorted[j] + 1 { j += 1 }
            parts.append(i == j ? "\(sorted[i])" : "\(sorted[i])-\(sorted[j])")
            i = j + 1
        }
        return parts.isEmpty ? "-" : parts.joined(separator: ",")
    }
}
