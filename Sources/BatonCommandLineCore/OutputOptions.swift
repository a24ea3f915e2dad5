import ArgumentParser

/// `--json` for machine-readable output.
public struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print machine-readable JSON.")
    public var json = false

    public init() {}
}
