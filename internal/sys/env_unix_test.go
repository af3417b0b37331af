//go:build unix

package sys

import "testing"

func TestLookupEnvTakesTheLastDefinition(t *testing.T) {
	tests := []struct {
		name   string
		env    []string
		key    string
		want   string
		wantOK bool
	}{
		{"last wins", []string{"PATH=/a", "HOME=/h", "PATH=/b"}, "PATH", "/b", true},
		{"only one", []string{"PATH=/a"}, "PATH", "/a", true},
		{"empty value is set", []string{"PATH=/a", "PATH="}, "PATH", "", true},
		{"value with =", []string{"X=a=b"}, "X", "a=b", true},
		{"missing", []string{"HOME=/h"}, "PATH", "", false},
		{"longer key is another key", []string{"PATHX=/a"}, "PATH", "", false},
		{"prefix key is another key", []string{"PAT=/a"}, "PATH", "", false},
		{"entry without =", []string{"PATH"}, "PATH", "", false},
		{"case matters", []string{"path=/a"}, "PATH", "", false},
		{"empty env", nil, "PATH", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := LookupEnv(tt.env, tt.key)
			if got != tt.want || ok != tt.wantOK {
				t.Fatalf("LookupEnv(%q, %q) = %q, %v; want %q, %v", tt.env, tt.key, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
