// Command docstats measures the documentation against its size targets
// and prints one table:
//
//   - README.md's lines, as wc -l counts them (target at most 350);
//   - the manual's lines, go doc -all ./cmd/session-starter | wc -l (700);
//   - --help's lines, session-starter --help | wc -l (60);
//   - for each non-internal package's doc.go (gate, guard, starter,
//     starter/launch, starter/contain, starter/mcp), the
//     mean sentence length of its package doc in words (25), with its
//     longest sentence.
//
// With -check it exits 1 when a measure is over its target, 2 when one
// cannot be taken; make lint runs it so (make docs-check), so that the
// sizes hold.
//
// A package doc's sentences are counted on the doc comment as go doc
// parses it (go/doc/comment):
//
//   - Code blocks (indented lines), which also hold the docs' tables and
//     diagrams, are left out, and so are headings.
//   - A paragraph is cut into sentences after ".", "?" or "!" (and any
//     closing quote or parenthesis) followed by a space and a character
//     that is not a lowercase letter, or by the paragraph's end: "e.g. a
//     pipe" and "0.5" do not end one.
//   - A list item ends a sentence where it ends, with or without a
//     period, and is cut inside as a paragraph is; its marker ("-", "1.")
//     is not a word.
//   - A word is a run of characters between spaces that holds a letter or
//     a digit: a dash standing alone is not one. A link counts as its
//     text.
//
// Run from the repository's root (make docstats, make docs-check):
//
//	go run ./scripts/docstats [-check] [-go go] [-help-cmd 'bin/session-starter --help']
//
// -help-cmd is the command whose output is --help's, split at spaces;
// without it, go run ./cmd/session-starter --help.
package main
