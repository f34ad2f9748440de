// Decoding a control request so that every problem names its field, integers included (see `decodeInteger`).

extension ControlRequest {
    private enum Field: String, CodingKey {
        case v, id, command, app, seconds, dryRun, task, taskID, name, payload
        case lines, previous, follow, stream
        case reason
        case history
        case tasks
        case state, appPattern, limit, after
        case summary
        case more
    }

    /// Decodes every field as the synthesized decoder would, except that an integer field holding a number
    /// that is not an integer of its range (`"id": 1.5`) is reported at that field. Any thread.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Field.self)
        self.init(
            command: try container.decode(String.self, forKey: .command),
            app: try container.decodeIfPresent(String.self, forKey: .app),
            seconds: try container.decodeIfPresent(Double.self, forKey: .seconds),
            dryRun: try container.decodeIfPresent(Bool.self, forKey: .dryRun),
            task: try container.decodeIfPresent(String.self, forKey: .task),
            taskID: try container.decodeInteger(UInt64.self, forKey: .taskID),
            name: try container.decodeIfPresent(String.self, forKey: .name),
            payload: try container.decodeIfPresent(String.self, forKey: .payload),
            id: try container.decodeInteger(Int.self, forKey: .id),
            lines: try container.decodeInteger(Int.self, forKey: .lines),
            previous: try container.decodeIfPresent(Bool.self, forKey: .previous),
            follow: try container.decodeIfPresent(Bool.self, forKey: .follow),
            stream: try container.decodeIfPresent(String.self, forKey: .stream),
            reason: try container.decodeIfPresent(String.self, forKey: .reason),
            history: try container.decodeIfPresent(Bool.self, forKey: .history),
            tasks: try container.decodeIfPresent(Bool.self, forKey: .tasks),
            state: try container.decodeIfPresent(String.self, forKey: .state),
            appPattern: try container.decodeIfPresent(String.self, forKey: .appPattern),
            limit: try container.decodeInteger(Int.self, forKey: .limit),
            after: try container.decodeIfPresent(String.self, forKey: .after),
            summary: try container.decodeIfPresent(Bool.self, forKey: .summary),
            more: try container.decodeIfPresent(Bool.self, forKey: .more)
        )
        self.v = try container.decodeInteger(Int.self, forKey: .v)
    }
}
