package tools

// RuntimeNames lists the names of the registered runtimes, sorted: what a
// tool's runtime may be (the JSON Schema for editors offers them).
func (m *Manager) RuntimeNames() []string { return m.runtimeNames() }
