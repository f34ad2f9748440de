/// The content of a supervisor's state file (`ProcessOptions.stateFile`): who wrote it and every process it
/// was tracking, so that a restarted daemon can end what a killed predecessor left (Docs/Security.md).
///
/// JSON lines: a header `{"format":"runway-process-state","version":1,"boot":B,"pid":P,"start":S}` naming the
/// boot and the writing process, then one `{"pid":P,"start":S,"app":A}` per tracked process. Pure values:
/// reading and writing the file is `ProcessStateFile`'s.
struct ProcessStateSnapshot: Hashable, Sendable {
    /// One tracked process and the app it belongs to ("" when unattributed).
    struct Entry: Hashable, Sendable {
        var process: ProcessIdentity
        var app: String
    }

    static let format = "runway-process-state"
    static let version: UInt64 = 1

    /// `/proc/sys/kernel/random/boot_id` when written: start times mean nothing in another boot.
    var bootID: String
    /// The process that wrote the file (the daemon).
    var owner: ProcessIdentity
    var entries: [Entry]

    /// The file's text: the header line, then the entries sorted by pid, each line ending in a newline.
    func encoded() -> String {
        var lines = [
            FlatJSON.encode([
                ("format", .string(Self.format)), ("version", .number(Self.version)), ("boot", .string(self.bootID)),
                ("pid", .number(UInt64(self.owner.pid))), ("start", .number(self.owner.startTime)),
            ])
        ]
        for entry in self.entries.sorted(by: { $0.process.pid < $1.process.pid }) {
            lines.append(
                FlatJSON.encode([
                    ("pid", .number(UInt64(entry.process.pid))), ("start", .number(entry.process.startTime)),
                    ("app", .string(entry.app)),
                ])
            )
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// Parses `encoded()`'s text. Returns nil when the header is missing or of another format or version; an
    /// entry line that does not parse is skipped (a torn file cannot exist: it is replaced by rename).
    static func decode(_ text: String) -> ProcessStateSnapshot? {
        var lines = text.split(separator: "\n")[...]
        guard let first = lines.popFirst(), let header = FlatJSON.decode(first),
            header["format"] == .string(Self.format), header["version"] == .number(Self.version),
            case .string(let boot)? = header["boot"], let owner = Self.identity(header)
        else { return nil }
        let entries = lines.compactMap { line -> Entry? in
            guard let fields = FlatJSON.decode(line), let process = Self.identity(fields) else { return nil }
            guard case .string(let app)? = fields["app"] else { return Entry(process: process, app: "") }
            return Entry(process: process, app: app)
        }
        return ProcessStateSnapshot(bootID: boot, owner: owner, entries: entries)
    }

    private static func identity(_ fields: [String: FlatJSON.Value]) -> ProcessIdentity? {
        guard case .number(let pid)? = fields["pid"], case .number(let start)? = fields["start"],
            pid > 0, let pid32 = Int32(exactly: pid)
        else { return nil }
        return ProcessIdentity(pid: pid32, startTime: start)
    }
}
