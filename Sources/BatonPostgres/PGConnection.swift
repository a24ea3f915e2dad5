import CLibPQ
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One blocking libpq connection (`PGconn`).
///
/// Thread safety: libpq forbids using a `PGconn` from two threads at once, and the
/// `OpaquePointer` is not `Sendable`. This class is `@unchecked Sendable` because
/// every access to the pointer happens while holding `lock`, an internal `NSLock`,
/// so calls never overlap even if misused. Callers should still use one connection
/// from one thread at a time: a `transaction` or a `waitForNotifications` spans
/// several locked steps (or one long one), and calls are blocking, so run them on a
/// thread of their own rather than Swift's cooperative pool.
public final class PGConnection: @unchecked Sendable {
    private let lock = NSLock()
    private var conn: OpaquePointer?
    /// Statements prepared on this connection, by their text: name.
    private var prepared: [String: String] = [:]
    /// The most statements to keep prepared; beyond it, statements run unprepared.
    static let preparedLimit = 200
    /// The largest statement (its text and parameters) sent: PostgreSQL refuses a message of 1 GB or
    /// more by dropping the connection. A larger one is refused here with SQLSTATE 54000 instead.
    public static let maxMessageBytes = (1 << 30) - (1 << 20)

    /// The network timeouts every connection gets unless its URL gives its own value (the URL wins):
    /// a connection attempt gives up after 5 s; TCP keepalives probe an idle connection after 10 s, every
    /// 5 s, and give it up after 3 unanswered probes; data unacknowledged for 30 s drops the connection.
    /// Without them a silent network drop blocks a thread for as long as the kernel retries (minutes).
    public static let defaultParameters: [(keyword: String, value: String)] = [
        ("connect_timeout", "5"), ("keepalives", "1"), ("keepalives_idle", "10"), ("keepalives_interval", "5"),
        ("keepalives_count", "3"), ("tcp_user_timeout", "30000"),
    ]

    /// Connects with a `postgresql://` URI or a `key=value` string, client encoding UTF-8, and the
    /// network timeouts of ``defaultParameters`` where the URL does not set its own.
    /// Throws a `.connection` error whose text never contains the password.
    public init(url: String) throws {
        // libpq applies the parameters in order and the last one given wins: the defaults come first, so
        // the URL (expanded in place of `dbname`) overrides them.
        let keywords = Self.defaultParameters.map(\.keyword) + ["dbname", "client_encoding"]
        let values = Self.defaultParameters.map(\.value) + [url, "UTF8"]
        let conn = withCStrings(keywords) { keywords in
            withCStrings(values) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let conn else {
            throw PostgresError(kind: .connection, message: "cannot connect to \(redactedURL(url)): out of memory")
        }
        guard PQstatus(conn) == CONNECTION_OK else {
            let reason = PostgresError.fromConnection(conn).message
            PQfinish(conn)
            let secrets = passwords(in: url)
            let target = redactMessage(redactedURL(url), secrets: secrets, patterns: false)
            let text = "cannot connect to \(target): \(redactMessage(reason, secrets: secrets))"
            throw PostgresError(kind: .connection, message: text)
        }
        // Server NOTICEs (e.g. "table does not exist, skipping") would otherwise go to stderr.
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
        self.conn = conn
    }

    deinit {
        if let conn { PQfinish(conn) }
    }

    /// True while the connection is open and healthy (`PQstatus == CONNECTION_OK`).
    public var isOpen: Bool {
        lock.withLock { conn.map { PQstatus($0) == CONNECTION_OK } ?? false }
    }

    /// The value of connection option `keyword` this connection was opened with (`connect_timeout`,
    /// `keepalives_idle`, …), or nil if it has none or is closed.
    public func option(_ keyword: String) -> String? {
        lock.withLock {
            guard let conn, let options = PQconninfo(conn) else { return nil }
            defer { PQconninfoFree(options) }
            var entry = options
            while let name = entry.pointee.keyword {
                if String(cString: name) == keyword { return entry.pointee.val.map { String(cString: $0) } }
                entry += 1
            }
            return nil
        }
    }

    /// The server process ID serving this connection (0 once closed).
    public var backendPID: Int {
        lock.withLock { conn.map { Int(PQbackendPID($0)) } ?? 0 }
    }

    /// Closes the connection. Safe to call more than once; later calls throw `.connection` errors.
    public func close() {
        lock.withLock {
            if let conn { PQfinish(conn) }
            conn = nil
        }
    }

    /// Runs one statement with text parameters `$1`, `$2`, … (nil is SQL NULL), returning text results.
    public func query(_ sql: String, _ params: [String?] = []) throws -> PGResult {
        try withConnection { conn in try Self.run(conn, sql, params) }
    }

    /// Like ``query(_:_:)``, but the statement is parsed and planned once per connection and
    /// reused by its text: for statements run over and over on a hot path. A statement whose
    /// text varies without end (more than 200 kinds) runs unprepared beyond the first 200.
    public func preparedQuery(_ sql: String, _ params: [String?] = []) throws -> PGResult {
        try withConnection { conn in
            if let name = prepared[sql] { return try Self.run(conn, sql, params, prepared: name) }
            guard prepared.count < Self.preparedLimit else { return try Self.run(conn, sql, params) }
            let name = "baton_\(prepared.count + 1)"
            guard let result = PQprepare(conn, name, sql, Int32(params.count), nil) else { throw PostgresError.fromConnection(conn) }
            defer { PQclear(result) }
            guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw PostgresError.fromResult(result, connection: conn) }
            prepared[sql] = name
            return try Self.run(conn, sql, params, prepared: name)
        }
    }

