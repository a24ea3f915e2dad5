/// A PostgreSQL SQLSTATE: five characters whose first two name the class (`08` connection
/// exception, `40` transaction rollback, `53` insufficient resources, …). Extensible, as
/// postgres-nio's `PSQLError.Code` is: any code the server sends is kept, and the ones Baton
/// decides on have names. What to do about each is ``SQLState/Disposition``.
public struct SQLState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The class: the first two characters (`"40"` for `40P01`).
    public var errorClass: String { String(rawValue.prefix(2)) }

    public var description: String { rawValue }

    public static let serializationFailure = SQLState("40001")
    public static let deadlockDetected = SQLState("40P01")
    public static let diskFull = SQLState("53100")
    public static let outOfMemory = SQLState("53200")
    public static let tooManyConnections = SQLState("53300")
    public static let queryCanceled = SQLState("57014")
    public static let adminShutdown = SQLState("57P01")
    public static let crashShutdown = SQLState("57P02")
    public static let cannotConnectNow = SQLState("57P03")
    public static let lockNotAvailable = SQLState("55P03")
    public static let undefinedTable = SQLState("42P01")
    public static let insufficientPrivilege = SQLState("42501")
    public static let invalidTextRepresentation = SQLState("22P02")
    public static let uniqueViolation = SQLState("23505")
    /// Also what an insert gets when no partition takes its row.
    public static let checkViolation = SQLState("23514")
    public static let programLimitExceeded = SQLState("54000")
    /// Baton's own (`baton.require_epochs`): the coordinator no longer holds a partition it wrote for.
    public static let partitionLost = SQLState("BT001")
}
