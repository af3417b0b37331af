// Package ledger keeps a record of each live session on disk, so that
// what a session left behind when its starter and its guard were both
// SIGKILLed (an OOM kill of the whole tree, a container stop) can be found
// and ended later ([Reclaim]) — by identity, never by a PID alone.
//
// A record ([Record]) is written atomically (a temporary file, then a
// rename) into a private per-user directory ([OpenDir]): the boot id, the
// session id of its mark (package internal/mark), and for the starter,
// the guard and the Engine the PID with an identity token ([Token]), the
// group, the session cgroup's directory and id, the start time, and on
// Linux the namespaces these numbers are relative to ([Namespaces]). The
// starter writes it, and removes it at a clean end, by its name relative
// to a descriptor of the directory; after a SIGKILL of the starter, the
// guard removes it ([FileName], relative to a descriptor of the directory
// it got at arming: [OpenDir]) once its end of the session found nothing
// left, and keeps it otherwise, for a reclaim.
//
// # Guarantees
//
// Reclaim acts on a record only when it is this user's, read whole, of
// this boot, of this process's PID, cgroup and user namespaces (on Linux;
// [Namespaces]: another namespace's numbers name other processes here,
// and a record of version 1 names none: reported other-namespace, never
// acted on), and names a starter and a guard that are both shown gone (no
// live process with the token's identity: a PID given to another process
// since does not keep a session alive, and is reported, token-mismatch,
// never signalled). It then ends the Engine the
// record names, where the live process at its PID has its token, through
// a pidfd of it (a PID that names another process now is reported,
// token-mismatch, and never signalled). Then it ends the session's cgroup
// (cgroup.kill on the directory whose id the record names, no PID guessed)
// or, for a session without one, every process that carries the session's
// mark, verified on the live process and signalled through its pidfd, in
// passes until one finds nothing new.
// On macOS and FreeBSD, which have neither pidfds nor cgroups, the Engine
// is opened by its exit watch and compared by its token, and the rest is
// package internal/lineage's sweep from it: its descendants by their
// parents' identities and the marked processes whose environment can be
// read, each read again right before its signal. Processes of other
// users are never touched; PPID 1 is never a reason to signal.
//
// # Failure rule
//
// A record of a PID namespace in which nothing is left is removed,
// namespace-gone, nothing signalled: its inode number is this namespace's
// and its PID 1 another process (an earlier namespace had the number), or
// a reclaim here saw its PID 1 alive before (Record.SeenFrom: this
// namespace is its ancestor) and sees it no more.
//
// A record or a directory that cannot be trusted — torn, of another user,
// of the wrong mode, behind a symlink — is reported and not acted on; a
// process that cannot be verified is reported with its reason and never
// signalled. Without a directory that passes the checks the ledger is
// off, and every feature that needs it says so.
package ledger
