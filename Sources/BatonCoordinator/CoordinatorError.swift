/// A coordinator failure that is neither the store's nor the broker's.
struct CoordinatorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
