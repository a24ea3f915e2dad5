/// An error `test.throw` throws: an enum with an associated value, as a user's procedure would.
enum InventoryError: Error {
    case outOfStock(sku: String)
}
