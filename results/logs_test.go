package results

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogsCarryTheirCommand holds the committed GPU evidence to its
// policy: every run directory under logs/<gpu>/ has a README saying how
// the run was made, and every raw log (*.log, and the CSV pages the ncu
// stage writes, *.csv) names, in its first two lines, the exact command
// that produced it.
func TestLogsCarryTheirCommand(t *testing.T) {
	runs, err := filepath.Glob(filepath.Join("logs", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) == 0 {
		t.Fatal("no GPU run directories under results/logs")
	}
	for _, run := range runs {
		if _, err := os.Stat(filepath.Join(run, "README.md")); err != nil {
			t.Errorf("%s: no README.md describing the run", run)
		}
		logs, _ := filepath.Glob(filepath.Join(run, "*.log"))
		csvs, _ := filepath.Glob(filepath.Join(run, "*.csv"))
		logs = append(logs, csvs...)
		if len(logs) == 0 {
			t.Errorf("%s: no raw logs", run)
		}
		for _, name := range logs {
			if !firstLinesHoldCommand(t, name) {
				t.Errorf("%s: neither of the first two lines names the command", name)
			}
		}
	}
}

func firstLinesHoldCommand(t *testing.T, name string) bool {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for i := 0; i < 2 && sc.Scan(); i++ {
		line := strings.TrimPrefix(sc.Text(), "# ")
		if strings.HasPrefix(line, "command: ") {
			return true
		}
	}
	return false
}
