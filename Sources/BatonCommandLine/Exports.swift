// `baton`'s command line is the lean one every worker binary shares, with the opt-ins (`--metrics`,
// `--otlp-endpoint`, YAML graph files) always in: one import for `baton`'s commands.
@_exported import BatonCommandLineCore
@_exported import BatonWorkerExtras
