import Foundation

// The shell blocks of a Markdown file, for the test that runs the documents' commands (DocumentedCommandsTests).
// A block is a fenced code block whose language is a shell's. A block that cannot be run against a scratch daemon
// (it installs into the system, builds the package, needs systemd) says so on the line right before its fence:
//
//     <!-- illustrative: installs into the system and starts a systemd service -->
//
// with a reason; every other `sh`, `bash` or `shell` block is run. A `console` or `zsh` block (prompts, or
// another shell) cannot be run as written and must be marked.

/// One fenced shell block of a Markdown file.
struct DocCommandBlock: CustomStringConvertible {
    /// The file, as given to `DocCommandBlocks.parse`.
    var file: String
    /// The line of the opening fence, from 1.
    var line: Int
    /// The fence's language (`sh`, `bash`, ...).
    var language: String
    /// The lines between the fences.
    var text: String
    /// The marker's text after `illustrative:` (trimmed; empty when the marker gives no reason), nil when unmarked.
    var illustrative: String?

    var description: String { "\(self.file):\(self.line)" }
}

enum DocCommandBlocks {
    /// Fence languages that are shell commands.
    static let shellLanguages: Set<String> = ["sh", "bash", "shell", "console", "zsh"]
    /// The ones the test runs (with bash) when unmarked.
    static let runnableLanguages: Set<String> = ["sh", "bash", "shell"]

    /// The shell blocks of `markdown`, in order. Fences may be indented (in a list item); other blocks are skipped.
    static func parse(_ markdown: String, file: String) -> [DocCommandBlock] {
        let lines = markdown.components(separatedBy: "\n")
        var blocks: [DocCommandBlock] = []
        var index = 0
        while index < lines.count {
            let fence = lines[index].trimmingCharacters(in: .whitespaces)
            guard fence.hasPrefix("```") else {
                index += 1
                continue
            }
            let language = String(fence.dropFirst(3)).trimmingCharacters(in: .whitespaces).lowercased()
            var end = index + 1
            while end < lines.count, lines[end].trimmingCharacters(in: .whitespaces) != "```" { end += 1 }
            if self.shellLanguages.contains(language) {
                blocks.append(
                    DocCommandBlock(
                        file: file,
                        line: index + 1,
                        language: language,
                        text: lines[(index + 1)..<min(end, lines.count)].joined(separator: "\n"),
                        illustrative: index > 0 ? self.marker(lines[index - 1]) : nil
                    )
                )
            }
            index = end + 1
        }
        return blocks
    }

    /// The reason of `<!-- illustrative: REASON -->`, nil when `line` is not that marker.
    static func marker(_ line: String) -> String? {
        let text = line.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("<!--"), text.hasSuffix("-->") else { return nil }
        let body = text.dropFirst(4).dropLast(3).trimmingCharacters(in: .whitespaces)
        guard body.hasPrefix("illustrative") else { return nil }
        let rest = body.dropFirst("illustrative".count)
        guard rest.isEmpty || rest.hasPrefix(":") else { return nil }
        return rest.dropFirst().trimmingCharacters(in: .whitespaces)
    }

    /// Why `block` fails the check before anything is run: a marker without a reason, or a shell the test cannot
    /// run that is not marked. Nil when it is marked with a reason or is to be run.
    static func problem(_ block: DocCommandBlock) -> String? {
        if let reason = block.illustrative {
            return reason.isEmpty ? "\(block): marked illustrative without a reason" : nil
        }
        guard self.runnableLanguages.contains(block.language) else {
            return "\(block): a `\(block.language)` block is neither run (sh, bash, shell) nor marked "
                + "<!-- illustrative: REASON -->"
        }
        return nil
    }
}
