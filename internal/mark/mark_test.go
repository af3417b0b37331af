package mark

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestNewIDsDifferAndParseBack(t *testing.T) {
	a, err := New()
	if err != nil {
		t.Fatal(err)
	}
	b, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatalf("two new ids are both %s", a)
	}
	for _, id := range []ID{a, b} {
		s := id.String()
		if len(s) != 32 || strings.ToLower(s) != s {
			t.Fatalf("%s: want 32 lower-case hexadecimal digits", s)
		}
		got, err := Parse(s)
		if err != nil || got != id {
			t.Fatalf("Parse(%q) = %v, %v; want %v", s, got, err, id)
		}
	}
}

func TestParseRefusesAllButWhatStringWrites(t *testing.T) {
	id, _ := New()
	s := id.String()
	for _, bad := range []string{"", s[:31], s + "0", strings.ToUpper(s), "x" + s[1:], " " + s[1:], s[:16] + ":" + s[17:]} {
		if _, err := Parse(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("Parse(%q) = %v, want ErrMalformed", bad, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	id, _ := New()
	f.Add(id.String())
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Parse(s)
		if err != nil {
			if got != (ID{}) {
				t.Fatalf("Parse(%q) failed with a nonzero id %v", s, got)
			}
			return
		}
		if got.String() != s {
			t.Fatalf("Parse(%q) = %v, which prints as %q", s, got, got.String())
		}
	})
}

// TestExtendAddsOrExtendsExactlyOneVariable: the Engine's environment is
// the launcher's with exactly the mark added or extended.
func TestExtendAddsOrExtendsExactlyOneVariable(t *testing.T) {
	id, _ := New()
	outer, _ := New()
	for _, tt := range []struct {
		name string
		env  []string
		want []string
	}{
		{"none", []string{"A=1", "B=2"}, []string{"A=1", "B=2", Var + "=" + id.String()}},
		{"empty", []string{"A=1", Var + "=", "B=2"}, []string{"A=1", Var + "=" + id.String(), "B=2"}},
		{"nested", []string{Var + "=" + outer.String(), "A=1"}, []string{Var + "=" + outer.String() + ":" + id.String(), "A=1"}},
		{"twice", []string{Var + "=" + outer.String(), "A=1", Var + "=x"}, []string{Var + "=" + outer.String() + ":" + id.String(), "A=1"}},
		{"a look-alike", []string{Var + "X=1"}, []string{Var + "X=1", Var + "=" + id.String()}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.env)
			if got := Extend(tt.env, id); !slices.Equal(got, tt.want) {
				t.Errorf("Extend(%q) = %q, want %q", tt.env, got, tt.want)
			}
			if !slices.Equal(in, tt.env) {
				t.Errorf("Extend changed its argument: %q", tt.env)
			}
		})
	}
}

// TestOnlyAWholeElementOfTheVariableCarriesTheMark: the id must be one
// element of the mark, in the mark's own variable; the same text in
// another variable, in part of an element, or outside any entry (argv,
// as /proc/PID/cmdline would hold it) does not count.
func TestOnlyAWholeElementOfTheVariableCarriesTheMark(t *testing.T) {
	id, _ := New()
	other, _ := New()
	s := id.String()
	block := func(entries ...string) []byte { return []byte(strings.Join(entries, "\x00") + "\x00") }
	for _, tt := range []struct {
		name    string
		environ []byte
		want    bool
	}{
		{"alone", block("A=1", Var+"="+s), true},
		{"inner", block(Var + "=" + other.String() + ":" + s + ":" + other.String()), true},
		{"another session", block(Var + "=" + other.String()), false},
		{"another variable", block("OTHER="+s, "X="+Var+"="+s), false},
		{"a part of an element", block(Var + "=" + s + "0"), false},
		{"a prefix of the name", block("X" + Var + "=" + s), false},
		{"nothing", nil, false},
	} {
		if got := InEnviron(tt.environ, id); got != tt.want {
			t.Errorf("%s: InEnviron(%q) = %v, want %v", tt.name, tt.environ, got, tt.want)
		}
	}
}
