package proc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// kinfoHead is FreeBSD's struct kinfo_proc of the 64-bit ports from its
// first field to ki_comm, transcribed from <sys/user.h> field by field
// (pointers, vm_size_t, segsz_t, long and time_t are 8 bytes there;
// sigset_t four 32-bit words; KI_NGROUPS 16, TDNAMLEN 16, WMESGLEN 8,
// LOGNAMELEN 17, LOCKNAMELEN 8, COMMLEN 19). Each field lies at its
// natural alignment already, so the packed encoding below is the C
// layout; records built from it check the decoder's offsets against the
// header rather than against themselves.
type kinfoHead struct {
	Structsize, Layout                                    int32
	Args, Paddr, Addr, Tracep, Textvp, Fd, Vmspace, Wchan uint64
	Pid, Ppid, Pgid, Tpgid, Sid, Tsid                     int32
	Jobc, SpareShort1                                     int16
	TdevFreebsd11                                         uint32
	Siglist, Sigmask, Sigignore, Sigcatch                 [4]uint32
	Uid, Ruid, Svuid, Rgid, Svgid                         uint32
	Ngroups, SpareShort2                                  int16
	Groups                                                [16]uint32
	Size                                                  uint64
	Rssize, Swrss, Tsize, Dsize, Ssize                    int64
	Xstat, Acflag                                         uint16
	Pctcpu, Estcpu, Slptime, Swtime, Cow                  uint32
	Runtime                                               uint64
	StartSec, StartUsec, ChildSec, ChildUsec              int64
	Flag, Kiflag                                          int64
	Traceflag                                             int32
	Stat, Nice, Lock, Rqindex, OncpuOld, LastcpuOld       uint8
	Tdname                                                [17]byte
	Wmesg                                                 [9]byte
	Login                                                 [18]byte
	Lockname                                              [9]byte
	Comm                                                  [20]byte
}

// record returns a whole 1088-byte record with head at its start.
func record(t *testing.T, head kinfoHead) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := binary.Write(&b, binary.LittleEndian, head); err != nil {
		t.Fatal(err)
	}
	return append(b.Bytes(), make([]byte, kinfoSize-b.Len())...)
}

func sleepRecord() kinfoHead {
	h := kinfoHead{
		Structsize: kinfoSize, Pid: 4242, Ppid: 4200, Pgid: 4200, Tpgid: 4100, Sid: 4000,
		Uid: 1001, Ruid: 1002, Svuid: 1003, Stat: kiSSLEEP, StartSec: 1700000000, StartUsec: 123456,
		Args: ^uint64(0), Wchan: ^uint64(0), Tdname: [17]byte{'x'}, Lockname: [9]byte{'y'},
	}
	copy(h.Comm[:], "sleep")
	return h
}

func TestTheHeadOfKinfoProcEndsWhereTheCommandNameEnds(t *testing.T) {
	if got, want := binary.Size(kinfoHead{}), offComm+commLen; got != want {
		t.Fatalf("kinfo_proc up to ki_comm is %d bytes by <sys/user.h>, the decoder reads ki_comm up to %d", got, want)
	}
}

// TestAKinfoProcRecordBuiltFromTheHeaderIsDecoded: each field the
// decoder reads is the header's field, whatever its neighbours hold.
func TestAKinfoProcRecordBuiltFromTheHeaderIsDecoded(t *testing.T) {
	zombie := sleepRecord()
	zombie.Pid, zombie.Stat = 4243, kiSZOMB
	copy(zombie.Comm[:], "sh\x00\x00\x00")
	b := append(record(t, sleepRecord()), record(t, zombie)...)
	ps, err := freebsdLayout.parse(b)
	if err != nil {
		t.Fatalf("freebsdLayout.parse(2 records) = %v", err)
	}
	want := []kproc{
		{stat: Stat{PID: 4242, Comm: "sleep", State: 'S', PPID: 4200, Pgrp: 4200, NumThreads: 1, StartTime: 1700000000*1e6 + 123456}, uid: 1002},
		{stat: Stat{PID: 4243, Comm: "sh", State: 'Z', PPID: 4200, Pgrp: 4200, NumThreads: 1, StartTime: 1700000000*1e6 + 123456}, uid: 1002},
	}
	if len(ps) != len(want) {
		t.Fatalf("freebsdLayout.parse(2 records) = %d records, want 2", len(ps))
	}
	for i := range want {
		if ps[i] != want[i] {
			t.Errorf("record %d = %+v, want %+v", i, ps[i], want[i])
		}
	}
	if ps[1].stat.Live() {
		t.Error("a zombie with one thread decodes as live")
	}
}

