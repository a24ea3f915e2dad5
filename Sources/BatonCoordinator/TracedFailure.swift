import Foundation

/// An attempt's or run's failure as recorded on its span: the message the store has.
struct TracedFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
