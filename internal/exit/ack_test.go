package exit

import "testing"

func TestAckLineHasItsKeysInOrder(t *testing.T) {
	if got, want := string(Ack(1234, "group")), `{"session_containment":1,"pid":1234,"mode":"group"}`+"\n"; got != want {
		t.Fatalf("Ack = %q, want %q", got, want)
	}
}
