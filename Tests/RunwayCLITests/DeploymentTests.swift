import Foundation
import RunwayTestKit
import Testing

/// Deploy/ and `make install` (Docs/Deployment.md): the unit as systemd itself reads it, the Kubernetes manifest
/// as YAML, and both configurations as the real `runway validate` reads them.
@Suite(.serialized) struct DeploymentTests {
    /// Runs `program arguments` from the repository root; standard output and error together.
    static func shell(
        _ program: String,
        _ arguments: [String],
        environment: [String: String] = [:]
    ) throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        process.currentDirectoryURL = RunwayBinary.repositoryRoot()
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("runway-deploy-\(UUID())")
        try Data().write(to: output)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    /// A tool of Debian's that CI installs (.ci/run): its path, or nil with a visible note outside CI.
    static func tool(_ name: String, package: String) -> String? {
        if let path = ["/usr/bin/", "/bin/", "/usr/local/bin/"].map({ $0 + name })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        {
            return path
        }
        #expect((ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty, "\(name) is missing in CI (\(package))")
        print("note: \(name) is not installed (Debian package \(package)); its check is skipped")
        return nil
    }

    @Test func makeInstallPutsTheBinaryTheUnitAndASampleConfigUnderThePrefix() throws {
        let root = try TemporaryConfig()
        defer { root.remove() }
        let prefix = root.path + "/prefix"
        let binary = try RunwayBinary.executable().path
        var run = try Self.shell(
            "make",
            ["--no-print-directory", "install", "PREFIX=\(prefix)", "RUNWAY_BINARY=\(binary)"]
        )
        #expect(run.status == 0, "\(run.output)")
        let unit = try String(contentsOfFile: prefix + "/lib/systemd/system/runway.service", encoding: .utf8)
        // The history goes to StateDirectory= (kept by systemd), not the default /run/runway (removed at each stop).
        #expect(
            unit.contains(
                "\nExecStart=\(prefix)/bin/runway run --config \(prefix)/etc/runway --state-directory /var/lib/runway\n"
            ),
            "\(unit)"
        )
        #expect(unit.contains("\nStateDirectory=runway\n"), "\(unit)")
        for line in ["Type=notify", "Delegate=yes", "KillMode=mixed", "Restart=on-failure", "RuntimeDirectory=runway"] {
            #expect(unit.contains("\n\(line)\n"), "\(line)\n\(unit)")
        }
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/runway"))
        // The installed binary accepts the installed sample configuration.
        let validate = try Self.shell(prefix + "/bin/runway", ["validate", "--config", prefix + "/etc/runway"])
        #expect(validate.status == 0, "\(validate.output)")

        // A second install keeps the operator's Runway.plist.
        try Data("edited".utf8).write(to: URL(fileURLWithPath: prefix + "/etc/runway/Runway.plist"))
        run = try Self.shell(
            "make",
            ["--no-print-directory", "install", "PREFIX=\(prefix)", "RUNWAY_BINARY=\(binary)"]
        )
        #expect(run.status == 0, "\(run.output)")
        #expect(try String(contentsOfFile: prefix + "/etc/runway/Runway.plist", encoding: .utf8) == "edited")

