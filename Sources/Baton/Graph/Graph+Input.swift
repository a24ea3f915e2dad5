extension Graph {
    /// The run's input: the graph's `input` defaults with the run's given input merged over them
    /// (`{}` when there is neither). `$input` references were replaced with parts of it when decoding.
    public var input: JSON { source["input"] ?? .object(JSONObject()) }
}
