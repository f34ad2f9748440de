/// A shell-style pattern over bundle identifiers: `*` matches any run of characters (none included), `?` any one
/// byte, every other byte itself (case-sensitive, as identifiers are). `com.example.*`, `*.sync`, `*worker?`.
/// Pure value; any thread.
@_spi(Driver)
public struct AppPattern: Hashable, Sendable, CustomStringConvertible {
    /// The most bytes a pattern may have: a bundle identifier's limit.
    public static let byteLimit = 255

    private let bytes: [UInt8]

    /// The pattern `text`, or nil when it is empty or longer than `byteLimit` bytes.
    public init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= Self.byteLimit else { return nil }
        self.bytes = Array(text.utf8)
    }

    public var description: String { String(decoding: self.bytes, as: UTF8.self) }

    /// Whether `text` matches the whole pattern. O(pattern × text) at worst, with no allocation: on a mismatch
    /// after a `*`, the match resumes one byte further into the text from that star (the last star only).
    public func matches(_ text: String) -> Bool {
        var steps = 0
        return self.matches(text, steps: &steps)
    }

    /// Whether `text` matches the whole pattern, adding to `steps` the steps it took: at least 1, at most about
    /// (pattern bytes + 1) × (text bytes + 1), some 65,000 for two 255-byte names. A caller that compares many
    /// names in one go (a status page's slice) bounds its work by these steps, not by the names compared.
    public func matches(_ text: String, steps: inout Int) -> Bool {
        var text = text
        return text.withUTF8 { self.matches($0, steps: &steps) }
    }

    private func matches(_ text: UnsafeBufferPointer<UInt8>, steps: inout Int) -> Bool {
        let star = UInt8(ascii: "*")
        let any = UInt8(ascii: "?")
        var p = 0
        var t = 0
        var resume: (pattern: Int, text: Int)?
        var taken = 1
        defer { steps += taken }
        while t < text.count {
            taken += 1
            if p < self.bytes.count, self.bytes[p] == star {
                resume = (p + 1, t)
                p += 1
            } else if p < self.bytes.count, self.bytes[p] == any || self.bytes[p] == text[t] {
                p += 1
                t += 1
            } else if let from = resume {
                p = from.pattern
                t = from.text + 1
                resume = (from.pattern, from.text + 1)
            } else {
                return false
            }
        }
        while p < self.bytes.count, self.bytes[p] == star { p += 1 }
        return p == self.bytes.count
    }
}
