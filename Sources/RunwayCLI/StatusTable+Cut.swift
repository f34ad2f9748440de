extension StatusTable {
    /// The widest STATE cell of the table, in characters: a state with a long termination reason (a
    /// `spawnFailed(...)` message, say) is cut to it with `…`, so that one reason cannot push the other columns off
    /// the screen. `runway status --json` has the reasons whole. Documented in `runway status --help` and README.
    static let stateWidth = 60

    /// `text` when it has at most `width` characters, else its first `width - 1` characters and `…`.
    static func cut(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        return String(text.prefix(max(0, width - 1))) + "…"
    }
}
