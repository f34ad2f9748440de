import Foundation

/// The JSON schema of `runway bench --processes --json` (version 1, `workload: "processes"`), as
/// Docs/Benchmarking.md documents it, checked with `BenchSchema`'s checker.
enum ProcessBenchSchema {
    typealias Field = BenchSchema.Field

    static let report: Field = .object(
        [
            "schemaVersion": .integer,
            "workload": .string,
            "version": .string,
            "commit": .string,
            "buildType": .string,
            "date": .string,
            "host": .object(["cores": .integer, "kernel": .string, "cgroupMode": .string]),
            "runs": .integer,
            "figures": .array(BenchSchema.figure),
            "baseline": BenchSchema.baseline,
            "configuration": .object([
                "apps": .integer, "tasksPerApp": .integer, "budgetSeconds": .number, "warningLeadSeconds": .number,
                "endFraction": .number, "durationSeconds": .number, "seed": .integer, "suspension": .string,
                "overrunners": .string, "terminationGraceSeconds": .number,
            ]),
            "plan": .object([
                "finisherApps": .integer, "suspendedOverrunnerApps": .integer, "exitingOverrunnerApps": .integer,
                "killedOverrunnerApps": .integer, "tasks": .integer, "tasksEndingBeforeWarning": .integer,
                "events": .integer,
            ]),
            "processes": .object([
                "suspensionMechanism": .string,
                "expirationWarnings": BenchSchema.events, "suspensionsAfterEnd": BenchSchema.events,
                "suspensionsAtDeadline": BenchSchema.events, "terminations": BenchSchema.events,
                "kills": BenchSchema.events,
                "setup": .object(["seconds": .number, "tasksBegun": .integer]),
                "homeErrors": .integer,
                "deadlinePhaseSeconds": .number,
                "finished": .boolean,
                "loop": .object(
                    ["setup": BenchSchema.utilisation, "deadlines": BenchSchema.utilisation],
                    optional: ["setup", "deadlines"]
                ),
            ]),
            "passed": .boolean,
            "failures": .array(.string),
        ],
        optional: ["baseline"]
    )

    /// What is wrong with `report`: missing or unknown keys, wrong types, another schema version or workload.
    static func problems(in report: [String: Any]) -> [String] {
        var problems = BenchSchema.problems(report, self.report, path: "")
        if report["schemaVersion"] as? Int != 1 { problems.append("schemaVersion: expected 1") }
        if report["workload"] as? String != "processes" { problems.append("workload: expected processes") }
        return problems
    }

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
        collect(self.report)
        return names
    }
}
