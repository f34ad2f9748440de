import Foundation
import RunwayCore

/// One app's preserved state as stored (Behaviour.md R1): the blob, the `RunwayStateVersion` it was preserved
/// under, how the run that preserved it ended (nil: not recorded, the run was still going when the daemon died)
/// and the boot it was preserved in. A value; any thread.
package struct PreservedState: Hashable, Sendable {
    /// The app's bundle identifier.
    package var app: String
    /// The opaque blob the app handed over.
    package var state: [UInt8]
    /// The app's `RunwayStateVersion` when it preserved the blob, or nil.
    package var versionKey: String?
    /// How the run that preserved it ended; nil while that run goes on, or when the daemon died before it ended.
    package var ending: RunEnding?
    /// `/proc/sys/kernel/random/boot_id` when it was preserved, or nil when it could not be read.
    package var bootID: String?

    package init(app: String, state: [UInt8], versionKey: String?, ending: RunEnding? = nil, bootID: String? = nil) {
        self.app = app
        self.state = state
        self.versionKey = versionKey
        self.ending = ending
        self.bootID = bootID
    }
}

/// Why a preserved state was not stored, loaded or imported. `description` names what is wrong, and the limit's
/// key when it is the limit.
package struct PreservedStateError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Code: String, Hashable, Sendable {
        /// Larger than `StateRestorationByteLimit`.
        case stateTooLarge
        /// Not a preserved state of this format (bad magic, version, header or length).
        case malformed
        /// The checksum does not match: torn or changed.
        case badChecksum
        /// The export names another app.
        case wrongApp
        /// The export was preserved under another `RunwayStateVersion` than the app has now (R5).
        case wrongVersion
        /// There is no preserved state for the app.
        case noState
        /// The file is not a private regular file of this user (a symbolic link, another owner, writable by others).
        case untrusted
        /// An export whose run ended in a way that discards its state (R3): it would never be restored.
        case notRestorable
        /// An export whose state is not UTF-8 text, the only state an app can preserve over the app protocol.
        case notText
        /// A file system call failed.
        case io
    }

    package var code: Code
    package var description: String

    package init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// The refusal of a blob over the limit, naming the key and its value.
    package static func tooLarge(app: String, bytes: Int, limit: Int) -> Self {
        Self(
            .stateTooLarge,
            "the state of \(app) is \(bytes) bytes, more than StateRestorationByteLimit (\(limit) bytes, "
                + "Runway.plist); the stored state stays as it was"
        )
    }
}

/// The bytes of a preserved state, on disk and in an export (the same self-describing layout):
/// `RWST`, a format version byte, the header's length (4 bytes, little-endian), the header (JSON: app, version key,
/// ending, boot id, blob length), the blob, and a 64-bit checksum of everything before it (8 bytes,
/// little-endian; `checksum`). A truncated, torn or changed file fails the length or the checksum and is never
/// returned.
/// Stateless; any thread.
package enum PreservedStateFormat {
    static let magic: [UInt8] = Array("RWST".utf8)
    static let version: UInt8 = 1
    /// The header holds a bundle identifier, a version key and two short strings.
    static let headerByteLimit = 8_192

    private struct Header: Codable {
        var app: String
        var versionKey: String?
        var ending: String?
        var bootID: String?
        var stateBytes: Int
    }

    /// Encodes `state`.
    package static func encode(_ state: PreservedState) -> [UInt8] {
        let header = Header(
            app: state.app,
            versionKey: state.versionKey,
            ending: state.ending?.rawValue,
            bootID: state.bootID,
            stateBytes: state.state.count
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Strings and an integer only: encoding cannot fail.
        guard let json = try? encoder.encode(header) else { preconditionFailure("Encoding the header failed") }
        var bytes = Self.magic + [Self.version]
        bytes.reserveCapacity(17 + json.count + state.state.count)
        Self.append(UInt64(json.count), bytes: 4, to: &bytes)
        bytes.append(contentsOf: json)
        bytes.append(contentsOf: state.state)
        Self.append(Self.checksum(bytes[...]), bytes: 8, to: &bytes)
        return bytes
    }

    /// Decodes `bytes`, checking the layout, the lengths and the checksum.
    ///
    /// - Parameters:
    ///   - byteLimit: The largest blob accepted (`StateRestorationByteLimit`).
    /// - Throws: `PreservedStateError` naming what is wrong.
    package static func decode(_ bytes: [UInt8], byteLimit: Int) throws(PreservedStateError) -> PreservedState {
        guard bytes.count >= 17, Array(bytes[0..<4]) == Self.magic else {
            throw PreservedStateError(.malformed, "not a Runway preserved state (no RWST header)")
        }
        guard bytes[4] == Self.version else {
            throw PreservedStateError(.malformed, "format version \(bytes[4]), expected \(Self.version)")
        }
        let headerLength = Int(Self.read(bytes, at: 5, count: 4))
        guard headerLength <= Self.headerByteLimit, 9 + headerLength + 8 <= bytes.count else {
            throw PreservedStateError(.malformed, "truncated: the header runs past the end")
        }
        let stored = Self.read(bytes, at: bytes.count - 8, count: 8)
        guard stored == Self.checksum(bytes[0..<(bytes.count - 8)]) else {
            throw PreservedStateError(.badChecksum, "the checksum does not match: torn, truncated or changed")
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(bytes[9..<(9 + headerLength)])) else {
            throw PreservedStateError(.malformed, "the header is not readable")
        }
        guard header.stateBytes == bytes.count - 9 - headerLength - 8 else {
            throw PreservedStateError(
                .malformed,
                "the blob is \(bytes.count - 17 - headerLength) bytes, "
                    + "the header says \(header.stateBytes)"
            )
        }
        guard header.stateBytes <= byteLimit else {
            throw PreservedStateError.tooLarge(app: header.app, bytes: header.stateBytes, limit: byteLimit)
        }
        var ending: RunEnding?
        if let name = header.ending {
            guard let known = RunEnding(rawValue: name) else {
                throw PreservedStateError(.malformed, "the header's ending '\(name)' is unknown")
            }
            ending = known
        }
        return PreservedState(
            app: header.app,
            state: Array(bytes[(9 + headerLength)..<(bytes.count - 8)]),
            versionKey: header.versionKey,
            ending: ending,
            bootID: header.bootID
        )
    }

    /// FNV-1a over 64-bit little-endian words, then the bytes left: detects a torn or truncated write (not a
    /// defence against a forger: the files are the daemon's own, mode 0600 in a 0700 directory, and an import is an
    /// operator's act). Words, not bytes: the loop thread checks a restored state, and a byte loop over 1 MiB took
    /// 60 ms in a debug build.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.withUnsafeBytes { raw in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            let words = raw.count / 8
            var index = 0
            while index < words {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
                hash = (hash ^ word) &* 0x100_0000_01b3
                index += 1
            }
            var offset = words * 8
            while offset < raw.count {
                hash = (hash ^ UInt64(raw[offset])) &* 0x100_0000_01b3
                offset += 1
            }
            return hash
        }
    }

    private static func append(_ value: UInt64, bytes count: Int, to bytes: inout [UInt8]) {
        for shift in 0..<count { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(shift)))) }
    }

    private static func read(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<count { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        return value
    }
}
