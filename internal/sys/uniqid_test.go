package sys

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// uniqInfo is struct proc_uniqidentifierinfo as <sys/proc_info.h> lays
// it out (every field at its natural alignment, so packed is the C
// layout).
type uniqInfo struct {
	UUID               [16]byte
	Unique, Parent     uint64
	IDVersion          int32
	OrigPPIDVersion    uint32
	Reserve2, Reserve3 uint64
}

func uniqBytes(t *testing.T, u uniqInfo) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := binary.Write(&b, binary.LittleEndian, u); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestTheUniqueIDsAreReadFromTheirFields(t *testing.T) {
	u := uniqInfo{Unique: 0x1122334455667788, Parent: 0x99, IDVersion: -7, OrigPPIDVersion: ^uint32(0), Reserve2: ^uint64(0), Reserve3: ^uint64(0)}
	for i := range u.UUID {
		u.UUID[i] = 0xee
	}
	b := uniqBytes(t, u)
	if len(b) != uniqInfoSize {
		t.Fatalf("struct proc_uniqidentifierinfo is %d bytes by the header, the decoder wants %d", len(b), uniqInfoSize)
	}
	ids, err := decodeUniqInfo(b, len(b))
	if err != nil || ids != (UniqueIDs{Unique: 0x1122334455667788, Parent: 0x99, Version: -7}) {
		t.Fatalf("decodeUniqInfo = %+v, %v", ids, err)
	}
}

func TestAShortOrEmptyUniqueIDInfoIsAnError(t *testing.T) {
	b := uniqBytes(t, uniqInfo{Unique: 7, Parent: 1})
	for name, n := range map[string]int{"nothing written": 0, "short": 40, "too long": 64} {
		if ids, err := decodeUniqInfo(b, n); err == nil {
			t.Errorf("%s: decodeUniqInfo = %+v, want an error", name, ids)
		}
	}
	if ids, err := decodeUniqInfo(uniqBytes(t, uniqInfo{Parent: 1}), uniqInfoSize); err == nil {
		t.Errorf("unique id 0: decodeUniqInfo = %+v, want an error", ids)
	}
}
