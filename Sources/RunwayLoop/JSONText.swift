/// JSON string literals (RFC 8259) without Foundation, for the process state file (`FlatJSON`) and the daemon's
/// JSON log lines. Pure; any thread.
package enum JSONText {
    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped (`\n`, `\r`, `\t` by
    /// their short forms, the others as `\u00XX`); everything else as it is.
    package static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
