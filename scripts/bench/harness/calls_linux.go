package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/session-starter/session-starter/starter/contain"
)

// calls measures contained calls (starter/contain) in whatever holds this
// process: run under "session-starter --containment cgroup" for the
// cgroup mode, else each call has its own group. Rows: a plain
// exec.Command("/bin/true").Run() and a contained one, in pairs; and the
// time from Kill to the last member of a -size process call gone.
func calls(args []string) error {
	fs := flag.NewFlagSet("calls", flag.ExitOnError)
	tree := fs.String("tree", "", "tree helper")
	runs := fs.Int("n", 200, "runs of each")
	size := fs.Int("size", 100, "processes in the killed call")
	_ = fs.Parse(args)
	mode := "group"
	probe := contain.Command(context.Background(), "/bin/true")
	if err := probe.Run(); err != nil {
		return fmt.Errorf("probe call: %w", err)
	}
	if probe.Result().Cgroup != "" {
		mode = "cgroup"
	}
	var plain, contained, kills []time.Duration
	for range *runs {
		t0 := time.Now()
		if err := exec.Command("/bin/true").Run(); err != nil {
			return err
		}
		plain = append(plain, time.Since(t0))
		t0 = time.Now()
		if err := contain.Command(context.Background(), "/bin/true").Run(); err != nil {
			return err
		}
		contained = append(contained, time.Since(t0))
	}
	for range max(*runs/10, 5) {
		c := contain.Command(context.Background(), *tree, strconv.Itoa(*size))
		out, err := c.StdoutPipe()
		if err != nil {
			return err
		}
		if err := c.Start(); err != nil {
			return err
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "pids ") {
			_ = c.Kill()
			_ = c.Wait()
			return fmt.Errorf("tree: %q, %v", line, err)
		}
		t0 := time.Now()
		if err := c.Kill(); err != nil {
			return err
		}
		kills = append(kills, time.Since(t0))
		_ = c.Wait()
	}
	pm, _ := stats(plain)
	cm, _ := stats(contained)
	emit("f. calls", "exec.Command(\"/bin/true\").Run()", plain, "")
	emit("f. calls", "contain.Command(\"/bin/true\").Run(), "+mode+" mode", contained,
		fmt.Sprintf("%.2f× plain, +%s ms (paired runs)", float64(cm)/float64(pm), ms(cm-pm)))
	emit("f. calls", fmt.Sprintf("Kill of a %d-process call, %s mode", *size, mode), kills, "Kill to its return: the last member gone")
	return nil
}
