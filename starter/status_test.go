package starter

import (
	"encoding/json"
	"testing"

	"github.com/session-starter/session-starter/starter/launch"
)

// TestTheEndedRecordCarriesTheOOMKillsAboveItsUsage: the ended record
// has oom_kills at its top level and the other figures in usage, each
// with its source; usage is absent when there is no other figure.
func TestTheEndedRecordCarriesTheOOMKillsAboveItsUsage(t *testing.T) {
	n, peak := int64(2), int64(3)
	full := launch.Usage{TasksPeak: &peak, TasksPeakSource: "pids.peak", OOMKills: &n}
	full.SetCPU(1500000, "cpu.stat")
	for _, tt := range []struct {
		name            string
		u               launch.Usage
		oomKills, usage string // the raw JSON of each key, "" for none
	}{
		{"every figure", full, `2`, `{"cpu_ms":1.5,"cpu_source":"cpu.stat","tasks_peak":3,"tasks_peak_source":"pids.peak"}`},
		{"the OOM kills only", launch.Usage{OOMKills: &n}, `2`, ""},
		{"no figure", launch.Usage{}, "", ""},
	} {
		b, err := json.Marshal(ended(Result{Usage: tt.u}, nil))
		var rec map[string]json.RawMessage
		if err == nil {
			err = json.Unmarshal(b, &rec)
		}
		if err != nil || string(rec["oom_kills"]) != tt.oomKills || string(rec["usage"]) != tt.usage {
			t.Errorf("%s: ended record %s, %v; want oom_kills %q and usage %q", tt.name, b, err, tt.oomKills, tt.usage)
		}
	}
}
