package launch

// The record of `session-starter --reclaim --status-fd N`: what a reclaim
// of the ledger found and did.
// Launchers must ignore fields they do not know; fields are only ever
// added.

// StatusReclaimed is the one record a reclaim writes.
type StatusReclaimed struct {
	Event    string             `json:"event"` // "reclaimed"
	Dir      string             `json:"dir"`   // the ledger's directory
	DryRun   bool               `json:"dry_run"`
	Sessions []ReclaimedSession `json:"sessions"` // one a record
	// Problems are the files of the ledger refused (torn, another
	// user's, open to others): none was acted on.
	Problems []LedgerProblem `json:"problems"`
}

// ReclaimedSession is what a reclaim did with one record.
type ReclaimedSession struct {
	Session string `json:"session"` // the session's id in its mark
	// Action: "reclaimed" (what was left ended, or nothing was left, and
	// the record removed; kept when a survivor is left, for the next
	// reclaim), "live" (its starter or guard lives: left
	// alone), "unverified" (whether they live could not be told: left
	// alone, the reason in Left), "other-boot" (a record of another boot:
	// removed, nothing signalled), "other-namespace" (its numbers are of
	// another PID, cgroup or user namespace, or of none named, as in a
	// record of version 1: left alone, the reason in Left),
	// "namespace-gone" (of a PID namespace in which nothing is left:
	// removed, nothing signalled), "would-reclaim" (dry run).
	Action string             `json:"action"`
	Cgroup bool               `json:"cgroup_ended,omitempty"`
	Ended  []ReclaimedProcess `json:"ended"`
	Left   []LeftProcess      `json:"left"`
	// GuardEnd, when set, is what the session's guard's end came to after
	// session-starter was gone, when it left something: its account and
	// time, as the guard wrote it into the record.
	GuardEnd string `json:"guard_end,omitempty"`
	// Containers are the ids of the session's containers (--containers)
	// the reclaim stopped, or removed where made with --rm; with --dry-run,
	// those it would.
	Containers []string `json:"containers,omitempty"`
}

// ReclaimedProcess is a process a reclaim ended (dry: would end).
type ReclaimedProcess struct {
	PID  int    `json:"pid"`
	Comm string `json:"comm"`
}

// LeftProcess is a process a reclaim did not end, with the reason:
// mark-unreadable, other-uid, token-mismatch (the record's starter's,
// guard's or Engine's PID now names another process, or a cgroup's id is
// not the recorded one), other-namespace (the record is of another
// namespace: which), platform (no verified scan here), survivor (SIGKILL
// did not end it), or what failed. PID is 0 for the session as a whole.
type LeftProcess struct {
	PID    int    `json:"pid,omitempty"`
	Reason string `json:"reason"`
	// Survivor is set for a process verified as the session's that lives
	// on: its signal failed, SIGKILL did not end it, or its cgroup did
	// not empty. Only a survivor makes --reclaim exit 125.
	Survivor bool `json:"survivor,omitempty"`
}

// LedgerProblem is a file of the ledger that was not acted on.
type LedgerProblem struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}
