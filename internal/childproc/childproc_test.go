package childproc

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestQuote(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "-k", "3,5"}, "sweep -k 3,5"},
		{[]string{"tune", "-setting", "block=32x8 rx=2"}, "tune -setting 'block=32x8 rx=2'"},
		{[]string{"a'b", ""}, `'a'\''b' ''`},
		{[]string{"-run", "^TestX$/^y$"}, `-run '^TestX$/^y$'`},
	} {
		if got := Quote(tt.args); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.args, got, tt.want)
		}
	}
	// What the shell reads back is the arguments.
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	args := []string{"printf", "%s|", "a b", "c'd", "$HOME", ""}
	out, err := exec.Command("sh", "-c", Quote(args)).Output()
	if err != nil || string(out) != "a b|c'd|$HOME||" {
		t.Errorf("sh -c %s printed %q, %v", Quote(args), out, err)
	}
}

// TestKillGroup: killing the group ends the grandchild too, so a hung
// kernel's process cannot outlive the run.
func TestKillGroup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no process groups")
	}
	cmd := exec.Command("sh", "-c", "sleep 60 & echo $!; wait")
	SetGroup(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 32)
	n, _ := out.Read(buf)
	grandchild := strings.TrimSpace(string(buf[:n]))
	KillGroup(cmd)
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if exec.Command("kill", "-0", grandchild).Run() != nil {
			return // gone
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("grandchild %s outlived KillGroup", grandchild)
}
