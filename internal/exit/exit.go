// Package exit is how the session-starter process ends: the one line it
// reports on standard error, and the exit itself as the session's
// [starter.Verdict] says — death by the Engine's signal where it can be
// mirrored, else an exit status. [Main] is the whole of a session-starter
// process after its flags: the command and a Go Engine's requested form
// (package starter/contain) call it. Nothing here is for a library: its
// functions write to the process's standard error and end the process.
package exit
