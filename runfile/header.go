package runfile

import (
	"fmt"
	"regexp"
	"strings"
)

// Header is the comment line a stored run opens with, ending in a
// newline: "# convbench sweep <preset>, commit <sha>, command: <command>"
// for the run of one sweep, or, with shards > 0, the line of the run
// sweep -merge made of that many shards' runs, which name their commands
// each in its own header below it and commit where they share one.
func Header(preset, commit, command string, shards int) string {
	if shards > 0 {
		of := ""
		if commit != "" {
			of = ", commit " + commit
		}
		return fmt.Sprintf("# convbench sweep %s: the runs of its %d shards (sweep -shard K/%d)%s, merged by sweep -merge, each below as the sweep wrote it\n", preset, shards, shards, of)
	}
	return fmt.Sprintf("# convbench sweep %s, commit %s, command: %s\n", preset, commit, command)
}

// commitPattern finds the commit in a run's header line, which every
// writer of runs writes as "commit <sha>".
var commitPattern = regexp.MustCompile(`\bcommit ([0-9a-f]{7,40})\b`)

// HeaderCommit returns the short commit a run's header names, with
// " (with uncommitted changes)" when the header says so, or "" when it
// names none.
func HeaderCommit(header string) string {
	m := commitPattern.FindStringSubmatch(header)
	if m == nil {
		return ""
	}
	c := m[1][:min(7, len(m[1]))]
	if strings.Contains(header, "with uncommitted changes") {
		c += " (with uncommitted changes)"
	}
	return c
}

// HeaderCommand returns the command a header or other leading comment
// line of a run names ("command: ..."), and whether it names one.
func HeaderCommand(line string) (string, bool) {
	_, cmd, ok := strings.Cut(line, "command: ")
	return strings.TrimSpace(cmd), ok
}
