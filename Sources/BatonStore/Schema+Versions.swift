extension Schema {
    /// Migration 27, procedure versions (docs/graph-format.md, "Versions"): the version of its procedure
    /// each node was planned on (`procedure` holds the routed name, `acme.greet@2`; 1 for a plain name),
    /// so `baton procedures` counts the unfinished runs that still need each version.
    static let versions: [String] = [
        "alter table baton.nodes add column if not exists version int not null default 1"
    ]
}
