package sys

import (
	"testing"

	"golang.org/x/sys/unix"
)

func TestUnixPeerNamesTheOtherEndOfASocketPair(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	other, err := Fstat(fds[1])
	if err != nil {
		t.Fatal(err)
	}
	peer, ok, err := UnixPeer(fds[0])
	if err != nil || !ok || peer != other.Ino {
		t.Fatalf("UnixPeer = %d, %v, %v; want %d, true, nil", peer, ok, err, other.Ino)
	}

	lone, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(lone)
	if peer, ok, err := UnixPeer(lone); err != nil || ok {
		t.Fatalf("UnixPeer(unconnected) = %d, %v, %v; want no peer", peer, ok, err)
	}
}
