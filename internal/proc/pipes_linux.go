package proc

import (
	"os"
	"slices"
	"strconv"
)

// PipeHolders lists the processes that have a descriptor of the pipe
// with inode ino open, by reading every /proc/PID/fd link: "pipe:[ino]".
// A process that exits during the scan is left out; one whose
// descriptors may not be read (another user's, without privilege) is
// left out too, so the list is a lower bound.
func PipeHolders(ino uint64) ([]int, error) {
	all, err := PIDs()
	if err != nil {
		return nil, err
	}
	want := "pipe:[" + strconv.FormatUint(ino, 10) + "]"
	var out []int
	for _, pid := range all {
		dir := Root + "/" + strconv.Itoa(pid) + "/fd"
		d, err := os.Open(dir)
		if err != nil {
			continue
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, n := range names {
			if l, err := os.Readlink(dir + "/" + n); err == nil && l == want {
				out = append(out, pid)
				break
			}
		}
	}
	slices.Sort(out)
	return out, nil
}
