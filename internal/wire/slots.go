package wire

// The guard's descriptor slots: the number each descriptor has in the
// guard process, in each of its forms (the porch, the re-executed guard,
// the guard proper the porch executes). A slot without its descriptor is
// closed.
const (
	SlotGate    = 3  // pidfd of the gate
	SlotFinish  = 4  // read end of the finish pipe
	SlotStarter = 5  // pidfd of the starter
	SlotArmed   = 6  // write end of the armed pipe
	SlotTTY     = 7  // the terminal, in terminal mode only
	SlotCgroup  = 8  // the session cgroup's directory, in cgroup mode only
	SlotCgroupP = 9  // its parent's directory, in cgroup mode only
	SlotLedger  = 10 // the ledger's directory, with a mark only
	SlotExe     = 11 // the guard binary, the porch's alone (close-on-exec)
	Slots       = 12 // how many slots there are
)
