// Package contain is for Go Engines: [IfRequested], called first thing in
// main, makes the program its own session starter when a launcher asks
// for it (the requested form), and returns at once otherwise.
//
// When asked, the process behaves as "session-starter --ack
// --watch-parent -- <its own command line>": it writes the ack line, runs
// the same binary with the same arguments as the Engine behind the gate
// and the guard, and exits with the Engine's status once every process of
// the session has ended. A launcher reads the ack line exactly as from
// session-starter (package starter/launch, [launch.ParseAck]).
//
// Failure rule: if containment cannot be established, the process exits
// 125 with one report line on stderr, and the Engine never runs; a helper
// binary of another protocol refuses, and the session fails the same way.
package contain
