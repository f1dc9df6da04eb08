package fleet

import (
	"fmt"
	"strings"
)

// Target is where one task runs: a partition, a node or a GPU type (a
// partition's GPUs of that type), and the generic resources it asks for.
type Target struct {
	Partition string `json:"partition,omitempty"`
	Node      string `json:"node,omitempty"`
	GPUType   string `json:"gpu_type,omitempty"`
	Gres      string `json:"gres,omitempty"` // sbatch --gres; "" asks for none
}

// LocalTarget is the one target of a local job: this host.
var LocalTarget = Target{Node: "this host"}

// String names the target as the status and the report show it.
func (t Target) String() string {
	if t == LocalTarget {
		return "this host"
	}
	parts := setValues("gpu=", t.GPUType, "node=", t.Node, "partition=", t.Partition)
	if len(parts) == 0 {
		return "default partition"
	}
	return strings.Join(parts, " ")
}

// sbatchArgs are the sbatch options that place a task on the target.
func (t Target) sbatchArgs() []string {
	return setValues("--partition=", t.Partition, "--nodelist=", t.Node, "--gres=", t.Gres)
}

// setValues takes pairs of a prefix and a value, and returns each value
// that is set behind its prefix, in order.
func setValues(pairs ...string) []string {
	var set []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			set = append(set, pairs[i]+pairs[i+1])
		}
	}
	return set
}

// DefaultGres is what a GPU task on a partition or node target asks for.
const DefaultGres = "gpu:1"

// Targets is what a user names: one task for each partition, each node
// and each GPU type.
type Targets struct {
	Partitions []string // one task each
	Nodes      []string // one task each (Slurm node names, ranges expanded)
	GPUTypes   []string // one task each, asking --gres=gpu:TYPE:1
	Partition  string   // the partition of the node and GPU-type tasks; "" the default
	Gres       string   // the GRES of a GPU run's partition and node tasks: "" DefaultGres, "none" none
	CPU        bool     // a run without GPUs: no GRES, no GPU check
}

// List returns the targets, partitions first, then nodes, then GPU types.
func (s Targets) List() ([]Target, error) {
	if len(s.Partitions)+len(s.Nodes)+len(s.GPUTypes) == 0 {
		return nil, fmt.Errorf("fleet: no targets: name partitions, nodes or GPU types")
	}
	if s.CPU && len(s.GPUTypes) > 0 {
		return nil, fmt.Errorf("fleet: GPU types %s given for a run without GPUs", strings.Join(s.GPUTypes, ","))
	}
	if s.CPU && s.Gres != "" && s.Gres != "none" {
		return nil, fmt.Errorf("fleet: GRES %q given for a run without GPUs", s.Gres)
	}
	gres := s.Gres
	switch {
	case s.CPU || gres == "none":
		gres = ""
	case gres == "":
		gres = DefaultGres
	}
	var ts []Target
	for _, p := range s.Partitions {
		if err := checkName("partition", p); err != nil {
			return nil, err
		}
		ts = append(ts, Target{Partition: p, Gres: gres})
	}
	for _, n := range s.Nodes {
		if err := checkName("node", n); err != nil {
			return nil, err
		}
		ts = append(ts, Target{Partition: s.Partition, Node: n, Gres: gres})
	}
	for _, g := range s.GPUTypes {
		if err := checkName("GPU type", g); err != nil {
			return nil, err
		}
		ts = append(ts, Target{Partition: s.Partition, GPUType: g, Gres: "gpu:" + g + ":1"})
	}
	return ts, nil
}

// checkName refuses an empty name or one with characters no Slurm
// partition, node or GRES type has.
func checkName(what, name string) error {
	if name == "" {
		return fmt.Errorf("fleet: empty %s name", what)
	}
	if i := strings.IndexAny(name, " \t\n,;:=[]'\"\\$`"); i >= 0 {
		return fmt.Errorf("fleet: %s name %q: character %q not allowed", what, name, name[i])
	}
	return nil
}

// SplitList splits a comma-separated list of names, keeping the commas
// inside a Slurm host range such as n[1,3-4] in their item, and dropping
// empty items.
func SplitList(s string) []string {
	var items []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				items = appendItem(items, s[start:i])
				start = i + 1
			}
		}
	}
	return appendItem(items, s[start:])
}

func appendItem(items []string, item string) []string {
	if item = strings.TrimSpace(item); item != "" {
		items = append(items, item)
	}
	return items
}

// ExpandNodes expands the host ranges of a node list (n[1-3] is n1, n2,
// n3) with scontrol show hostnames; names without a range stay as they
// are.
func ExpandNodes(items []string) ([]string, error) {
	var nodes []string
	for _, it := range items {
		if !strings.Contains(it, "[") {
			nodes = append(nodes, it)
			continue
		}
		out, err := slurm("scontrol", "show", "hostnames", it)
		if err != nil {
			return nil, fmt.Errorf("fleet: expanding node range %s: %w", it, err)
		}
		nodes = append(nodes, strings.Fields(out)...)
	}
	return nodes, nil
}