func TestEveryKiStatDecodes(t *testing.T) {
	for _, tt := range []struct {
		stat byte
		want byte
	}{
		{kiSIDL, 'I'}, {kiSRUN, 'R'}, {kiSSLEEP, 'S'}, {kiSSTOP, 'T'}, {kiSZOMB, 'Z'}, {kiSWAIT, 'S'}, {kiSLOCK, 'S'}, {0, '?'}, {8, '?'},
	} {
		h := sleepRecord()
		h.Stat = tt.stat
		ps, err := freebsdLayout.parse(record(t, h))
		if err != nil || len(ps) != 1 || ps[0].stat.State != tt.want {
			t.Errorf("ki_stat %d: parseKinfo = %+v, %v; want state %c", tt.stat, ps, err, tt.want)
		}
	}
}

// A command name of all COMMLEN+1 bytes, with no NUL, is read whole and
// no further.
func TestACommandNameWithoutNULStopsAtItsField(t *testing.T) {
	h := sleepRecord()
	copy(h.Comm[:], "abcdefghijklmnopqrst")
	ps, err := freebsdLayout.parse(record(t, h))
	if err != nil || ps[0].stat.Comm != "abcdefghijklmnopqrst" {
		t.Fatalf("freebsdLayout.parse(20-byte comm) = %+v, %v; want the 20 bytes", ps, err)
	}
}

func TestMalformedKinfoIsAnError(t *testing.T) {
	good := record(t, sleepRecord())
	otherSize := sleepRecord()
	otherSize.Structsize = 768 // i386's
	for name, b := range map[string][]byte{
		"short":          good[:kinfoSize-1],
		"one and a half": append(append([]byte(nil), good...), good[:kinfoSize/2]...),
		"other layout":   record(t, otherSize),
	} {
		ps, err := freebsdLayout.parse(b)
		if !errors.Is(err, ErrMalformed) || ps != nil {
			t.Errorf("%s: parseKinfo = %v, %v; want ErrMalformed and nothing", name, ps, err)
		}
	}
	if ps, err := freebsdLayout.parse(nil); err != nil || len(ps) != 0 {
		t.Errorf("freebsdLayout.parse(nothing) = %v, %v; want no record", ps, err)
	}
}

// FuzzParseKinfo: an error gives no records; otherwise there is one per
// 1088 bytes, each with the pid_t at ki_pid's offset.
func FuzzParseKinfo(f *testing.F) {
	rec := make([]byte, kinfoSize)
	binary.LittleEndian.PutUint32(rec, kinfoSize)
	binary.LittleEndian.PutUint32(rec[offPID:], 77)
	f.Add(rec)
	f.Add(append(append([]byte(nil), rec...), rec...))
	f.Add(rec[:100])
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, err := freebsdLayout.parse(b)
		if err != nil {
			if ps != nil {
				t.Fatalf("parseKinfo = %v with error %v, want nothing", ps, err)
			}
			return
		}
		if len(ps) != len(b)/kinfoSize {
			t.Fatalf("freebsdLayout.parse(%d bytes) = %d records", len(b), len(ps))
		}
		for i, p := range ps {
			if want := int(int32(binary.LittleEndian.Uint32(b[i*kinfoSize+offPID:]))); p.stat.PID != want {
				t.Fatalf("record %d: pid %d, want %d", i, p.stat.PID, want)
			}
		}
	})
}
