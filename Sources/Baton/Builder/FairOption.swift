/// `fair`: among the nodes ready for the same pool and procedure, dispatch goes round-robin across the
/// evaluated `key`s, in proportion to their `weight`s.
public struct FairOption: Sendable {
    let key: GraphValue<JSON>
    public let weight: Int

    public init<K>(key: GraphValue<K>, weight: Int = 1) {
        self.key = key.json
        self.weight = weight
    }

    /// A key that is the same for every run (`"acme"`).
    public init(key: String, weight: Int = 1) {
        self.init(key: GraphValue<String>(template: .string(key), references: []), weight: weight)
    }

    var fileJSON: JSON { weight == 1 ? ["key": key.template] : ["key": key.template, "weight": .int(Int64(weight))] }
}
