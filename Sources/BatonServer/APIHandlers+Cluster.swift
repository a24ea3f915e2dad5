import Baton
import BatonDemo
import BatonStore
import Hummingbird

/// The cluster as the CLI's `procedures`, `workers` and `coordinators --json` show it (read scope).
extension APIHandlers {
    /// `GET /api/v1/procedures`: the procedures live workers serve, with their input and output schemas.
    func listProcedures(_ request: Request) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            let workers = try await pool.run { try $0.liveWorkers() }
            let schemas = Store.inputSchemas(of: workers, over: .demo)
            let names = Set(workers.flatMap(\.procedures)).sorted()
            let procedures = names.map { name -> JSON in
                ["name": .string(name), "input": schemas[name]?.input.json ?? .null, "output": schemas[name]?.output.json ?? .null]
            }
            return (200, ["procedures": .array(procedures)])
        }
    }

    /// `GET /api/v1/workers?within=S`: the workers heard from within S seconds (default 10).
    func listWorkers(_ request: Request) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            var within = 10.0
            if let text = request.uri.queryParameters.get("within") {
                guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
                    throw APIError.badRequest("within: '\(text)' is not a number of seconds from 0 to 86400")
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
            return (200, ["coordinators": try JSON(encoding: coordinators), "partitions": .int(Int64(partitions))])
        }
    }
}
