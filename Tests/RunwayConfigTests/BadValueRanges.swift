import RunwayConfig

extension BadValue {
    /// Numbers out of their key's range, named with the range.
    static let outOfRange: [BadValue] =
        [
            BadValue(
                "a zero poll interval is rejected",
                .runway("<key>MemoryPollInterval</key><integer>0</integer>"),
                keyPath: "MemoryPollInterval",
                found: "integer 0",
                expected: "a finite number of seconds > 0"
            ),
            BadValue(
                "a critical pressure below the warning is rejected",
                .runway(
                    """
                    <key>MemoryWarningPressure</key><real>40</real>
                    <key>MemoryCriticalPressure</key><real>20</real>
                    """
                ),
                keyPath: "MemoryCriticalPressure",
                found: "real 20.0",
                expected: "a percentage from MemoryWarningPressure (40.0) to 100"
            ),
            BadValue(
                "a warning pressure above the default critical needs a critical value",
                .runway("<key>MemoryWarningPressure</key><integer>50</integer>"),
                .missingValue,
                keyPath: "MemoryCriticalPressure",
                found: "nothing (the default 30 is below MemoryWarningPressure)",
                expected: "a percentage from MemoryWarningPressure (50.0) to 100"
            ),
            BadValue(
                "a pressure above 100 is rejected",
                .runway("<key>MemoryWarningPressure</key><real>100.5</real>"),
                keyPath: "MemoryWarningPressure",
                found: "real 100.5",
                expected: "a percentage from 0 to 100"
            ),
            BadValue(
                "a negative TerminationGrace is rejected",
                .runway("<key>TerminationGrace</key><real>-3</real>"),
                keyPath: "TerminationGrace",
                found: "real -3.0",
                expected: Self.seconds
            ),
            BadValue(
                "a negative BackgroundEntryGrace is rejected",
                .runway("<key>BackgroundEntryGrace</key><integer>-1</integer>"),
                keyPath: "BackgroundEntryGrace",
                found: "integer -1",
                expected: Self.seconds
            ),
            BadValue(
                "a negative RunwayBackgroundTimeBudget is rejected",
                .app(
                    "x",
                    identifier: "com.example.x",
                    keys: "<key>RunwayBackgroundTimeBudget</key><real>-0.001</real>"
                ),
                keyPath: "RunwayBackgroundTimeBudget",
                found: "real -0.001",
                expected: Self.seconds
            ),
        ]
        + [("nan", "real nan"), ("inf", "real inf"), ("-inf", "real -inf")].map { value, found in
            BadValue(
                "a non-finite duration (\(value)) is rejected",
                .runway("<key>ExpirationWarningLead</key><real>\(value)</real>"),
                keyPath: "ExpirationWarningLead",
                found: found,
                expected: Self.seconds
            )
        }
        + [
            ("<integer>0</integer>", "integer 0"), ("<integer>65537</integer>", "integer 65537"),
            ("<real>2.5</real>", "real 2.5"),
        ].map { value, found in
            BadValue(
                "NotificationQueueLimit \(found) is out of range",
                .runway("<key>NotificationQueueLimit</key>\(value)"),
                keyPath: "NotificationQueueLimit",
                found: found,
                expected: "an integer from 1 to 65536"
            )
        }
        // The loop options: `LoopRealtimePriority` within 1...99, `LoopWakeupSpin` within 0 ... 1 ms.
        + [
            ("LoopRealtimePriority", "<integer>0</integer>", "integer 0", Self.loopPriority),
            ("LoopRealtimePriority", "<integer>100</integer>", "integer 100", Self.loopPriority),
            ("LoopRealtimePriority", "<real>10.5</real>", "real 10.5", Self.loopPriority),
            ("LoopWakeupSpin", "<real>0.002</real>", "real 0.002", Self.loopSpin),
            ("LoopWakeupSpin", "<real>-0.00001</real>", "real -1e-05", Self.loopSpin),
        ].map { key, value, found, expected in
            BadValue(
                "\(key) \(found) is out of range",
                .runway("<key>\(key)</key>\(value)"),
                keyPath: key,
                found: found,
                expected: expected
            )
        }

    /// Names outside their key's set, named with the allowed values.
    static let unknownNames: [BadValue] =
        [
            ("OverrunPolicy", "explode", #"one of "terminate", "suspend""#),
            ("SuspensionMechanism", "cgroup", #"one of "auto", "freezer", "signal""#),
            ("ExitsOnSuspendStyle", "Drain", #"one of "drain", "immediate""#),
            ("LockBehavior", "iOS5", #"one of "classic", "modern""#),
            ("BudgetRefillPolicy", "carryOver", #"one of "fullEachPeriod""#),
            ("MemoryPressureSource", "swap", #"one of "psi", "rss", "off""#),
        ].map { key, value, allowed in
            BadValue(
                "an unknown \(key) names the allowed values",
                .runway("<key>\(key)</key><string>\(value)</string>"),
                keyPath: key,
                found: "string \"\(value)\"",
                expected: allowed
            )
        }
        + [
            BadValue(
                "an unknown LockBehavior in an app file names the file, the key and the allowed values",
                .app("notes", identifier: "com.example.notes", keys: "<key>LockBehavior</key><string>Modern</string>"),
                keyPath: "LockBehavior",
                found: "string \"Modern\"",
                expected: #"one of "classic", "modern""#
            )
        ]
        + [
            ("cgroup.kill", "\"cgroup.\""), ("cgroup.freeze", "\"cgroup.\""), ("memory.max", "\"memory.\""),
            ("pids.max", "\"pids.\""), ("cpu.weight", "\"cpu.\""), ("io.max", "\"io.\""),
            ("cpuset.cpus", "\"cpuset.\""), ("hugetlb.x", "\"hugetlb.\""), ("rdma.max", "\"rdma.\""),
            ("misc.max", "\"misc.\""),
        ].map { identifier, prefix in
            BadValue(
                "an identifier naming a cgroup file (\(identifier)) is rejected",
                .app("app", identifier: identifier, keys: ""),
                keyPath: "CFBundleIdentifier",
                found: "string \"\(identifier)\"",
                expected: "a name starting with \(prefix) names a cgroup's own files"
            )
        }
}
