// libFuzzer target: the config files as the daemon and `runway validate` read them. One input is a file's bytes: read
// through `PlistFile.read(path:)` (the size limit, the binary set check), then validated both as an app's Info.plist
// (`AppInfoPlist.load`) and as the daemon's Runway.plist (`RunwaySettingsPlist.load`): one `PropertyListDecoder` pass
// each, and `PropertyListSerialization` for what they refuse.
//
// Beyond "no crash": every refusal is a `ConfigError` that names the file it read, and says what it expected.

import Foundation
@testable import RunwayConfig

#if canImport(Glibc)
import Glibc
#endif

/// The file the input is written to: created once and unlinked at once, read through its /proc/self/fd path, so
/// that nothing is left behind and the read is the daemon's own, stat and all.
private let file: (descriptor: Int32, path: String) = {
    var template = Array("/tmp/runway-fuzz-config-XXXXXX".utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    precondition(descriptor >= 0, "mkstemp failed: errno \(errno)")
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return (descriptor, "/proc/self/fd/\(descriptor)")
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigPlist(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    precondition(ftruncate(file.descriptor, 0) == 0, "ftruncate failed: errno \(errno)")
    precondition(pwrite(file.descriptor, data, size, 0) == size, "pwrite failed: errno \(errno)")
    let plist: PlistFile
    do {
        plist = try PlistFile.read(path: file.path)
    } catch {
        checkRefusal(error)
        return 0
    }
    do {
        _ = try AppInfoPlist.load(plist)
    } catch {
        checkRefusal(error)
    }
    do {
        _ = try RunwaySettingsPlist.load(plist)
    } catch {
        checkRefusal(error)
    }
    return 0
}

private func checkRefusal(_ error: ConfigError) {
    precondition(error.file == file.path, "refusal names \(error.file), not the file read: \(error)")
    precondition(!error.expected.isEmpty, "refusal without what was expected: \(error)")
    _ = error.description
}
