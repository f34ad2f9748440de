import Foundation

/// The JSON schema of `runway bench --json` (version 1), as Docs/Benchmarking.md documents it, and a checker.
enum BenchSchema {
    indirect enum Field: Sendable {
        case integer, number, boolean, string
        case array(Field)
        /// Keys in `optional` may be absent.
        case object([String: Field], optional: Set<String> = [])
    }

    static let quantiles: Field = .object([
        "p50": .integer, "p90": .integer, "p99": .integer, "p99_9": .integer, "max": .integer,
    ])
    static let ratios: Field = .object(
        ["p50": .number, "p90": .number, "p99": .number, "p99_9": .number, "max": .number],
        optional: ["p50", "p90", "p99", "p99_9", "max"]
    )
    static let events: Field = .object(
        [
            "expected": .integer, "count": .integer, "early": .integer, "lost": .integer, "unexpected": .integer,
            "latenessNanoseconds": quantiles, "perSecond": .number,
        ],
        optional: ["latenessNanoseconds", "perSecond"]
    )
    static let utilisation: Field = .object(["wallSeconds": .number, "idleSeconds": .number, "busyFraction": .number])

    static let report: Field = .object(
        [
            "schemaVersion": .integer,
            "version": .string,
            "commit": .string,
            "buildType": .string,
            "date": .string,
            "host": .object(["cores": .integer, "kernel": .string, "cgroupMode": .string]),
            "runs": .integer,
            "figures": .array(figure),
            "ratiosWithheld": .string,
            "baseline": baseline,
            "lateBound": .object([
                "nanoseconds": .integer, "allowedPercent": .number,
                "beyond": .object([
                    "runway.expirationWarnings": .integer, "runway.suspensions": .integer,
                    "runway.terminations": .integer, "nio.expirationWarnings": .integer, "nio.terminations": .integer,
                ]),
            ]),
            "configuration": .object(
                [
                    "apps": .integer, "tasksPerApp": .integer, "budgetSeconds": .number, "warningLeadSeconds": .number,
                    "endFraction": .number, "durationSeconds": .number, "seed": .integer, "realtimePriority": .integer,
                    "wakeupSpinMicroseconds": .integer,
                ],
                optional: ["realtimePriority", "wakeupSpinMicroseconds"]
            ),
            "plan": .object([
                "finisherApps": .integer, "overrunnerApps": .integer, "tasks": .integer,
                "tasksEndingBeforeWarning": .integer,
            ]),
            "runway": .object([
                "expirationWarnings": events, "suspensions": events, "terminations": events,
                "setup": .object(
                    [
                        "seconds": .number, "tasksBegun": .integer, "tasksRefused": .integer,
                        "beginCallsPerSecond": .number,
                    ],
                    optional: ["beginCallsPerSecond"]
                ),
                "ends": .object(
                    [
                        "calls": .integer, "errors": .integer, "callsPerSecond": .number,
                        "requestsAfterWarning": .integer,
                    ],
                    optional: ["callsPerSecond"]
                ),
                "deadlinePhaseSeconds": .number,
                "finished": .boolean,
                "memory": .object(
                    [
                        "peakResidentBytes": .integer, "residentBeforeTasksBytes": .integer,
                        "residentWithTasksBytes": .integer, "outstandingTasks": .integer,
                        "bytesPerOutstandingTask": .number,
                    ],
                    optional: [
                        "peakResidentBytes", "residentBeforeTasksBytes", "residentWithTasksBytes",
                        "bytesPerOutstandingTask",
                    ]
                ),
                "loop": .object(
                    ["setup": utilisation, "deadlines": utilisation, "priority": .string],
                    optional: ["setup", "deadlines"]
                ),
            ]),
            "nio": .object([
                "expirationWarnings": events, "terminations": events, "scheduledTasks": .integer,
                "cancelledTasks": .integer, "deadlinePhaseSeconds": .number, "finished": .boolean,
                "requestsAfterWarning": .integer, "loopPriority": .string,
            ]),
            "ratios": .object(["expirationWarnings": ratios, "terminations": ratios]),
            "passed": .boolean,
            "failures": .array(.string),
            "fellBehind": .array(.string),
        ],
        optional: ["nio", "ratios", "ratiosWithheld", "baseline", "lateBound"]
    )
    static let figure: Field = .object(
        [
            "name": .string, "unit": .string, "lowerIsBetter": .boolean, "runs": .integer, "median": .number,
            "min": .number, "max": .number, "values": .array(.number), "events": .integer,
        ],
        optional: ["events"]
    )
    static let baseline: Field = .object([
        "file": .string, "version": .string, "commit": .string, "date": .string, "runs": .integer,
        "thresholdPercent": .number, "compared": .integer, "falseAlarmPercent": .number,
        "figures": .array(
            .object([
                "figure": .string, "unit": .string, "baselineSpread": spread, "currentSpread": spread,
                "changePercent": .number, "verdict": .string,
            ])
        ),
        "regressions": .array(
            .object([
                "figure": .string, "unit": .string, "baseline": .number, "current": .number,
                "changePercent": .number, "baselineSpread": spread, "currentSpread": spread,
            ])
        ),
    ])
    static let spread: Field = .object(["median": .number, "min": .number, "max": .number, "runs": .integer])

