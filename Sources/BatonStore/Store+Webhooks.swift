import Baton
import BatonPostgres

/// Webhooks (migration 23): stored by `baton webhook add` and the API, their deliveries written by the
/// `baton.events` trigger (the outbox) and claimed, posted and recorded by the coordinator holding
/// each delivery's partition (`BatonWebhooks.WebhookDelivery`).
extension Store {
    static let webhookColumns = """
        id, url, array_to_string(events, ',') as events, name_glob, format, extract(epoch from created_at)::float8 as created_at,
        created_by, extract(epoch from disabled_at)::float8 as disabled_at
        """

    static func webhookRow(_ r: PGResult, _ i: Int) -> WebhookRow {
        WebhookRow(
            id: r.int64(i, "id") ?? 0, url: r[row: i, column: "url"] ?? "",
            events: (r[row: i, column: "events"] ?? "").split(separator: ",").compactMap { WebhookEventType(rawValue: String($0)) },
            nameGlob: r[row: i, column: "name_glob"], format: WebhookFormat(rawValue: r[row: i, column: "format"] ?? "") ?? .json,
            createdAt: r[row: i, column: "created_at"].flatMap(Double.init) ?? 0, createdBy: r[row: i, column: "created_by"],
            disabledAt: r[row: i, column: "disabled_at"].flatMap(Double.init))
    }

    /// Stores `draft`, with its audit line in the same statement; returns it as stored.
    public func addWebhook(_ draft: WebhookDraft, audit: AuditEntry) throws -> WebhookRow {
        let r = try connection.query(
            """
            with made as (
                insert into baton.webhooks (url, events, name_glob, name_like, secret, format, created_by)
                values ($1, $2::text[], $3, $4, $5, $6, coalesce($7, $9))
                returning \(Self.webhookColumns)
            ), logged as (
                insert into baton.audit (token_name, action, target, source, status) select $7, $8, id::text, $9, 201 from made returning 1
            )
            select * from made
            """,
            [
                draft.url, PGArray.literal(draft.events.map(\.rawValue)), draft.nameGlob?.text, draft.nameGlob?.like, draft.secret,
                draft.format.rawValue, audit.tokenName, audit.action, audit.source,
            ])
        return Self.webhookRow(r, 0)
    }

    /// Every webhook, by id.
    public func webhooks() throws -> [WebhookRow] {
        let r = try connection.query("select \(Self.webhookColumns) from baton.webhooks order by id")
        return (0..<r.rowCount).map { Self.webhookRow(r, $0) }
    }

    /// The webhook `id`, or nil.
    public func webhook(id: Int64) throws -> WebhookRow? {
        let r = try connection.query("select \(Self.webhookColumns) from baton.webhooks where id = $1::bigint", [String(id)])
        return r.rowCount == 1 ? Self.webhookRow(r, 0) : nil
    }

    /// Deletes the webhook `id` with its deliveries (pending ones are never sent), audited in the same
    /// statement; false when there is none.
    public func deleteWebhook(id: Int64, audit: AuditEntry) throws -> Bool {
        let r = try connection.query(
            """
            with gone as (delete from baton.webhooks where id = $1::bigint returning id), logged as (
                insert into baton.audit (token_name, action, target, source, status) select $2, $3, id::text, $4, 204 from gone returning 1
            )
            select count(*)::int as n from gone
            """, [String(id), audit.tokenName, audit.action, audit.source])
        return r.int(0, "n") == 1
    }

    /// Deliveries, newest first: of webhook `webhookID` (nil: all), in `state` (nil: any), with ids
    /// below `before` (a page's cursor), at most `limit`, each with every attempt.
    public func deliveries(webhookID: Int64?, state: String? = nil, before: Int64? = nil, limit: Int = 50) throws -> [DeliveryRow] {
        let r = try connection.query(
            """
            select d.id, d.webhook_id, d.event_id, d.type, d.run_id::text as run_id, d.state, d.attempts,
                   extract(epoch from d.created_at)::float8 as created_at, extract(epoch from d.next_attempt_at)::float8 as next_attempt_at,
                   extract(epoch from d.delivered_at)::float8 as delivered_at, d.last_status, d.last_error,
                   coalesce((select jsonb_agg(jsonb_build_object('attempt', a.attempt, 'at', extract(epoch from a.at)::float8,
                       'status', a.status, 'error', a.error, 'duration_ms', a.duration_ms, 'coordinator', a.coordinator) order by a.attempt)
                       from baton.webhook_attempts a where a.delivery_id = d.id), '[]')::text as history
            from baton.webhook_deliveries d
            where ($1::bigint is null or d.webhook_id = $1::bigint) and ($2::text is null or d.state = $2)
              and ($3::bigint is null or d.id < $3::bigint)
            order by d.id desc limit $4::int
            """, [webhookID.map { String($0) }, state, before.map { String($0) }, String(limit)])
        return try (0..<r.rowCount).map { i in
            let history = try JSONParser.parse(r[row: i, column: "history"] ?? "[]").arrayValue ?? []
            return DeliveryRow(
                id: r.int64(i, "id") ?? 0, webhookID: r.int64(i, "webhook_id") ?? 0, eventID: r[row: i, column: "event_id"] ?? "",
                type: r[row: i, column: "type"] ?? "", runID: r[row: i, column: "run_id"], state: r[row: i, column: "state"] ?? "",
                attempts: r.int(i, "attempts") ?? 0, createdAt: r[row: i, column: "created_at"].flatMap(Double.init) ?? 0,
                nextAttemptAt: r[row: i, column: "next_attempt_at"].flatMap(Double.init),
                deliveredAt: r[row: i, column: "delivered_at"].flatMap(Double.init), lastStatus: r.int(i, "last_status"),
                lastError: r[row: i, column: "last_error"],
                history: history.map { a in
                    DeliveryRow.Attempt(
                        attempt: a["attempt"]?.intValue ?? 0, at: a["at"]?.numberValue ?? 0, status: a["status"]?.intValue,
                        error: a["error"]?.stringValue, durationMs: a["duration_ms"]?.intValue ?? 0, coordinator: a["coordinator"]?.stringValue)
                })
        }
    }