        // DESTDIR stages under another root; the unit names the final paths, /etc for PREFIX=/usr.
        let stage = root.path + "/stage"
        run = try Self.shell(
            "make",
            ["--no-print-directory", "install", "DESTDIR=\(stage)", "PREFIX=/usr", "RUNWAY_BINARY=\(binary)"]
        )
        #expect(run.status == 0, "\(run.output)")
        let staged = try String(contentsOfFile: stage + "/usr/lib/systemd/system/runway.service", encoding: .utf8)
        #expect(
            staged.contains("\nExecStart=/usr/bin/runway run --config /etc/runway --state-directory /var/lib/runway\n"),
            "\(staged)"
        )
        #expect(FileManager.default.fileExists(atPath: stage + "/etc/runway/Runway.plist"))
        #expect(FileManager.default.isExecutableFile(atPath: stage + "/usr/bin/runway"))

        // A dry run (`make -n install`) shows the commands and writes nothing.
        let dryPrefix = root.path + "/dry"
        run = try Self.shell(
            "make",
            ["--no-print-directory", "-n", "install", "PREFIX=\(dryPrefix)", "RUNWAY_BINARY=\(binary)"]
        )
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("install -m 0755"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: dryPrefix), "\(run.output)")
    }

    @Test func systemdAnalyzeVerifyAcceptsTheInstalledUnit() throws {
        guard let analyze = Self.tool("systemd-analyze", package: "systemd") else { return }
        let root = try TemporaryConfig()
        defer { root.remove() }
        let prefix = root.path + "/prefix"
        let binary = try RunwayBinary.executable().path
        let run = try Self.shell(
            "make",
            ["--no-print-directory", "install", "PREFIX=\(prefix)", "RUNWAY_BINARY=\(binary)"]
        )
        #expect(run.status == 0, "\(run.output)")
        // verify needs ExecStart's binary to exist: the unit installed with this prefix names the installed one.
        let verify = try Self.shell(analyze, ["verify", prefix + "/lib/systemd/system/runway.service"])
        #expect(verify.status == 0, "\(verify.output)")
        #expect(!verify.output.contains("runway.service:"), "no complaint about the unit\n\(verify.output)")
    }

    /// `systemd-analyze security` of the shipped unit: its overall exposure must not rise above 3.9 (7.0 before
    /// the capability bounding set, the system call filter, the address families and the private mounts and
    /// devices were added).
    @Test func theShippedUnitsSecurityExposureStaysAtMostItsHardenedScore() throws {
        guard let analyze = Self.tool("systemd-analyze", package: "systemd") else { return }
        let unit = RunwayBinary.repositoryRoot().appendingPathComponent("Deploy/systemd/runway.service").path
        let result = try Self.shell(analyze, ["security", "--offline=yes", "--no-pager", unit])
        #expect(result.status == 0, "\(result.output)")
        let score = try #require(
            result.output.firstMatch(of: #/Overall exposure level for runway\.service: (\d+\.\d)/#).map {
                Double($0.1)
            },
            "\(result.output)"
        )
        #expect((score ?? 10) <= 3.9, "exposure \(score ?? -1)\n\(result.output)")
        // What the freezer and the apps' own users and cgroup namespaces need is still allowed.
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        for line in ["RestrictNamespaces=cgroup", "SystemCallFilter=@system-service", "WatchdogSec=30"] {
            #expect(text.contains("\n\(line)\n"), "\(line)")
        }
        for capability in ["CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_SYS_RESOURCE", "CAP_SYS_ADMIN", "CAP_CHOWN"] {
            #expect(text.contains(capability), "\(capability)")
        }
        #expect(!text.contains("\nProtectControlGroups="), "it would make the cgroup mount read-only")
        #expect(!text.contains("\nProtectKernelTunables="), "it would make the cgroup mount read-only")
    }

    @Test func theKubernetesManifestParsesAndItsPartsAgree() throws {
        guard let python = Self.tool("python3", package: "python3") else { return }
        let manifest = RunwayBinary.repositoryRoot().appendingPathComponent("Deploy/kubernetes/runway.yaml").path
        let script = "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))"
        let parsed = try Self.shell(python, ["-c", script, manifest])
        try #require(parsed.status == 0, "python3 with PyYAML (Debian python3-yaml) parses it\n\(parsed.output)")
        let documents = try #require(
            try JSONSerialization.jsonObject(with: Data(parsed.output.utf8)) as? [[String: Any]]
        )
        func document(_ kind: String) throws -> [String: Any] {
            try #require(documents.first { $0["kind"] as? String == kind }, "a \(kind) in \(manifest)")
        }
        func at(_ object: Any?, _ path: String...) -> Any? {
            var current = object
            for key in path { current = (current as? [String: Any])?[key] }
            return current
        }
        let daemonSet = try document("DaemonSet")
        let configMap = try document("ConfigMap")
        let template = at(daemonSet, "spec", "template")
        let annotations = try #require(at(template, "metadata", "annotations") as? [String: String])
        #expect(annotations["prometheus.io/scrape"] == "true")
        #expect(annotations["prometheus.io/path"] == "/metrics")
        let container = try #require((at(template, "spec", "containers") as? [[String: Any]])?.first)
        #expect(at(container, "securityContext", "privileged") as? Bool == false, "KubernetesManifestTests: the rest")
        let ports = try #require(container["ports"] as? [[String: Any]])
        #expect(ports.first?["containerPort"] as? Int == Int(annotations["prometheus.io/port"] ?? ""))
        let arguments = try #require(container["args"] as? [String])
        let configIndex = try #require(arguments.firstIndex(of: "--config"))
        let configPath = arguments[configIndex + 1]
        let mounts = try #require(container["volumeMounts"] as? [[String: Any]])
        let configMount = try #require(mounts.first { $0["mountPath"] as? String == configPath })
        let volumes = try #require(at(template, "spec", "volumes") as? [[String: Any]])
        let volume = try #require(volumes.first { $0["name"] as? String == configMount["name"] as? String })
        #expect(at(volume, "configMap", "name") as? String == at(configMap, "metadata", "name") as? String)

        // The ConfigMap laid out as the volume's items is a configuration the real `runway validate` accepts,
        // and its MetricsAddress listens on the annotated port on every address of the pod.
        let data = try #require(configMap["data"] as? [String: String])
        let items = try #require(at(volume, "configMap", "items") as? [[String: String]])
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        for item in items {
            let key = try #require(item["key"])
            let path = try #require(item["path"])
            try directory.write(path, try #require(data[key]))
        }
        let validate = try RunwayBinary.run("validate", "--config", directory.path)
        #expect(validate.status == 0, "\(validate)")
        #expect(validate.stdout.contains("1 apps") || validate.stdout.contains("1 app"), "\(validate)")
        let plist = try PropertyListSerialization.propertyList(
            from: Data(try #require(data["Runway.plist"]).utf8),
            format: nil
        )
        let address = try #require((plist as? [String: Any])?["MetricsAddress"] as? String)
        #expect(address == "0.0.0.0:\(annotations["prometheus.io/port"] ?? "")")

        // The history is kept where the node keeps it: StateDirectory is the mount of the hostPath volume.
        let stateDirectory = try #require((plist as? [String: Any])?["StateDirectory"] as? String)
        let stateMount = try #require(mounts.first { $0["mountPath"] as? String == stateDirectory })
        let stateVolume = try #require(volumes.first { $0["name"] as? String == stateMount["name"] as? String })
        #expect(at(stateVolume, "hostPath", "path") as? String == stateDirectory)
    }
}
