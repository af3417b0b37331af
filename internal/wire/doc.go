// Package wire holds the messages the starter exchanges with its gate and
// its guard, and the one way to encode and decode each.
//
// Every message is one line of ASCII, at most [MaxLine] bytes with its
// newline: a word, then decimal numbers. A decoder accepts exactly the
// encoder's output and nothing else: no extra spaces, no sign, no leading
// zero, no trailing bytes. Whatever does not decode is an error, and each
// reader treats an error like the end of its peer (the gate does not
// execute, the guard ends the group).
package wire
