import BatonPostgres

extension Store {
    /// The role that owns Baton's tables (the one that ran `baton migrate`).
    public func schemaOwner() throws -> String {
        let r = try connection.query("select tableowner from pg_tables where schemaname = 'baton' and tablename = 'runs'")
        guard r.rowCount == 1, let owner = r[row: 0, column: "tableowner"] else {
            throw StoreError("the database has no Baton schema: run `baton migrate`")
        }
        return owner
    }
}
