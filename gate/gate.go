package gate

// Spec says what the gate is to become.
type Spec struct {
	// Exe is the binary that implements the hidden mode, normally
	// /proc/self/exe. A raw gate (see Spawn) does not use it.
	Exe string
	// Path is the Engine's program, already resolved; Argv its arguments,
	// Argv[0] included; Env its environment.
	Path string
	Argv []string
	Env  []string
	// Files lists the descriptors the Engine gets at the same numbers:
	// 0, 1, 2 and those the launcher passed. Numbers not listed are closed
	// in the Engine.
	Files []int
	// CgroupProcs, when > 2, is a descriptor open for writing on the
	// cgroup.procs of the session cgroup: the gate writes its own PID to
	// it before it reports ready, so that it executes the Engine only
	// inside that cgroup. The gate gets it at a number of its own and
	// closes it before the Engine runs.
	CgroupProcs int
	// CgroupDir, when > 2, is a directory descriptor of the same cgroup:
	// the raw gate is then made inside it (Linux 5.7) rather than moved
	// there, and writes CgroupProcs only where that is refused.
	CgroupDir int
	// ListenPID, when > 0, is 1 + the index in Env of a LISTEN_PID entry
	// for the raw gate to set to its own PID, which the Engine keeps
	// (socket activation); ListenPIDFDID likewise names LISTEN_PIDFDID,
	// set to the pidfs inode number of the Engine's pidfd. The
	// re-executed gate leaves both as they are.
	ListenPID, ListenPIDFDID int
	// ReExec asks for the gate as Exe started again in the hidden mode
	// where a raw child of this process would be used (Linux).
	ReExec bool
}