    /// Every key name of the schema.
    static var fieldNames: Set<String> {
        var names: Set<String> = []
        func collect(_ field: Field) {
            switch field {
            case .object(let fields, _):
                for (name, child) in fields {
                    names.insert(name)
                    collect(child)
                }
            case .array(let element): collect(element)
            case .integer, .number, .boolean, .string: break
            }
        }
        collect(report)
        return names
    }

    /// What is wrong with `report`: missing or unknown keys, wrong types. `comparing`: `nio` and `ratios` must be
    /// present (with `--compare nio`) or absent (without).
    static func problems(in report: [String: Any], comparing: Bool) -> [String] {
        var problems = self.problems(report, self.report, path: "")
        for key in ["nio", "ratios", "lateBound"] where (report[key] != nil) != comparing {
            problems.append("\(key): expected \(comparing ? "present" : "absent")")
        }
        if report["schemaVersion"] as? Int != 1 { problems.append("schemaVersion: expected 1") }
        return problems
    }

    static func problems(_ value: Any, _ field: Field, path: String) -> [String] {
        // JSONSerialization gives NSNumber for numbers and booleans; booleans are of a class named
        // `__NSCFBoolean` (`value is Bool` is also true for the numbers 0 and 1).
        let isBoolean = String(describing: type(of: value)).contains("Boolean")
        switch field {
        case .boolean:
            return isBoolean ? [] : ["\(path): expected a boolean, found \(value)"]
        case .number:
            return !isBoolean && value is NSNumber ? [] : ["\(path): expected a number, found \(value)"]
        case .integer:
            guard !isBoolean, let number = value as? NSNumber, number.doubleValue.rounded() == number.doubleValue else {
                return ["\(path): expected an integer, found \(value)"]
            }
            return []
        case .string:
            return value is String ? [] : ["\(path): expected a string, found \(value)"]
        case .array(let element):
            guard let array = value as? [Any] else { return ["\(path): expected an array, found \(value)"] }
            return array.enumerated().flatMap { self.problems($1, element, path: "\(path)[\($0)]") }
        case .object(let fields, let optional):
            guard let object = value as? [String: Any] else { return ["\(path): expected an object, found \(value)"] }
            var problems: [String] = []
            for key in object.keys where fields[key] == nil { problems.append("\(path).\(key): not in the schema") }
            for (key, child) in fields.sorted(by: { $0.key < $1.key }) {
                if let member = object[key] {
                    problems += self.problems(member, child, path: path.isEmpty ? key : "\(path).\(key)")
                } else if !optional.contains(key) {
                    problems.append("\(path.isEmpty ? key : "\(path).\(key)"): missing")
                }
            }
            return problems
        }
    }
}