    /// Claims at most `limit` due pending deliveries of the partitions `coordinator` holds (a live
    /// lease), oldest due first, skipping rows another claimer has locked, and leases each for
    /// `lease` seconds (its `next_attempt_at` moves on, so a crash before the attempt is recorded
    /// only delays it). Deliveries of disabled webhooks are left. With the database's time.
    public func claimDeliveries(coordinator: String, limit: Int, lease: Double) throws -> (now: Double, deliveries: [ClaimedDelivery]) {
        let r = try connection.query(
            """
            with due as (
                select d.id from baton.webhook_deliveries d join baton.partitions p on p.partition = d.partition
                where d.state = 'pending' and d.next_attempt_at <= now() and p.owner = $1 and p.lease_until > now()
                order by d.next_attempt_at limit $2::int
                for update of d skip locked
            ), claimed as (
                update baton.webhook_deliveries d set next_attempt_at = now() + make_interval(secs => $3::float8)
                from due where d.id = due.id
                returning d.id, d.webhook_id, d.event_id, d.type, d.body, d.attempts, extract(epoch from d.created_at)::float8 as created_at
            )
            select c.*, w.url, w.secret, w.format, extract(epoch from now())::float8 as now
            from claimed c join baton.webhooks w on w.id = c.webhook_id and w.disabled_at is null
            order by c.id
            """, [coordinator, String(limit), String(lease)])
        let now = r.rowCount > 0 ? r[row: 0, column: "now"].flatMap(Double.init) ?? 0 : try databaseNow()
        return (
            now,
            (0..<r.rowCount).map { i in
                ClaimedDelivery(
                    id: r.int64(i, "id") ?? 0, webhookID: r.int64(i, "webhook_id") ?? 0, eventID: r[row: i, column: "event_id"] ?? "",
                    type: r[row: i, column: "type"] ?? "", body: r[row: i, column: "body"] ?? "", attempts: r.int(i, "attempts") ?? 0,
                    createdAt: r[row: i, column: "created_at"].flatMap(Double.init) ?? 0, url: r[row: i, column: "url"] ?? "",
                    secret: r[row: i, column: "secret"] ?? "", format: WebhookFormat(rawValue: r[row: i, column: "format"] ?? "") ?? .json)
            }
        )
    }

    /// Records attempt `attempt` of delivery `id` (the receiver's `status`, or nil with `error`) and
    /// what follows it (`step`), in one statement. A second record of the same attempt (two claimers
    /// across a takeover) changes nothing. False if the delivery is gone (its webhook was deleted).
    @discardableResult
    public func recordDeliveryAttempt(
        _ id: Int64, attempt: Int, status: Int?, error: String?, durationMs: Int, coordinator: String, step: DeliveryStep
    ) throws -> Bool {
        let retryAfter: Double? = if case let .retry(after) = step { after } else { nil }
        let error = error.map { String($0.replacingOccurrences(of: "\u{0}", with: "").prefix(1000)) }
        let r = try connection.query(
            """
            with tried as (
                insert into baton.webhook_attempts (delivery_id, attempt, status, error, duration_ms, coordinator)
                select id, $2::int, $3::int, $4, $5::int, $6 from baton.webhook_deliveries where id = $1::bigint and state = 'pending'
                on conflict do nothing
                returning delivery_id
            )
            update baton.webhook_deliveries d set attempts = $2::int, last_status = $3::int, last_error = $4, state = $7,
                next_attempt_at = case when $7 = 'pending' then now() + make_interval(secs => $8::float8) end,
                delivered_at = case when $7 = 'delivered' then now() end
            from tried where d.id = tried.delivery_id
            returning d.id
            """,
            [String(id), String(attempt), status.map { String($0) }, error, String(durationMs), coordinator, step.state, retryAfter.map { "\($0)" }])
        return r.rowCount == 1
    }

    /// Deletes deliveries (with their attempts) that ended, delivered or given up, more than `age`
    /// seconds after they were made; the number deleted. Pending ones stay until they end.
    @discardableResult
    public func pruneDeliveries(olderThan age: Double) throws -> Int {
        try connection.execute(
            "delete from baton.webhook_deliveries where state <> 'pending' and created_at < now() - make_interval(secs => $1::float8)",
            [String(age)])
    }
}
