package proc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// macKinfo is macOS's struct kinfo_proc of the 64-bit ports, transcribed
// from XNU's <sys/sysctl.h> and <sys/proc.h> field by field: struct
// extern_proc (pointers, caddr_t and u_quad_t 8 bytes; struct timeval a
// 64-bit tv_sec and a 32-bit tv_usec, padded to 16; MAXCOMLEN 16), then
// struct eproc (struct _pcred with pc_lock[72], struct _ucred with
// NGROUPS 16, struct vmspace of int32 and pointer dummies, WMESGLEN 7,
// COMAPTLEN 12). The C padding is written out as blank fields, so the
// encoding is the C layout; records built from it check the decoder's
// offsets against the headers rather than against themselves.
type macKinfo struct {
	// struct extern_proc
	StartSec                    int64
	StartUsec                   int32
	_                           [4]byte
	Vmspace, Sigacts            uint64
	Flag                        int32
	Stat                        int8
	_                           [3]byte
	Pid, Oppid, Dupfd           int32
	_                           [4]byte
	UserStack, ExitThread       uint64
	Debugger, Sigwait           int32
	Estcpu, Cpticks, Pctcpu     uint32
	_                           [4]byte
	Wchan, Wmesg                uint64
	Swtime, Slptime             uint32
	Realtimer                   [2][2]int64 // struct itimerval: two struct timeval
	RtimeSec, RtimeUsec         int64
	Uticks, Sticks, Iticks      uint64
	Traceflag                   int32
	_                           [4]byte
	Tracep                      uint64
	Siglist                     int32
	_                           [4]byte
	Textvp                      uint64
	Holdcnt                     int32
	Sigmask, Sigignore, Sigcatc uint32
	Priority, Usrpri            uint8
	Nice                        int8
	Comm                        [17]byte
	_                           [4]byte
	Pgrp, Addr                  uint64
	Xstat, Acflag               uint16
	_                           [4]byte
	Ru                          uint64
	// struct eproc
	Paddr, Sess              uint64
	PcLock                   [72]byte
	PcUcred                  uint64
	Ruid, Svuid, Rgid, Svgid uint32
	Refcnt                   int32
	_                        [4]byte
	CrRef                    int32
	CrUID                    uint32
	CrNgroups                int16
	_                        [2]byte
	CrGroups                 [16]uint32
	_                        [4]byte // struct vmspace is 8-aligned
	VmRefcnt                 int32
	_                        [4]byte
	VmShm                    uint64
	VmSizes                  [5]int32
	_                        [4]byte
	VmAddrs                  [3]uint64
	Ppid, Pgid               int32
	Jobc                     int16
	_                        [2]byte
	Tdev, Tpgid              int32
	_                        [4]byte
	Tsess                    uint64
	EWmesg                   [8]byte
	Xsize                    int32
	Xrssize, Xccount, Xswrss int16
	_                        [2]byte
	EFlag                    int32
	Login                    [12]byte
	Spare                    [4]int32
	_                        [4]byte
}

func macRecord(t *testing.T, k macKinfo) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := binary.Write(&b, binary.LittleEndian, k); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func macSleep() macKinfo {
	k := macKinfo{
		StartSec: 1764650000, StartUsec: 654321, Stat: macSSLEEP, Pid: 4242, Oppid: 7,
		Ppid: 4200, Pgid: 4100, Tpgid: 4000, Ruid: 501, Svuid: 502, CrUID: 503,
		Vmspace: ^uint64(0), Ru: ^uint64(0), PcUcred: ^uint64(0), Tsess: ^uint64(0),
	}
	copy(k.Comm[:], "sleep")
	copy(k.EWmesg[:], "wait")
	copy(k.Login[:], "someone")
	return k
}

func TestMacKinfoProcIs648BytesByTheHeaders(t *testing.T) {
	if got := binary.Size(macKinfo{}); got != macKinfoSize {
		t.Fatalf("struct kinfo_proc by XNU's headers is %d bytes, the decoder reads records of %d", got, macKinfoSize)
	}
}

func TestAMacKinfoProcRecordBuiltFromTheHeadersIsDecoded(t *testing.T) {
	zombie := macSleep()
	zombie.Pid, zombie.Stat, zombie.Ppid = 4243, macSZOMB, 1
	copy(zombie.Comm[:], "sh\x00\x00\x00")
	ps, err := macLayout.parse(append(macRecord(t, macSleep()), macRecord(t, zombie)...))
	if err != nil {
		t.Fatal(err)
	}
	start := uint64(1764650000)*1e6 + 654321
	want := []kproc{
		{stat: Stat{PID: 4242, Comm: "sleep", State: 'S', PPID: 4200, Pgrp: 4100, NumThreads: 1, StartTime: start}, uid: 501},
		{stat: Stat{PID: 4243, Comm: "sh", State: 'Z', PPID: 1, Pgrp: 4100, NumThreads: 1, StartTime: start}, uid: 501},
	}
	if len(ps) != len(want) {
		t.Fatalf("%d records, want 2", len(ps))
	}
	for i := range want {
		if ps[i] != want[i] {
			t.Errorf("record %d = %+v, want %+v", i, ps[i], want[i])
		}
	}
	if ps[1].stat.Live() {
		t.Error("a zombie decodes as live")
	}
}

func TestEveryMacPStatDecodes(t *testing.T) {
	for _, tt := range []struct {
		stat int8
		want byte
	}{{macSIDL, 'I'}, {macSRUN, 'R'}, {macSSLEEP, 'S'}, {macSSTOP, 'T'}, {macSZOMB, 'Z'}, {0, '?'}, {6, '?'}} {
		k := macSleep()
		k.Stat = tt.stat
		ps, err := macLayout.parse(macRecord(t, k))
		if err != nil || len(ps) != 1 || ps[0].stat.State != tt.want {
			t.Errorf("p_stat %d: %+v, %v; want state %c", tt.stat, ps, err, tt.want)
		}
	}
}

func TestAMacCommandNameOf17BytesStopsAtItsField(t *testing.T) {
	k := macSleep()
	copy(k.Comm[:], "abcdefghijklmnopq")
	k.Pgrp = 0x4141414141414141
	ps, err := macLayout.parse(macRecord(t, k))
	if err != nil || ps[0].stat.Comm != "abcdefghijklmnopq" {
		t.Fatalf("parseMacKinfo = %+v, %v; want the 17 bytes", ps, err)
	}
}

func TestMalformedMacKinfoIsAnError(t *testing.T) {
	good := macRecord(t, macSleep())
	for name, b := range map[string][]byte{
		"short":          good[:macKinfoSize-1],
		"FreeBSD's size": make([]byte, kinfoSize),
		"one and a half": append(append([]byte(nil), good...), good[:macKinfoSize/2]...),
	} {
		if ps, err := macLayout.parse(b); !errors.Is(err, ErrMalformed) || ps != nil {
			t.Errorf("%s: parseMacKinfo = %v, %v; want ErrMalformed and nothing", name, ps, err)
		}
	}
}
