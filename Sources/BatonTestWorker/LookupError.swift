/// An error `test.throw` throws: a struct with its own description.
struct LookupError: Error, CustomStringConvertible {
    let sku: String
    var description: String { "no item '\(sku)'" }
}
