/// Where a page of runs ended (newest first): the last run's submission time, in microseconds since
/// the epoch, and its id. The next page starts after it.
public struct RunPageMark: Sendable, Equatable {
    public let micros: Int64
    public let id: String

    public init(micros: Int64, id: String) {
        self.micros = micros
        self.id = id
    }
}
