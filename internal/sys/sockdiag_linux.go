package sys

import (
	"encoding/binary"
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// unix_diag constants (linux/unix_diag.h); x/sys/unix has the netlink
// family and message type but not these.
const (
	udiagShowPeer = 0x4 // UDIAG_SHOW_PEER: ask for the peer's inode
	unixDiagPeer  = 2   // UNIX_DIAG_PEER: the attribute that carries it
	diagNoCookie  = ^uint32(0)
)

// UnixPeer returns the inode number of the socket connected to the Unix
// domain socket open at fd (the other end of a socket pair), as the
// kernel's sock_diag interface reports it (CONFIG_UNIX_DIAG, what ss -x
// uses). An inode number is what fstat shows as st_ino of that other end.
// ok is false when fd is not a Unix domain socket or has no peer.
func UnixPeer(fd int) (ino uint64, ok bool, err error) {
	domain, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return 0, false, named("getsockopt", err)
	}
	if domain != unix.AF_UNIX {
		return 0, false, nil
	}
	st, err := Fstat(fd)
	if err != nil {
		return 0, false, err
	}
	nl, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return 0, false, named("socket", err)
	}
	defer Close(nl)

	// struct nlmsghdr, then struct unix_diag_req asking for the one
	// socket with this inode (no cookie to check) and its peer.
	req := make([]byte, unix.NLMSG_HDRLEN+24)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST)
	ne.PutUint32(req[8:], 1) // sequence number
	r := req[unix.NLMSG_HDRLEN:]
	r[0] = unix.AF_UNIX
	ne.PutUint32(r[4:], ^uint32(0)) // every state
	ne.PutUint32(r[8:], uint32(st.Ino))
	ne.PutUint32(r[12:], udiagShowPeer)
	ne.PutUint32(r[16:], diagNoCookie)
	ne.PutUint32(r[20:], diagNoCookie)
	if err := unix.Sendto(nl, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return 0, false, named("sendto", err)
	}
	buf := make([]byte, 4096)
	n, err := Recv(nl, buf, 0)
	if err != nil {
		return 0, false, err
	}
	return parseUnixDiag(buf[:n])
}

// parseUnixDiag reads the kernel's answer to a unix_diag request: one
// struct unix_diag_msg with its attributes, or a netlink error.
func parseUnixDiag(b []byte) (ino uint64, ok bool, err error) {
	msgs, err := syscall.ParseNetlinkMessage(b)
	if err != nil || len(msgs) == 0 {
		return 0, false, errors.New("sock_diag: short or malformed answer")
	}
	ne := binary.NativeEndian
	body := msgs[0].Data
	switch msgs[0].Header.Type {
	case unix.NLMSG_ERROR:
		if len(body) < 4 {
			return 0, false, errors.New("sock_diag: malformed error")
		}
		return 0, false, os.NewSyscallError("sock_diag", unix.Errno(-int32(ne.Uint32(body))))
	case unix.SOCK_DIAG_BY_FAMILY:
	default:
		return 0, false, errors.New("sock_diag: unexpected answer")
	}
	const msgLen = 16 // struct unix_diag_msg
	if len(body) < msgLen {
		return 0, false, errors.New("sock_diag: short message")
	}
	for attrs := body[msgLen:]; len(attrs) >= 4; {
		alen := int(ne.Uint16(attrs[0:]))
		if alen < 4 || alen > len(attrs) {
			return 0, false, errors.New("sock_diag: malformed attribute")
		}
		if ne.Uint16(attrs[2:]) == unixDiagPeer && alen >= 8 {
			return uint64(ne.Uint32(attrs[4:])), true, nil
		}
		attrs = attrs[min((alen+3)&^3, len(attrs)):]
	}
	return 0, false, nil
}
