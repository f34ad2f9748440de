/// One cell of the status table and how far it may be abbreviated to fit a width (Decision 281). Widths are
/// counted in characters. Pure values; any thread.
enum StatusCell: Equatable {
    /// Never cut: numbers, times, the header.
    case fixed(String)
    /// A bundle identifier: cut keeping its end, where identifiers that share a prefix differ
    /// (`…example.uploader`), to no fewer than `StatusCell.nameMinimum` characters.
    case name(String)
    /// A state word that is never cut (`notRunning`, `terminating`, `crash-looping`, ...) and the detail after it in
    /// parentheses (a termination reason, a pending restart), which is cut with `…` and left out when not even
    /// `(…)` fits.
    case state(String, detail: String?)
    /// Background tasks as `#id name (age)`: as many as fit, the rest counted (`+N more`); at the narrowest, the
    /// count alone (`1000 tasks`). `total` counts the tasks the daemon did not list as well.
    case tasks([Task], total: Int)

    struct Task: Equatable {
        var id: UInt64
        var name: String
        var age: String
    }

    /// The narrowest a name is cut to: 12 characters.
    static let nameMinimum = 12

    /// The cell whole.
    var text: String {
        switch self {
        case .fixed(let text), .name(let text): return text
        case .state(let head, let detail): return detail.map { "\(head) (\($0))" } ?? head
        case .tasks(let tasks, let total): return Self.taskList(tasks, shown: tasks.count, total: total)
        }
    }

    /// The fewest characters the cell can be cut to.
    var minimum: Int {
        switch self {
        case .fixed(let text): return text.count
        case .name(let text): return min(text.count, Self.nameMinimum)
        case .state(let head, _): return head.count
        case .tasks(let tasks, let total): return tasks.isEmpty && total == 0 ? 1 : Self.count(total).count
        }
    }

    /// The cell in at most `width` characters, or in `minimum` when that is more.
    func fitted(to width: Int) -> String {
        let whole = self.text
        guard whole.count > width else { return whole }
        switch self {
        case .fixed(let text):
            return text
        case .name(let text):
            let kept = max(width, self.minimum) - 1
            return "…" + text.suffix(kept)
        case .state(let head, let detail):
            // `head (…)`: the head, a space, the parentheses and at least one character of the detail.
            guard detail != nil, width >= head.count + 4 else { return head }
            return String(whole.prefix(width - 2)) + "…)"
        case .tasks(let tasks, let total):
            return Self.fittedTasks(tasks, total: total, width: width)
        }
    }

    /// The first tasks that fit with `+N more` for the rest; then the first task with its name cut; then the count.
    private static func fittedTasks(_ tasks: [Task], total: Int, width: Int) -> String {
        for shown in stride(from: tasks.count - 1, through: 1, by: -1) {
            let text = Self.taskList(tasks, shown: shown, total: total)
            if text.count <= width { return text }
        }
        if let first = tasks.first {
            let rest = total > 1 ? ", +\(total - 1) more" : ""
            let frame = "#\(first.id)  (\(first.age))\(rest)".count
            // At least three characters of the name before its `…`.
            if width - frame >= 4 {
                let name = String(first.name.prefix(width - frame - 1)) + "…"
                return "#\(first.id) \(name) (\(first.age))\(rest)"
            }
        }
        return Self.count(total)
    }

    private static func taskList(_ tasks: [Task], shown: Int, total: Int) -> String {
        var cells = tasks.prefix(shown).map { "#\($0.id) \($0.name) (\($0.age))" }
        if total > shown { cells.append("+\(total - shown) more") }
        return cells.isEmpty ? "-" : cells.joined(separator: ", ")
    }

    private static func count(_ total: Int) -> String {
        total == 1 ? "1 task" : "\(total) tasks"
    }
}
