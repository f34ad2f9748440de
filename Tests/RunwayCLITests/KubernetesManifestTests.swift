import Foundation
import RunwayTestKit
import Testing

/// Deploy/kubernetes/ (Docs/Deployment.md, "Kubernetes"): every manifest against the Kubernetes schema, the
/// DaemonSet's least privilege, its freezer variant, and the Containerfile its image is built from.
@Suite(.serialized) struct KubernetesManifestTests {
    static let directory = RunwayBinary.repositoryRoot().appendingPathComponent("Deploy/kubernetes")
    static let manifests = ["runway.yaml", "runway-freezer.yaml", "runway-networkpolicy.yaml"]
    /// The capabilities the unprivileged DaemonSet adds (after dropping all), each with its reason in the manifest
    /// and in Docs/Deployment.md.
    static let capabilities: Set = ["SETUID", "SETGID", "KILL", "SYS_RESOURCE", "DAC_OVERRIDE"]

    /// The documents of a manifest, through PyYAML.
    static func documents(_ name: String) throws -> [[String: Any]] {
        guard let python = DeploymentTests.tool("python3", package: "python3") else { return [] }
        let script = "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))"
        let file = Self.directory.appendingPathComponent(name).path
        let parsed = try DeploymentTests.shell(python, ["-c", script, file])
        try #require(parsed.status == 0, "python3 with PyYAML parses \(name)\n\(parsed.output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(parsed.output.utf8)) as? [[String: Any]])
    }

    static func at(_ object: Any?, _ path: String...) -> Any? {
        var current = object
        for key in path { current = (current as? [String: Any])?[key] }
        return current
    }

    static func daemonSet(_ name: String) throws -> [String: Any] {
        try #require(try Self.documents(name).first { $0["kind"] as? String == "DaemonSet" }, "a DaemonSet in \(name)")
    }

    static func container(_ daemonSet: [String: Any]) throws -> [String: Any] {
        try #require((Self.at(daemonSet, "spec", "template", "spec", "containers") as? [[String: Any]])?.first)
    }

