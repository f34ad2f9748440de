import Foundation

extension String {
    /// The text with XML's five special characters escaped, for a plist `<string>`.
    var xmlEscaped: String {
        self.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&apos;")
    }
}