    /// Runs one statement and returns the number of rows it affected.
    @discardableResult
    public func execute(_ sql: String, _ params: [String?] = []) throws -> Int {
        try query(sql, params).affectedRows
    }

    /// Runs `body` inside BEGIN … COMMIT. If `body` throws, rolls back (ignoring a
    /// failed ROLLBACK, e.g. on a lost connection) and rethrows `body`'s error.
    /// Throws if a transaction is already open, and if COMMIT turned into a rollback
    /// because a statement failed inside `body` and `body` swallowed the error.
    @discardableResult
    public func transaction<T>(_ body: (PGConnection) throws -> T) throws -> T {
        try withConnection { conn in
            guard PQtransactionStatus(conn) == PQTRANS_IDLE else {
                throw PostgresError(kind: .invalidUsage, message: "transaction() called while a transaction is already open")
            }
            _ = try Self.run(conn, "BEGIN", [])
        }
        let value: T
        do {
            value = try body(self)
        } catch {
            _ = try? query("ROLLBACK")
            throw error
        }
        let tag = try query("COMMIT").commandTag
        guard tag == "COMMIT" else {
            throw PostgresError(kind: .query, message: "transaction was rolled back because a statement in it failed", sqlState: "25P02")
        }
        return value
    }

    /// Starts listening on `channel` (the name is quoted, so it is taken literally, case included).
    public func listen(_ channel: String) throws {
        try withConnection { conn in
            _ = try Self.run(conn, "LISTEN " + Self.quoteIdentifier(channel, conn), [])
        }
    }

    /// Stops listening on `channel`.
    public func unlisten(_ channel: String) throws {
        try withConnection { conn in
            _ = try Self.run(conn, "UNLISTEN " + Self.quoteIdentifier(channel, conn), [])
        }
    }

    /// Sends `payload` to `channel` (delivered when the surrounding transaction commits).
    public func notify(_ channel: String, payload: String) throws {
        try execute("select pg_notify($1, $2)", [channel, payload])
    }

