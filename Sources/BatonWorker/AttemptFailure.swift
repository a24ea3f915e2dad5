import Foundation

/// A failed attempt as recorded on its span.
struct AttemptFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
