package main

import (
	"go/doc/comment"
	"strings"
	"unicode"
	"unicode/utf8"
)

// sentence is one sentence of a doc: its words.
type sentence []string

// sentences returns the sentences of a doc comment's text (the comment
// markers removed), in order; the rules are the package doc's.
func sentences(text string) []sentence {
	// Every [Name] is taken for a doc link, counted as its text.
	p := comment.Parser{LookupSym: func(recv, name string) bool { return true }}
	var lengths []sentence
	for _, b := range p.Parse(text).Content {
		switch b := b.(type) {
		case *comment.Paragraph:
			lengths = append(lengths, splitSentences(plain(b.Text))...)
		case *comment.List:
			for _, item := range b.Items {
				for _, c := range item.Content {
					if para, ok := c.(*comment.Paragraph); ok {
						lengths = append(lengths, splitSentences(plain(para.Text))...)
					}
				}
			}
		case *comment.Heading, *comment.Code:
			// Not prose.
		}
	}
	return lengths
}

// plain is the text of a paragraph's spans, a link as its text.
func plain(texts []comment.Text) string {
	var b strings.Builder
	for _, t := range texts {
		switch t := t.(type) {
		case comment.Plain:
			b.WriteString(string(t))
		case comment.Italic:
			b.WriteString(string(t))
		case *comment.Link:
			b.WriteString(plain(t.Text))
		case *comment.DocLink:
			b.WriteString(plain(t.Text))
		}
	}
	return b.String()
}

// splitSentences returns the sentences of s, whose end ends a sentence
// too.
func splitSentences(s string) []sentence {
	var all []sentence
	var words sentence
	fields := strings.Fields(s)
	for i, f := range fields {
		if isWord(f) {
			words = append(words, f)
		}
		last := i == len(fields)-1
		if last || (endsSentence(f) && !startsLower(fields[i+1])) {
			if len(words) > 0 {
				all = append(all, words)
			}
			words = nil
		}
	}
	return all
}

// isWord reports whether a field holds a letter or a digit.
func isWord(f string) bool {
	return strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// endsSentence reports whether a field ends in ".", "?" or "!", before
// any closing quotes and parentheses.
func endsSentence(f string) bool {
	f = strings.TrimRight(f, `"')]’”`)
	return strings.HasSuffix(f, ".") || strings.HasSuffix(f, "?") || strings.HasSuffix(f, "!")
}

// startsLower reports whether a field starts with a lowercase letter.
func startsLower(f string) bool {
	r, _ := utf8.DecodeRuneInString(f)
	return unicode.IsLower(r)
}
