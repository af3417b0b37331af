package launch_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/starter/launch"
)

// TestTheReclaimRecordIsTheLedgersReportFieldForField: the record
// --reclaim writes is the ledger's report; read as StatusReclaimed and
// written again, it is the same JSON, and each type has the ledger's
// fields: a field added to one and not the other fails this.
func TestTheReclaimRecordIsTheLedgersReportFieldForField(t *testing.T) {
	rep := ledger.Report{Event: "reclaimed", Dir: "/d", DryRun: true,
		Sessions: []ledger.Session{{Session: "s", Action: "reclaimed", Cgroup: true, GuardEnd: "g", Containers: []string{"c1"},
			Ended: []ledger.Ended{{PID: 1, Comm: "c"}}, Left: []ledger.LeftProcess{{PID: 2, Reason: "token-mismatch", Survivor: true}}}},
		Problems: []ledger.Problem{{File: "f", Reason: "torn"}}}
	a, _ := json.Marshal(rep)
	var rec launch.StatusReclaimed
	if err := json.Unmarshal(a, &rec); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rec)
	if string(a) != string(b) {
		t.Errorf("the ledger's report %s\nread as the record is %s", a, b)
	}
	for _, pair := range [][2]any{{ledger.Report{}, launch.StatusReclaimed{}}, {ledger.Session{}, launch.ReclaimedSession{}},
		{ledger.Ended{}, launch.ReclaimedProcess{}}, {ledger.LeftProcess{}, launch.LeftProcess{}}, {ledger.Problem{}, launch.LedgerProblem{}}} {
		if x, y := reflect.TypeOf(pair[0]), reflect.TypeOf(pair[1]); x.NumField() != y.NumField() {
			t.Errorf("%v has %d fields, %v %d", x, x.NumField(), y, y.NumField())
		}
	}
}
