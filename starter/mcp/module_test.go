package mcp

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestTheModuleRequiresTheReleaseOfItsTree: a consumer ignores the
// replace directive of go.mod, so the require must name the release of
// the session-starter module this tree is (releaseVersion), the one
// tagged on the same commit as starter/mcp/vX.Y.Z.
func TestTheModuleRequiresTheReleaseOfItsTree(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "cmd", "session-starter", "version.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^const releaseVersion = "([^"]+)"$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("no releaseVersion in cmd/session-starter/version.go")
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`(?m)^\s*(require\s+)?github\.com/session-starter/session-starter v` +
		regexp.QuoteMeta(string(m[1])) + `$`)
	if !want.Match(mod) {
		t.Errorf("go.mod does not require github.com/session-starter/session-starter v%s, the release of this tree", m[1])
	}
}
