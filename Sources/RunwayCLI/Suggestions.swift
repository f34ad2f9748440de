/// "Did you mean": close matches of a mistyped subcommand or app identifier, by edit distance.
///
/// Pure functions, no state; any thread.
enum Suggestions {
    /// The candidates closest to `input`, at most three, best first, ties in the candidates' order: those at the
    /// smallest optimal-string-alignment distance (insertions, deletions, substitutions and transpositions of two
    /// neighbours count one each, compared ignoring case), when that distance is at most
    /// `max(2, input.count / 5)`. An exact match, or nothing close enough, gives no suggestion.
    static func closest(to input: String, among candidates: [String]) -> [String] {
        let limit = max(2, input.count / 5)
        let needle = Array(input.lowercased())
        var best = Int.max
        var matches: [String] = []
        for candidate in candidates where candidate != input {
            let distance = Self.distance(needle, Array(candidate.lowercased()))
            guard distance <= limit else { continue }
            if distance < best {
                best = distance
                matches = [candidate]
            } else if distance == best {
                matches.append(candidate)
            }
        }
        return Array(matches.prefix(3))
    }

    /// `; did you mean 'a'?` or `; did you mean 'a' or 'b'?`, or the empty string.
    static func sentence(_ suggestions: [String]) -> String {
        guard !suggestions.isEmpty else { return "" }
        return "; did you mean " + suggestions.map { "'\($0)'" }.joined(separator: " or ") + "?"
    }

    /// Optimal string alignment distance between `a` and `b`: O(a.count x b.count) time, three rows of memory.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