    /// `kubernetes-validate` (PyPI; .ci/run installs it) as a program and its first arguments: the script on PATH,
    /// else the module of the `python3` on PATH; nil with a visible note outside CI.
    static func kubernetesValidate() throws -> (String, [String])? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/kubernetes-validate"
            if FileManager.default.isExecutableFile(atPath: candidate) { return (candidate, []) }
        }
        if try DeploymentTests.shell("python3", ["-c", "import kubernetes_validate"]).status == 0 {
            return ("python3", ["-m", "kubernetes_validate"])
        }
        #expect((ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty, "kubernetes-validate is missing in CI")
        print("note: kubernetes-validate is not installed (pip install kubernetes-validate); its check is skipped")
        return nil
    }

    @Test(arguments: ["1.30.0", "1.37.0"])
    func everyManifestPassesTheKubernetesSchemaInStrictMode(version: String) throws {
        guard let (program, prefix) = try Self.kubernetesValidate() else { return }
        let files = Self.manifests.map { Self.directory.appendingPathComponent($0).path }
        let arguments = prefix + ["--strict", "--kubernetes-version", version] + files
        let result = try DeploymentTests.shell(program, arguments)
        #expect(result.status == 0, "\(result.output)")
        // One line per resource: a Namespace, a PriorityClass, a ConfigMap, two DaemonSets and a NetworkPolicy.
        let passed = result.output.split(separator: "\n").filter { $0.contains(" passed for resource ") }
        #expect(passed.count == 6, "\(result.output)")
    }

    @Test func theNetworkPolicyAdmitsOnlyTheMonitoringNamespaceOnTheMetricsPort() throws {
        let policy = try #require(
            try Self.documents("runway-networkpolicy.yaml").first { $0["kind"] as? String == "NetworkPolicy" }
        )
        let daemonSet = try Self.daemonSet("runway.yaml")
        let podLabels = try #require(Self.at(daemonSet, "spec", "template", "metadata", "labels") as? [String: String])
        let selected = try #require(Self.at(policy, "spec", "podSelector", "matchLabels") as? [String: String])
        #expect(!selected.isEmpty && selected.allSatisfy { podLabels[$0.key] == $0.value }, "it selects the pods")
        let namespaceOf = { (object: Any) in Self.at(object, "metadata", "namespace") as? String }
        #expect(namespaceOf(policy) != nil && namespaceOf(policy) == namespaceOf(daemonSet))
        #expect(Self.at(policy, "spec", "policyTypes") as? [String] == ["Ingress"])
        let rules = try #require(Self.at(policy, "spec", "ingress") as? [[String: Any]])
        #expect(rules.count == 1)
        let sources = try #require(rules.first?["from"] as? [[String: Any]])
        #expect(sources.count == 1 && sources.first?.keys.sorted() == ["namespaceSelector"], "\(sources)")
        let namespace = Self.at(sources.first, "namespaceSelector", "matchLabels") as? [String: String]
        #expect(namespace == ["kubernetes.io/metadata.name": "monitoring"])
        let ports = try #require(rules.first?["ports"] as? [[String: Any]])
        #expect(ports.count == 1 && ports.first?["port"] as? String == "metrics", "\(ports)")
        let named = (Self.at(try Self.container(daemonSet), "ports") as? [[String: Any]])?.map { $0["name"] as? String }
        #expect(named?.contains("metrics") == true, "the DaemonSet's container names its port metrics")
    }

    @Test func theDaemonSetRunsUnprivilegedWithExactlyTheCapabilitiesRunwayNeeds() throws {
        let daemonSet = try Self.daemonSet("runway.yaml")
        let pod = try #require(Self.at(daemonSet, "spec", "template", "spec") as? [String: Any])
        let container = try Self.container(daemonSet)
        let security = try #require(container["securityContext"] as? [String: Any])
        #expect(security["privileged"] as? Bool == false)
        #expect(security["allowPrivilegeEscalation"] as? Bool == false)
        #expect(security["readOnlyRootFilesystem"] as? Bool == true)
        #expect(Self.at(security, "capabilities", "drop") as? [String] == ["ALL"])
        let added = try #require(Self.at(security, "capabilities", "add") as? [String])
        #expect(Set(added) == Self.capabilities && added.count == Self.capabilities.count, "\(added)")
        #expect(Self.at(pod, "securityContext", "seccompProfile", "type") as? String == "RuntimeDefault")
        for key in ["hostPID", "hostNetwork", "hostIPC"] { #expect(pod[key] == nil, "\(key)") }
        #expect(pod["automountServiceAccountToken"] as? Bool == false)

        // Each capability is explained where an operator reads it.
        let deployment = try String(
            contentsOf: RunwayBinary.repositoryRoot().appendingPathComponent("Docs/Deployment.md"),
            encoding: .utf8
        )
        for capability in Self.capabilities {
            #expect(deployment.contains("`\(capability)`"), "Docs/Deployment.md explains \(capability)")
        }

        // Probes: liveness (and startup) on /healthz, readiness on /readyz, on the metrics port.
        let probes = [("livenessProbe", "/healthz"), ("startupProbe", "/healthz"), ("readinessProbe", "/readyz")]
        for (probe, path) in probes {
            #expect(Self.at(container, probe, "httpGet", "path") as? String == path, "\(probe)")
            #expect(Self.at(container, probe, "httpGet", "port") as? String == "metrics", "\(probe)")
        }
        // Requests and limits for both resources.
        for kind in ["requests", "limits"] {
            for resource in ["cpu", "memory"] {
                #expect(Self.at(container, "resources", kind, resource) != nil, "\(kind).\(resource)")
            }
        }
        // The priority class it names is shipped beside it; tolerations keep it on a node under pressure.
        let priorityClass = try #require(
            try Self.documents("runway.yaml").first { $0["kind"] as? String == "PriorityClass" }
        )
        #expect(pod["priorityClassName"] as? String == Self.at(priorityClass, "metadata", "name") as? String)
        #expect(((priorityClass["value"] as? Int) ?? 0) > 0)
        let tolerations = try #require(pod["tolerations"] as? [[String: Any]])
        let keys = Set(tolerations.compactMap { $0["key"] as? String })
        #expect(keys.contains("node.kubernetes.io/memory-pressure") && keys.contains("node.kubernetes.io/unreachable"))
    }

    @Test func theFreezerVariantDiffersOnlyInBeingPrivileged() throws {
        var plain = try Self.daemonSet("runway.yaml")
        var freezer = try Self.daemonSet("runway-freezer.yaml")
        let freezerContainer = try Self.container(freezer)
        #expect(Self.at(freezerContainer, "securityContext") as? [String: Bool] == ["privileged": true])
        // Without their containers' security contexts, the two DaemonSets are the same document.
        func strip(_ daemonSet: inout [String: Any]) throws {
            var container = try Self.container(daemonSet)
            container["securityContext"] = nil
            var spec = try #require(Self.at(daemonSet, "spec") as? [String: Any])
            var template = try #require(spec["template"] as? [String: Any])
            var pod = try #require(template["spec"] as? [String: Any])
            pod["containers"] = [container]
            template["spec"] = pod
            spec["template"] = template
            daemonSet["spec"] = spec
        }
        try strip(&plain)
        try strip(&freezer)
        let encode = { (object: Any) in
            try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        }
        #expect(try encode(plain) == encode(freezer), "the freezer variant has drifted from runway.yaml")
    }

    /// The paths git tracks in the repository, relative to its root.
    static func trackedPaths() throws -> [String] {
        let listed = try DeploymentTests.shell("git", ["ls-files", "-z"])
        try #require(listed.status == 0, "git ls-files in the repository\n\(listed.output)")
        return listed.output.split(separator: "\0").map(String.init)
    }

    /// Whether a .dockerignore pattern leaves out `path`: the pattern matches it or one of its parent directories.
    static func ignores(_ pattern: String, _ path: String) -> Bool {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += prefix.isEmpty ? String(component) : "/" + component
            if fnmatch(pattern, prefix, FNM_PATHNAME) == 0 { return true }
        }
        return false
    }

    @Test func theContainerfileCopiesTrackedPathsWithGitAndRunsTheDaemonSetsCommand() throws {
        let root = RunwayBinary.repositoryRoot()
        let text = try String(contentsOf: Self.directory.appendingPathComponent("Containerfile"), encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        // Debian Swift images: the full one builds, the slim one runs.
        let images = lines.filter { $0.hasPrefix("FROM ") }.map { $0.split(separator: " ")[1] }
        #expect(images.count == 2, "\(images)")
        #expect(images.first?.hasSuffix("-bookworm") == true && images.last?.hasSuffix("-bookworm-slim") == true)
        #expect(text.contains("libuv1-dev") && text.contains("install -y --no-install-recommends libuv1 "))

        // Every source of a COPY from the build context is tracked by git (a fresh clone has it; an ignored file
        // such as Package.resolved does not), and what is copied holds every directory Package.swift puts a
        // target or plugin in, the commit script, and .git.
        let tracked = try Self.trackedPaths()
        #expect(tracked.contains("Scripts/build-commit.sh") && tracked.contains("Package.swift"))
        var copied: [String] = []
        for line in lines where line.hasPrefix("COPY ") && !line.contains("--from=") {
            let words = line.split(separator: " ").dropFirst().map(String.init)
            for source in words.dropLast() {
                let inGit = source == "." || tracked.contains { $0 == source || $0.hasPrefix(source + "/") }
                #expect(inGit, "\(source) is copied but not tracked by git")
                copied.append(source)
            }
        }
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let paths = manifest.matches(of: #/path: "([^"\\]+)"/#).map { String($0.1) }
        #expect(!paths.isEmpty)
        let needed = paths + ["Package.swift", "Sources", "Tests", "Plugins", "Scripts/build-commit.sh", ".git"]
        for path in needed {
            #expect(copied.contains { $0 == "." || path == $0 || path.hasPrefix($0 + "/") }, "\(path) is not copied")
        }

        // .dockerignore keeps the build directories out and leaves out no tracked file (git would call the
        // image's commit dirty) and not .git.
        let ignore = try String(contentsOf: root.appendingPathComponent(".dockerignore"), encoding: .utf8)
        let patterns = ignore.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") }
        for path in [".build", ".build-example", ".swiftpm", "Package.resolved"] {
            #expect(patterns.contains { Self.ignores($0, path) }, ".dockerignore leaves \(path) in the context")
        }
        for path in tracked + [".git", ".git/HEAD"] {
            for pattern in patterns where Self.ignores(pattern, path) {
                Issue.record(".dockerignore's \(pattern) leaves out \(path), which the build needs")
            }
        }

        // The entrypoint and its arguments are the DaemonSet's command and args.
        func json(_ instruction: String) throws -> [String] {
            let line = try #require(lines.last { $0.hasPrefix(instruction + " ") }, "\(instruction)")
            let array = Data(line.dropFirst(instruction.count + 1).utf8)
            return try #require(try JSONSerialization.jsonObject(with: array) as? [String])
        }
        let container = try Self.container(try Self.daemonSet("runway.yaml"))
        #expect(try json("ENTRYPOINT") == container["command"] as? [String])
        #expect(try json("CMD") == container["args"] as? [String])
        let binary = try #require(try json("ENTRYPOINT").first)
        #expect(text.contains("COPY --from=build /out\(binary) \(binary)"), "the image's binary is at \(binary)")
    }
}
