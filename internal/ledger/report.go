package ledger

// The report of a reclaim, the same on every platform. --reclaim writes it
// as the record package starter/launch reads (StatusReclaimed), field for
// field.

// Problem is a file of the ledger that was not acted on.
type Problem struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// Ended is a process Reclaim ended (or, dry, would end).
type Ended struct {
	PID  int    `json:"pid"`
	Comm string `json:"comm"`
}

// LeftProcess is a process Reclaim did not end, with the reason:
// mark-unreadable, other-uid, token-mismatch (the record's starter's,
// guard's or Engine's PID now names another process, or a cgroup's id is
// not the recorded one), other-namespace (the record is of another
// namespace: which), platform (no verified scan here), survivor (SIGKILL
// did not end it), or what failed.
type LeftProcess struct {
	PID    int    `json:"pid,omitempty"`
	Reason string `json:"reason"`
	// Survivor is set for a process verified as the session's that lives
	// on: its signal failed, SIGKILL did not end it, or its cgroup did
	// not empty. Only a survivor makes --reclaim exit 125.
	Survivor bool `json:"survivor,omitempty"`
}

// Survivors counts the processes left that were verified as a session's.
func (r Report) Survivors() int {
	n := 0
	for _, s := range r.Sessions {
		n += s.survivors()
	}
	return n
}

// survivors counts the session's processes left that were verified as
// its own.
func (s Session) survivors() int {
	n := 0
	for _, l := range s.Left {
		if l.Survivor {
			n++
		}
	}
	return n
}

// Session is what Reclaim did with one record.
type Session struct {
	Session string `json:"session"`
	// Action: "reclaimed" (ended, or nothing was left, and the record
	// removed; kept when a survivor is left, for the next reclaim), "live" (its starter or guard lives: left alone),
	// "unverified" (whether its starter or guard lives could not be told:
	// left alone, the reason in Left), "other-boot" (a record of another
	// boot: removed, nothing signalled), "other-namespace" (its numbers
	// are of another PID, cgroup or user namespace, or of none named, as
	// in a record of version 1: left alone, the reason in Left),
	// "namespace-gone" (of a PID namespace in which nothing is left:
	// removed, nothing signalled), "would-reclaim" (dry run).
	Action string        `json:"action"`
	Cgroup bool          `json:"cgroup_ended,omitempty"`
	Ended  []Ended       `json:"ended"`
	Left   []LeftProcess `json:"left"`
	// GuardEnd is what the session's guard wrote into the record when its
	// end, after the starter was gone, left something (Record.GuardEnd).
	GuardEnd string `json:"guard_end,omitempty"`
	// Containers are the ids of the session's containers the reclaim
	// stopped or removed through their engine (Record.Containers); dry,
	// those it would.
	Containers []string `json:"containers,omitempty"`
}

// Report is what Reclaim found and did.
type Report struct {
	Event    string    `json:"event"` // "reclaimed"
	Dir      string    `json:"dir"`
	DryRun   bool      `json:"dry_run"`
	Sessions []Session `json:"sessions"`
	Problems []Problem `json:"problems"`
}
