import Baton

/// Limits from the `BATON_MAX_*` environment variables, with a bad value as a usage error.
enum Limits {
    static func fromEnvironment() throws -> GraphLimits {
        do { return try GraphLimits.fromEnvironment() } catch { throw CLIFailure("\(error)", exitCode: 2) }
    }
}
