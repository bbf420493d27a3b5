package tools

// TasksExtension is the identifier of the tasks extension of 2026-07-28.
const TasksExtension = "io.modelcontextprotocol/tasks"
