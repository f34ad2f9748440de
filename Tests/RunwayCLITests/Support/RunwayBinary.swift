import Foundation
import RunwayTestKit
import Testing

// Helpers for the end-to-end tests: find the built `runway` executable, run it, and make throwaway
// configuration directories.

/// What one run of `runway` produced.
struct RunResult: CustomStringConvertible {
    var arguments: [String]
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutData: Data

    var stdoutLines: [String] {
        var lines = self.stdout.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Shown in failure messages so that a failing expectation says what the command printed.
    var description: String {
        "runway \(self.arguments.joined(separator: " ")) exited \(self.status)\n"
            + "--- stdout ---\n\(self.stdout)--- stderr ---\n\(self.stderr)--------------"
    }
}

struct RunwayBinaryError: Error, CustomStringConvertible {
    var description: String
}

enum RunwayBinary {
    /// The repository root: this file is `<root>/Tests/RunwayCLITests/Support/RunwayBinary.swift`.
    static func repositoryRoot() -> URL {
        // `#filePath` in the body names this file (as a default argument it would name the caller's).
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // RunwayBinary.swift
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // RunwayCLITests
            .deletingLastPathComponent()  // Tests
    }

    /// `<root>/Config`, the shipped configuration.
    static var shippedConfig: String {
        self.repositoryRoot().appendingPathComponent("Config").path
    }

    /// Directories where the build puts the test bundle, and so the `runway` executable next to it:
    /// SwiftPM builds every product of a package into the same `.build/<triple>/debug` folder.
    private static func candidateDirectories() -> [URL] {
        var directories: [URL] = []
        // On Linux the test bundle is an executable (`…/debug/RunwayPackageTests.xctest`) and Bundle.main's
        // URL is its folder; on macOS it is a bundle folder (`…/debug/X.xctest/Contents/MacOS/X`).
        let bundleURL = Bundle.main.bundleURL
        directories.append(bundleURL)
        directories.append(bundleURL.deletingLastPathComponent())
        if let argument0 = CommandLine.arguments.first, !argument0.isEmpty {
            var url = URL(fileURLWithPath: argument0).standardizedFileURL
            directories.append(url.deletingLastPathComponent())
            // Climb out of an `.xctest` bundle folder, if there is one.
            while url.pathComponents.count > 1 {
                if url.pathExtension == "xctest" {
                    directories.append(url.deletingLastPathComponent())
                    break
                }
                url = url.deletingLastPathComponent()
            }
        }
        return directories
    }

    /// The `runway` executable built next to the running test bundle.
    static func executable() throws -> URL {
        var tried: [String] = []
        for directory in self.candidateDirectories() {
            let candidate = directory.appendingPathComponent("runway")
            if tried.contains(candidate.path) { continue }
            tried.append(candidate.path)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: candidate.path)
            {
                return candidate
            }
        }
        throw RunwayBinaryError(
            description: """
                runway executable not found next to the test bundle. Build it with \
                `swift build` (swift test builds it, since RunwayCLITests depends on \
                RunwayCLI). Tried: \(tried.joined(separator: ", ")) \
                (Bundle.main.bundleURL = \(Bundle.main.bundleURL.path), \
                CommandLine.arguments[0] = \(CommandLine.arguments.first ?? "none"))
                """
        )
    }

    /// The built `runway` at a path any user can run: a hard link (a copy across file systems) in a directory of
    /// its own under /tmp (mode 0755), made once per test process and removed when it exits. Tests that run
    /// `runway` as another user (uid 65534, through setpriv) use it, because the build folder may sit below a
    /// directory only its owner can enter (a clone in a `mktemp -d` directory, mode 0700), where that user's exec
    /// fails with exit 126.
    static func executableForOtherUsers() throws -> URL {
        try self.sharedLink.get()
    }

    private static let sharedLinkDirectory = "/tmp/runway-cli-tests-bin-\(getpid())-\(UUID().uuidString.prefix(8))"

    private static let sharedLink = Result { () throws -> URL in
        let source = try RunwayBinary.executable()
        let directory = RunwayBinary.sharedLinkDirectory
        guard mkdir(directory, 0o755) == 0, chmod(directory, 0o755) == 0 else {
            throw RunwayBinaryError(description: "mkdir \(directory) failed: errno \(errno)")
        }
        atexit { _ = try? FileManager.default.removeItem(atPath: RunwayBinary.sharedLinkDirectory) }
        let link = directory + "/runway"
        if Foundation.link(source.path, link) != 0 {
            try FileManager.default.copyItem(atPath: source.path, toPath: link)
            guard chmod(link, 0o755) == 0 else {
                throw RunwayBinaryError(description: "chmod of \(link) failed: errno \(errno)")
            }
        }
        return URL(fileURLWithPath: link)
    }

    /// Runs `runway` with `arguments` and waits for it to exit. Output goes to temporary files rather than
    /// pipes, so a chatty child can never block on a full pipe while the test waits for it.
    ///
    /// - Parameter launcher: A program and its arguments that run `runway` (for example `setpriv` dropping a
    ///   capability); empty runs it directly.
    static func run(_ arguments: [String], launcher: [String] = []) throws -> RunResult {
        let executable = try self.executable()
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("runway-cli-tests-output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)

        let process = Process()
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = Array(launcher.dropFirst()) + [executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.currentDirectoryURL = self.repositoryRoot()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle
        try process.run()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()

        let outData = try Data(contentsOf: outURL)
        let errData = try Data(contentsOf: errURL)
        return RunResult(
            arguments: arguments,
            status: process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self),
            stdoutData: outData
        )
    }

    static func run(_ arguments: String...) throws -> RunResult {
        try self.run(arguments)
    }

    /// One JSON error line on standard output, nothing on standard error, the same exit status as without --json.
    static func jsonError(_ result: RunResult) throws -> (code: String, message: String, suggestions: [String]?) {
        #expect(result.stderr.isEmpty, "\(result)")
        #expect(result.stdoutLines.count == 1, "\(result)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            "\(result)"
        )
        #expect(object["ok"] as? Bool == false, "\(result)")
        #expect(object["v"] as? Int == 1, "\(result)")
        let error = try #require(object["error"] as? [String: Any], "\(result)")
        return (
            try #require(error["code"] as? String), try #require(error["message"] as? String),
            error["suggestions"] as? [String]
        )
    }
}

extension TemporaryConfig {
    /// Writes `Apps/<fileName>` holding an XML property list whose root dictionary has `CFBundleIdentifier`
    /// and the extra XML `keys`.
    @discardableResult
    func writeApp(_ fileName: String, identifier: String, _ keys: String = "") throws -> String {
        try self.write(
            "Apps/" + fileName,
            plistXML("<key>CFBundleIdentifier</key><string>\(identifier)</string>\n" + keys)
        )
    }
}

/// Reads a top-level value of a shipped plist with Foundation directly (not through RunwayConfig), so the demo
/// test can check that the config still holds the values its expected instants were derived from.
func shippedPlistNumber(_ relativePath: String, _ key: String) throws -> Double? {
    let url = RunwayBinary.repositoryRoot().appendingPathComponent("Config").appendingPathComponent(relativePath)
    let data = try Data(contentsOf: url)
    let root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    guard let dictionary = root as? [String: Any] else { return nil }
    return (dictionary[key] as? NSNumber)?.doubleValue
}
