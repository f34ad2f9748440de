import RunwayConfig
@_spi(Driver) @_spi(Processes) import RunwayCore
@_spi(Processes) import RunwayProcesses
@_spi(Driver) import RunwayTestKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The resource limit keys of an app's Info.plist (Docs/Configuration.md, "Resource limits"): launchd's
/// `SoftResourceLimits` / `HardResourceLimits`, systemd's `MemoryMax`, `TasksMax`, `CPUWeight`.
@Suite struct ResourceLimitKeyTests {
    func limits(_ keys: String) throws -> ProcessLimits? {
        guard case .process(let spec) = try loadOneApp(keys).apps[0].descriptor.kind else { return nil }
        return spec.limits
    }

    func error(app keys: String) throws -> (ConfigError?, String) {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.writeApp("a", identifier: "com.example.a", keys)
        return (loadError(config.path), file)
    }

    @Test func resourceLimitsMapEachLaunchdKeyAndKeepTheOtherValueInherited() throws {
        let limits = try self.limits(
            """
            <key>SoftResourceLimits</key><dict>
              <key>NumberOfFiles</key><integer>512</integer>
              <key>Core</key><integer>0</integer>
              <key>Stack</key><string>8M</string>
              <key>CPU</key><string>unlimited</string>
            </dict>
            <key>HardResourceLimits</key><dict>
              <key>NumberOfFiles</key><integer>1024</integer>
              <key>NumberOfProcesses</key><integer>300</integer>
            </dict>
            <key>MemoryMax</key><string>512M</string>
            <key>TasksMax</key><integer>64</integer>
            <key>CPUWeight</key><integer>50</integer>
            """
        )
        #expect(
            limits
                == ProcessLimits(
                    resources: [
                        .numberOfFiles: .init(soft: 512, hard: 1024),
                        .core: .init(soft: 0),
                        .stack: .init(soft: 8 << 20),
                        .cpu: .init(soft: ProcessLimits.unlimited),
                        .numberOfProcesses: .init(hard: 300),
                    ],
                    memoryMaxBytes: 512 << 20,
                    tasksMax: 64,
                    cpuWeight: 50
                )
        )
        #expect(try self.limits("") == ProcessLimits())
        #expect(try self.limits("<key>MemoryMax</key><string>infinity</string>")?.memoryMaxBytes == .max)
        // The kernel's PID_MAX_LIMIT is the largest pids.max it takes; infinity is written as "max".
        #expect(try self.limits("<key>TasksMax</key><integer>4194304</integer>")?.tasksMax == 4_194_304)
        #expect(try self.limits("<key>TasksMax</key><string>infinity</string>")?.tasksMax == .max)
    }

    @Test func anUnknownResourceNameIsRejectedWithItsKeyPathAndTheNearestName() throws {
        var (error, file) = try self.error(
            app: "<key>SoftResourceLimits</key><dict><key>NumberOfFile</key><integer>10</integer></dict>"
        )
        expectError(
            error,
            code: .invalidValue,
            file: file,
            keyPath: "SoftResourceLimits.NumberOfFile",
            found: "the key \"NumberOfFile\" (did you mean NumberOfFiles?)",
            expectedContains: "a launchd resource name: one of Core, CPU, Data"
        )
        (error, file) = try self.error(
            app: "<key>HardResourceLimits</key><dict><key>Wombats</key><integer>10</integer></dict>"
        )
        expectError(
            error,
            code: .invalidValue,
            file: file,
            keyPath: "HardResourceLimits.Wombats",
            found: "the key \"Wombats\"",
            expectedContains: "a launchd resource name"
        )
    }

    @Test func aBadLimitValueNamesItsKeyPath() throws {
        let cases: [(String, String, String, String)] = [
            (
                "<key>SoftResourceLimits</key><dict><key>Core</key><integer>-1</integer></dict>",
                "SoftResourceLimits.Core", "integer -1", "a non-negative integer"
            ),
            (
                "<key>SoftResourceLimits</key><dict><key>NumberOfFiles</key><string>lots</string></dict>",
                "SoftResourceLimits.NumberOfFiles", "string \"lots\"", "a non-negative integer"
            ),
            // A size string only for a byte resource.
            (
                "<key>HardResourceLimits</key><dict><key>NumberOfProcesses</key><string>1K</string></dict>",
                "HardResourceLimits.NumberOfProcesses", "string \"1K\"", "a non-negative integer"
            ),
            (
                "<key>HardResourceLimits</key><dict><key>NumberOfFiles</key><string>unlimited</string></dict>",
                "HardResourceLimits.NumberOfFiles", "string \"unlimited\"", "Linux refuses an unlimited"
            ),
            ("<key>MemoryMax</key><integer>0</integer>", "MemoryMax", "integer 0", "a number of bytes > 0"),
            ("<key>MemoryMax</key><string>12Q</string>", "MemoryMax", "string \"12Q\"", "a number of bytes > 0"),
            ("<key>TasksMax</key><integer>0</integer>", "TasksMax", "integer 0", "from 1 to 4194304"),
            ("<key>TasksMax</key><integer>4194305</integer>", "TasksMax", "integer 4194305", "PID_MAX_LIMIT"),
            (
                "<key>TasksMax</key><integer>9223372036854775807</integer>", "TasksMax",
                "integer 9223372036854775807", "from 1 to 4194304",
            ),
            ("<key>CPUWeight</key><integer>0</integer>", "CPUWeight", "integer 0", "from 1 to 10000"),
            ("<key>CPUWeight</key><integer>10001</integer>", "CPUWeight", "integer 10001", "from 1 to 10000"),
        ]
        for (keys, keyPath, found, expected) in cases {
            let (error, file) = try self.error(app: keys)
            #expect(error?.keyPath == keyPath, "\(keys)")
            expectError(
                error,
                code: .invalidValue,
                file: file,
                keyPath: keyPath,
                found: found,
                expectedContains: expected
            )
        }
        let (error, _) = try self.error(app: "<key>CPUWeight</key><string>high</string>")
        #expect(error?.code == .wrongType)
        #expect(error?.keyPath == "CPUWeight")
    }

    @Test func aSoftLimitAboveItsHardLimitIsRejected() throws {
        let (error, file) = try self.error(
            app: """
                <key>SoftResourceLimits</key><dict><key>NumberOfFiles</key><integer>2048</integer></dict>
                <key>HardResourceLimits</key><dict><key>NumberOfFiles</key><integer>1024</integer></dict>
                """
        )
        expectError(
            error,
            code: .invalidValue,
            file: file,
            keyPath: "SoftResourceLimits.NumberOfFiles",
            found: "integer 2048",
            expectedContains: "at most HardResourceLimits.NumberOfFiles (1024)"
        )
    }

    @Test func residentSetSizeIsAcceptedWithAWarningThatLinuxDoesNotEnforceIt() throws {
        let configuration = try loadOneApp(
            "<key>SoftResourceLimits</key><dict><key>ResidentSetSize</key><integer>1048576</integer></dict>"
        )
        let warning = try #require(configuration.warnings.first { $0.keyPath == "SoftResourceLimits.ResidentSetSize" })
        #expect(warning.message.contains("Linux does not enforce ResidentSetSize"))
        #expect(warning.message.contains("use MemoryMax"))
    }

    @Test func numberOfFilesAboveNrOpenIsWarnedAbout() throws {
        let configuration = try loadOneApp(
            "<key>HardResourceLimits</key><dict><key>NumberOfFiles</key><integer>1099511627776</integer></dict>"
        )
        let warning = try #require(configuration.warnings.first { $0.keyPath == "HardResourceLimits.NumberOfFiles" })
        #expect(warning.message.contains("/proc/sys/fs/nr_open"), "\(warning)")
    }

    @Test func limitKeysOnAnEmbeddedAppAreIgnoredWithAWarning() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write(
            "Apps/e.plist",
            plistXML(
                "<key>CFBundleIdentifier</key><string>com.example.e</string><key>TasksMax</key><integer>5</integer>"
            )
        )
        let configuration = try ConfigLoader.load(directory: config.path)
        #expect(configuration.warnings.map(\.keyPath) == ["TasksMax"])
        #expect(configuration.warnings.first?.message.contains("embedded") == true)
    }

    @Test func aCgroupCeilingInSignalModeWithoutCgroupV1IsWarnedAboutBeforeTheDaemonRefusesIt() throws {
        let limits = ProcessLimits(memoryMaxBytes: 1 << 20)
        let pureV2 = CgroupLimitCheck.Host(
            v2: ("/sys/fs/cgroup/cgroup.controllers", ["cpu", "memory", "pids"]),
            v1: []
        )
        let warnings = CgroupLimitCheck.warnings(limits, file: "A.plist", mechanism: .signal, host: pureV2)
        #expect(warnings.map(\.keyPath) == ["MemoryMax"])
        #expect(
            warnings.first?.message
                == "SuspensionMechanism is signal, so the app has no cgroup v2 of its own, nor on a cgroup v1 "
                + "hierarchy: the daemon will refuse to launch the app; nothing would enforce the limit"
        )
        // In freezer mode cgroup v2 gives it; with memory on cgroup v1, signal mode gets it there.
        #expect(CgroupLimitCheck.warnings(limits, file: "A.plist", mechanism: .auto, host: pureV2).isEmpty)
        let hybrid = CgroupLimitCheck.Host(
            v2: ("/sys/fs/cgroup/unified/cgroup.controllers", ["hugetlb"]),
            v1: ["memory"]
        )
        #expect(CgroupLimitCheck.warnings(limits, file: "A.plist", mechanism: .signal, host: hybrid).isEmpty)
    }

    @Test func aCgroupCeilingWhoseControllerIsOnNeitherHierarchyIsWarnedAboutNamingTheFileRead() throws {
        let limits = ProcessLimits(memoryMaxBytes: 1 << 20, tasksMax: 10, cpuWeight: 200)
        let host = CgroupLimitCheck.Host(v2: ("/sys/fs/cgroup/unified/cgroup.controllers", ["hugetlb"]), v1: ["cpu"])
        let warnings = CgroupLimitCheck.warnings(limits, file: "A.plist", mechanism: .auto, host: host)
        #expect(warnings.map(\.keyPath) == ["MemoryMax", "TasksMax"])
        #expect(
            warnings.first?.message.hasPrefix(
                "the memory controller is not on cgroup v2 on this machine "
                    + "(/sys/fs/cgroup/unified/cgroup.controllers lists \"hugetlb\"), nor on a cgroup v1 hierarchy"
            ) == true,
            "\(warnings)"
        )
        let noCgroups = CgroupLimitCheck.Host(v2: nil, v1: [])
        #expect(CgroupLimitCheck.warnings(limits, file: "A.plist", mechanism: .auto, host: noCgroups).count == 3)
    }
}
