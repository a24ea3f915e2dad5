import ArgumentParser

/// `baton schedule …`: graphs fired on a cron expression or a period by the coordinators.
struct ScheduleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Fire a graph on a cron expression or a period: add, list, show, pause, resume, delete, trigger.",
        subcommands: [
            ScheduleAddCommand.self, ScheduleListCommand.self, ScheduleShowCommand.self, SchedulePauseCommand.self,
            ScheduleResumeCommand.self, ScheduleDeleteCommand.self, ScheduleTriggerCommand.self,
        ])
}