    /// Returns notifications that have arrived, waiting up to `timeout` seconds for
    /// the first one. Returns an empty array on timeout; throws if the connection is lost.
    public func waitForNotifications(timeout: Double) throws -> [PGNotification] {
        try withConnection { conn in
            try Self.consumeInput(conn)
            var notes = Self.drainNotifications(conn)
            if !notes.isEmpty { return notes }

            let socket = PQsocket(conn)
            guard socket >= 0 else { throw PostgresError.fromConnection(conn, context: "no socket") }
            let clock = ContinuousClock()
            let seconds = timeout.isNaN ? 0 : min(max(timeout, 0), 1_000_000_000)
            let deadline = clock.now + .seconds(seconds)
            while true {
                let remaining = deadline - clock.now
                if remaining <= .zero { return [] }
                var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, Self.milliseconds(remaining))
                if ready < 0 {
                    if errno == EINTR { continue }
                    throw PostgresError(kind: .connection, message: "poll failed: \(String(cString: strerror(errno)))")
                }
                if ready == 0 { continue }
                try Self.consumeInput(conn)
                notes = Self.drainNotifications(conn)
                if !notes.isEmpty { return notes }
                if PQstatus(conn) != CONNECTION_OK { throw PostgresError.fromConnection(conn) }
            }
        }
    }

    // MARK: - Internals (all called with `lock` held)

    private func withConnection<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard let conn else { throw PostgresError(kind: .connection, message: "connection is closed") }
        return try body(conn)
    }

    /// Runs `sql`, or the statement prepared as `prepared` (whose text `sql` is).
    private static func run(_ conn: OpaquePointer, _ sql: String, _ params: [String?], prepared: String? = nil) throws -> PGResult {
        var bytes = sql.utf8.count
        for (index, param) in params.enumerated() {
            guard let param else { continue }
            if param.utf8.contains(0) {
                // The server could not take it either (a text value cannot hold NUL): the data is at fault, as
                // PostgreSQL's own 22021 says, so it fails what it belongs to rather than the caller.
                throw PostgresError(kind: .query, message: "parameter $\(index + 1) contains a NUL byte", sqlState: "22021")
            }
            bytes += param.utf8.count
        }
        if bytes > Self.maxMessageBytes {
            // The server would drop the connection ("invalid message length") and the same statement would
            // be sent again after a reconnect, for ever: the statement's data is at fault, as 54000 says.
            throw PostgresError(
                kind: .query,
                message: "the statement is \(bytes) bytes, more than the \(Self.maxMessageBytes)-byte limit of one PostgreSQL message",
                sqlState: SQLState.programLimitExceeded.rawValue)
        }
        let cParams: [UnsafeMutablePointer<CChar>?] = params.map { $0.flatMap { strdup($0) } }
        defer { for param in cParams { free(param) } }
        let result = cParams.map { $0.map { UnsafePointer($0) } }.withUnsafeBufferPointer { values in
            if let prepared { return PQexecPrepared(conn, prepared, Int32(values.count), values.baseAddress, nil, nil, 0) }
            return PQexecParams(conn, sql, Int32(values.count), nil, values.baseAddress, nil, nil, 0)
        }
        guard let result else { throw PostgresError.fromConnection(conn) }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return PGResult(copying: result)
        case PGRES_COPY_IN:
            PQputCopyEnd(conn, "COPY is not supported by PGConnection")
            drainResults(conn)
            throw PostgresError(kind: .protocolViolation, message: "COPY FROM STDIN is not supported")
        case PGRES_COPY_OUT:
            var buffer: UnsafeMutablePointer<CChar>?
            while PQgetCopyData(conn, &buffer, 0) > 0 { PQfreemem(buffer) }
            drainResults(conn)
            throw PostgresError(kind: .protocolViolation, message: "COPY TO STDOUT is not supported")
        case PGRES_BAD_RESPONSE:
            var error = PostgresError.fromResult(result, connection: conn)
            if error.kind == .query { error.kind = .protocolViolation }
            throw error
        case PGRES_FATAL_ERROR, PGRES_NONFATAL_ERROR:
            throw PostgresError.fromResult(result, connection: conn)
        default:
            let status = PQresStatus(PQresultStatus(result)).map { String(cString: $0) } ?? "unknown"
            throw PostgresError(kind: .protocolViolation, message: "unexpected result status \(status)")
        }
    }

    private static func drainResults(_ conn: OpaquePointer) {
        while let result = PQgetResult(conn) { PQclear(result) }
    }

    private static func consumeInput(_ conn: OpaquePointer) throws {
        if PQconsumeInput(conn) == 0 { throw PostgresError.fromConnection(conn) }
    }

    private static func drainNotifications(_ conn: OpaquePointer) -> [PGNotification] {
        var notes: [PGNotification] = []
        while let note = PQnotifies(conn) {
            notes.append(
                PGNotification(
                    channel: String(cString: note.pointee.relname),
                    payload: note.pointee.extra.map { String(cString: $0) } ?? "",
                    pid: Int(note.pointee.be_pid)))
            PQfreemem(note)
        }
        return notes
    }

    private static func quoteIdentifier(_ name: String, _ conn: OpaquePointer) throws -> String {
        guard !name.utf8.contains(0), let quoted = PQescapeIdentifier(conn, name, name.utf8.count) else {
            throw PostgresError(
                kind: .invalidUsage, message: "invalid identifier: \(PostgresError.fromConnection(conn, kind: .invalidUsage).message)")
        }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }

    /// `duration` in whole milliseconds, rounded up, clamped to `Int32`.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: max(millis, 0))
    }
}

/// Calls `body` with a NULL-terminated array of C strings.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
