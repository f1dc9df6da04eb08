package tables_test

import (
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/convbench/convbench/tables"
)

// note is a table of one line per GPU: "gpu: text".
type note struct{ gpu, text string }

func (n *note) GPUName() string { return n.gpu }

func parseNote(b []byte) (*note, error) {
	gpu, text, ok := strings.Cut(strings.TrimSpace(string(b)), ": ")
	if !ok {
		return nil, fmt.Errorf("note: %q is not gpu: text", b)
	}
	return &note{gpu, text}, nil
}

func ExampleKind() {
	notes := &tables.Kind[*note]{Name: "notes", Env: "EXAMPLE_NOTES", Parse: parseNote,
		Files: fstest.MapFS{tables.Slug("NVIDIA H200") + ".json": {Data: []byte("NVIDIA H200: fast\n")}}}
	set, err := notes.Load()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, gpu := range set.GPUs() {
		fmt.Printf("%s: %q from %s\n", gpu, set.Table(gpu).text, set.Source(gpu))
	}
	fmt.Println(set.Table("NVIDIA H100 80GB HBM3") == nil)
	// Output:
	// NVIDIA H200: "fast" from tables/notes/nvidia-h200.json
	// true
}
