import ArgumentParser

/// `--json` for machine-readable output.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print machine-readable JSON.")
    var json = false
}
