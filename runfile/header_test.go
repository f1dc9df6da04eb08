package runfile

import "testing"

// A header reads back its commit and command, and a merged run's names
// its shards' commit where they share one.
func TestHeader(t *testing.T) {
	h := Header("default", "0123456789abcdef", "cd benchmarks && go test -bench .", 0)
	if h != "# convbench sweep default, commit 0123456789abcdef, command: cd benchmarks && go test -bench .\n" {
		t.Errorf("Header = %q", h)
	}
	if c := HeaderCommit(h); c != "0123456" {
		t.Errorf("HeaderCommit = %q", c)
	}
	if c, ok := HeaderCommand(h); !ok || c != "cd benchmarks && go test -bench ." {
		t.Errorf("HeaderCommand = %q, %v", c, ok)
	}
	if c := HeaderCommit("# convbench sweep default, commit abcdef0 with uncommitted changes, command: x"); c != "abcdef0 (with uncommitted changes)" {
		t.Errorf("HeaderCommit of a dirty tree = %q", c)
	}
	m := Header("default", "abcdef0", "", 4)
	if m != "# convbench sweep default: the runs of its 4 shards (sweep -shard K/4), commit abcdef0, merged by sweep -merge, each below as the sweep wrote it\n" {
		t.Errorf("merged Header = %q", m)
	}
	if c := HeaderCommit(m); c != "abcdef0" {
		t.Errorf("HeaderCommit of a merged run = %q", c)
	}
	if _, ok := HeaderCommand(m); ok {
		t.Errorf("a merged run's header names a command")
	}
	if got := Header("default", "", "", 2); got != "# convbench sweep default: the runs of its 2 shards (sweep -shard K/2), merged by sweep -merge, each below as the sweep wrote it\n" {
		t.Errorf("merged Header without a shared commit = %q", got)
	}
}
