package wire

// Modes in effect, as the ack line, the status records and the logs name
// them.
const (
	// ModeGroup: the process group (and the subreaper sweep).
	ModeGroup = "group"
	// ModeCgroup: a session cgroup, the process group and the sweep.
	ModeCgroup = "cgroup"
	// ModeReaper (FreeBSD): the process group, with the starter the
	// reaper of the Engine's tree (procctl PROC_REAP_ACQUIRE), so that
	// processes that left the group are ended with the session.
	ModeReaper = "reaper"
	// ModeJob (Windows): a kill-on-close job, the gate and the guard at
	// once.
	ModeJob = "job"
)
