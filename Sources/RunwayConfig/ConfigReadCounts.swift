/// What loading a configuration directory read and parsed: counted by the loader for each load (it keeps no state
/// between loads), so that the work per app file can be bounded by counting it, not timing it.
package struct ConfigReadCounts: Sendable, Equatable {
    /// Config files read: `Runway.plist` and each app file.
    package var files = 0
    /// Bytes read from them.
    package var bytes = 0
    /// Passes of `PropertyListDecoder` over them: one per good file (two for `Runway.plist`, whose operations keys
    /// are decoded apart), more for a file the decoder refuses.
    package var decodes = 0
    /// Parses by `PropertyListSerialization`: only of a file whose value is refused or that the decoder refuses.
    package var serializationParses = 0

    package init() {}

    /// Adds what was read and parsed of `file`.
    mutating func add(_ file: PlistFile) {
        self.files += 1
        self.bytes += file.data.count
        self.decodes += file.parsed.decodes
        self.serializationParses += file.parsed.serializationParses
    }
}
