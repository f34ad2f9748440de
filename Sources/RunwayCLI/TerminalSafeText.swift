/// Text that came from an app (its output lines, its background task names), made safe to print on an operator's
/// terminal: every control character but the tab (C0, DEL and C1: U+0000 to U+001F, U+007F, U+0080 to U+009F)
/// is shown as `\xHH`. An app that prints `ESC ]` or `ESC [` sequences cannot then retitle the operator's
/// terminal, move its cursor, hide text or send it input; a carriage return cannot overwrite the stamp of its own
/// line. Other characters, invalid UTF-8 already replaced by U+FFFD, print as they are. `--json` output is never
/// changed: JSON escapes control characters itself, so programs get the text exactly.
///
/// A pure function: any thread, no clock.
func terminalSafe(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
        if isUnsafe(scalar) {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            result += "\\x" + (hex.count < 2 ? "0" + hex : hex)
        } else {
            result.unicodeScalars.append(scalar)
        }
    }
    return result
}

/// A control character other than the tab.
private func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
}
