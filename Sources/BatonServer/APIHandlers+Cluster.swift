import Baton
import BatonDemo
import BatonStore
import Hummingbird

/// The cluster as the CLI's `procedures`, `workers` and `coordinators --json` show it (read scope).
extension APIHandlers {
    /// `GET /api/v1/procedures`: each version of the procedures live workers serve or unfinished runs
    /// need, with its input and output schemas, whether it is served and how many unfinished runs need it.
    func listProcedures(_ request: Request) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            let (workers, unfinished) = try await pool.run { store in (try store.liveWorkers(), try store.unfinishedRunsByProcedure()) }
            let schemas = Store.inputSchemas(of: workers, over: .demo)
            let rows = ProcedureVersionRow.rows(workers: workers, schemas: schemas, unfinished: unfinished)
            return (200, ["procedures": .array(rows.map(\.json))])
        }
    }

    /// `GET /api/v1/workers?within=S`: the workers heard from within S seconds (default 10).
    func listWorkers(_ request: Request) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            var within = 10.0
            if let text = request.uri.queryParameters.get("within") {
                guard let seconds = Self.within(text) else {
                    throw APIError.badRequest("within: '\(text)' is not a duration such as 500ms, 30s, 5m or 2h, or a number of seconds")
                }
                within = seconds
            }
            let workers = try await pool.run { [within] in try $0.liveWorkers(within: within) }
            return (200, ["workers": try JSON(encoding: workers)])
        }
    }

    /// `GET /api/v1/coordinators`: the live coordinators and the schema's partition count.
    func listCoordinators(_ request: Request) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            let (coordinators, partitions) = try await pool.run { store in (try store.coordinators(), try store.partitionCount()) }
            // As `baton coordinators` counts them: the partitions the live coordinators hold.
            let held = coordinators.reduce(0) { $0 + $1.partitions.count }
            return (
                200, ["coordinators": try JSON(encoding: coordinators), "partitions": .int(Int64(partitions)), "held": .int(Int64(held))]
            )
        }
    }

    /// `?within=` as the document gives it: 1 to 5 digits, no leading zero, then `ms`, `s`, `m`, `h` or
    /// nothing (seconds, as `--within` takes them); in seconds.
    static func within(_ text: String) -> Double? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        let (unit, scale) = units.first(where: { text.hasSuffix($0.0) }) ?? ("", 1)
        let digits = text.dropLast(unit.count)
        guard (1...5).contains(digits.count), digits.first != "0", digits.allSatisfy({ ("0"..."9").contains($0) }), let number = Double(digits)
        else { return nil }
        return number * scale
    }
}
