/// `rate`: at most `limit` nodes with the same evaluated `key` start per `per`, across the cluster.
public struct RateOption: Sendable {
    let key: GraphValue<JSON>
    public let limit: Int
    public let per: Duration

    public init<K>(key: GraphValue<K>, limit: Int, per: Duration) {
        self.key = key.json
        self.limit = limit
        self.per = per
    }

    /// A key that is the same for every run (`"api"`).
    public init(key: String, limit: Int, per: Duration) {
        self.init(key: GraphValue<String>(template: .string(key), references: []), limit: limit, per: per)
    }

    var fileJSON: JSON { ["key": key.template, "limit": .int(Int64(limit)), "per": .string(DurationText.format(file: per))] }
}
